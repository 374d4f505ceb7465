import Foundation

/// A fresh temporary directory, removed when the value is released.
package final class TemporaryDirectory {
    package let path: String

    package init() {
        let base = FileManager.default.temporaryDirectory.path
        path = "\(base)/eventlog-tests-\(UUID().uuidString)"
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    package func file(_ name: String = "test.labellog") -> String { "\(path)/\(name)" }
}
