import Foundation

/// The package's executables as SwiftPM built them for the tests (`swift
/// test` builds every product first, into the directory of the test bundle):
/// `labelreplay` for the CLI tests, `logtorture` for the crash tests.
package enum BuiltProducts {
    /// Where to look, most likely first.
    package static var directories: [URL] {
        var directories: [URL] = []
        #if os(Linux)
        // Linux: the test runner is an executable in the products directory.
        if let runner = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            directories.append(URL(fileURLWithPath: runner).deletingLastPathComponent())
        }
        #endif
        // macOS: the .xctest bundle sits in the products directory.
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            directories.append(bundle.bundleURL.deletingLastPathComponent())
        }
        if let runner = Bundle.main.executableURL { directories.append(runner.deletingLastPathComponent()) }
        directories.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        // Fallback: <package>/.build/debug, from this file's location (Tests/TestSupport/).
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        directories.append(root.appendingPathComponent(".build/debug"))
        return directories
    }

    /// The executable called `name` in the first of ``directories`` that has one, or `nil`.
    package static func executable(named name: String) -> URL? {
        directories.lazy.map { $0.appendingPathComponent(name) }.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }
}
