import Foundation
import Testing

/// What the snippets print, per test: the snippets call `print` as an app
/// would, and this module-level `print` shadows the standard library's so a
/// test can `#expect` the lines (a task-local collector; the snippets' child
/// tasks and stream consumers inherit it). Without a collector it prints.
enum Printed {
    @TaskLocal static var lines: Lines?

    /// The lines printed while `body` runs.
    static func capture(_ body: () async throws -> Void) async rethrows -> [String] {
        let lines = Lines()
        try await $lines.withValue(lines) { try await body() }
        return lines.all
    }

    /// A thread-safe list of printed lines.
    final class Lines: @unchecked Sendable {
        private let lock = NSLock()
        private var storage: [String] = []

        func append(_ line: String) { lock.withLock { storage.append(line) } }
        var all: [String] { lock.withLock { storage } }
    }
}

func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    let line = items.map { "\($0)" }.joined(separator: separator)
    if let lines = Printed.lines { lines.append(line) } else { Swift.print(line, terminator: terminator) }
}

/// A fresh directory for one test's logs and snapshots, removed by `body`'s end.
func withTemporaryDirectory<T>(_ body: (String) async throws -> T) async throws -> T {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("snippets-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await body(directory.path)
}
