import EventLog
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The child-process helper `logtorture`, built next to the test bundle.
package func tortureExecutable() throws -> URL {
    guard let url = BuiltProducts.executable(named: "logtorture") else {
        throw EventLogError(
            .fileNotFound, "logtorture not found next to the tests; run `swift build` first", path: BuiltProducts.directories.first?.path)
    }
    return url
}

/// A running child process with its stdout collected.
package final class Child {
    package let process = Process()
    let out = Pipe()
    let err = Pipe()

    /// Starts `logtorture` with `arguments`; `environment` is added to this process's.
    package init(_ arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = try tortureExecutable()
        process.arguments = arguments
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        process.standardOutput = out
        process.standardError = err
        try process.run()
    }

    package func kill() {
        sendSignal(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    private var received = Data()

    /// Blocks until the child has printed a whole first line (or exited); returns it.
    package func firstLine() -> String? {
        while !received.contains(UInt8(ascii: "\n")) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { return nil }
            received.append(chunk)
        }
        return String(decoding: received.prefix(while: { $0 != UInt8(ascii: "\n") }), as: UTF8.self)
    }

    /// Blocks until the child has printed a whole line for which `matches`
    /// holds (or exited: `nil`); returns it. Waits on what the child says,
    /// never on a clock, so a loaded machine only makes it slower.
    package func waitForLine(where matches: (String) -> Bool) -> String? {
        var scanned = 0
        while true {
            let text = String(decoding: received, as: UTF8.self)
            let lines = text.components(separatedBy: "\n").dropLast()
            if let line = lines.dropFirst(scanned).first(where: matches) { return line }
            scanned = lines.count
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { return nil }
            received.append(chunk)
        }
    }

    /// The complete lines the child printed (a line cut by the kill is dropped).
    package func lines() -> [String] {
        received.append(out.fileHandleForReading.readDataToEndOfFile())
        let text = String(decoding: received, as: UTF8.self)
        var lines = text.components(separatedBy: "\n")
        lines.removeLast()  // empty after the final newline, or a cut line
        return lines
    }

    package func errorText() -> String { String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) }
}

@inline(__always)
package func sendSignal(_ pid: Int32, _ signal: Int32) {
    #if canImport(Glibc)
    _ = Glibc.kill(pid, signal)
    #else
    _ = Darwin.kill(pid, signal)
    #endif
}
