import EventLog
import Foundation
import LabelStoreTestSupport
import Testing

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// What one run of the `labelreplay` executable produced.
struct CLIResult: Sendable, CustomStringConvertible {
    let arguments: [String]
    let status: Int32
    let stdout: String
    let stderr: String

    /// The stdout lines (without the final empty one).
    var lines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).dropLastIfEmpty() }

    /// Every stdout line parsed as a JSON object (fails the test on anything else).
    func jsonLines(sourceLocation: SourceLocation = #_sourceLocation) throws -> [[String: Any]] {
        try lines.map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
            return try #require(object as? [String: Any], "not a JSON object: \(line)", sourceLocation: sourceLocation)
        }
    }

    /// Stdout parsed as exactly one JSON object.
    func json(sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        let objects = try jsonLines(sourceLocation: sourceLocation)
        try #require(objects.count == 1, "expected one JSON line, got \(objects.count): \(stdout)", sourceLocation: sourceLocation)
        return objects[0]
    }

    var description: String {
        "labelreplay \(arguments.joined(separator: " ")) → \(status)\n--- stdout\n\(stdout)--- stderr\n\(stderr)"
    }
}

extension Array where Element == String {
    func dropLastIfEmpty() -> [String] { last == "" ? Array(dropLast()) : self }
}

/// Runs the built `labelreplay` executable in a child process.
///
/// The executable is found next to the test bundle (SwiftPM builds every
/// product, `labelreplay` included, before `swift test` runs), or through
/// the `LABELREPLAY` environment variable. Output goes to temporary files,
/// so a chatty command can never block on a full pipe, and waiting is
/// asynchronous, so many processes run at once.
enum CLI {
    static let executable: URL = locate()

    private static func locate() -> URL {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["LABELREPLAY"] { return URL(fileURLWithPath: path) }
        return BuiltProducts.executable(named: "labelreplay")
            ?? BuiltProducts.directories.last!.appendingPathComponent("labelreplay")
    }

    /// Runs `labelreplay arguments…` in `directory`, feeding `stdin`, and waits for it to exit.
    /// `environment` sets variables on top of this process's environment.
    /// `unsetting` removes variables from it.
    static func run(
        _ arguments: [String], in directory: URL? = nil, stdin: Data? = nil,
        environment: [String: String] = [:], unsetting: [String] = []
    ) async throws -> CLIResult {
        let running = try start(arguments, in: directory, stdin: stdin, environment: environment, unsetting: unsetting)
        return try await running.wait()
    }

    /// Runs `labelreplay arguments…` like ``run(_:in:stdin:)``, but kills it (and fails the test) if it
    /// has not exited within `limit`: for inputs that could make it block.
    static func run(
        _ arguments: [String], stdin: Data? = nil, atMost limit: Duration,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> CLIResult {
        try await start(arguments, stdin: stdin).wait(atMost: limit, sourceLocation: sourceLocation)
    }

    /// Starts `labelreplay arguments…` without waiting (for `--follow`). With `openStdin`, standard
    /// input is a pipe that stays open (the command blocks reading it) until the process is waited for.
    static func start(
        _ arguments: [String], in directory: URL? = nil, stdin: Data? = nil,
        environment: [String: String] = [:], unsetting: [String] = [], openStdin: Bool = false
    ) throws -> RunningCLI {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("labelreplay-io-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let out = scratch.appendingPathComponent("stdout"), err = scratch.appendingPathComponent("stderr")
        let input = scratch.appendingPathComponent("stdin")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        _ = FileManager.default.createFile(atPath: input.path, contents: stdin ?? Data())
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        if !environment.isEmpty || !unsetting.isEmpty {
            var merged = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            for name in unsetting { merged[name] = nil }
            process.environment = merged
        }
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        let pipe = openStdin ? Pipe() : nil
        process.standardInput = try pipe ?? FileHandle(forReadingFrom: input)
        let exited = Exit()
        process.terminationHandler = { process in exited.signal(process.terminationStatus) }
        try process.run()
        return RunningCLI(arguments: arguments, process: process, scratch: scratch, exited: exited, stdinPipe: pipe)
    }
}

/// A started `labelreplay` process.
final class RunningCLI: @unchecked Sendable {
    let arguments: [String]
    let process: Process
    let scratch: URL
    fileprivate let exited: Exit
    /// Standard input, when it is a pipe kept open.
    let stdinPipe: Pipe?

    fileprivate init(arguments: [String], process: Process, scratch: URL, exited: Exit, stdinPipe: Pipe?) {
        self.arguments = arguments
        self.process = process
        self.scratch = scratch
        self.exited = exited
        self.stdinPipe = stdinPipe
    }

    /// What the process has written to stderr so far.
    var stderrSoFar: String {
        (try? String(contentsOf: scratch.appendingPathComponent("stderr"), encoding: .utf8)) ?? ""
    }

    /// Waits until stderr contains `text`, or `condition` holds (or the process exits, or about 30 s
    /// pass — a hang guard, not a timing assertion).
    func waitFor(stderrContaining text: String? = nil, or condition: @Sendable () -> Bool = { false }) async throws -> Bool {
        for _ in 0..<600 {
            if let text, stderrSoFar.contains(text) { return true }
            if condition() { return true }
            if !process.isRunning { return false }
            try await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    /// Sends `signal` (e.g. SIGINT, what Ctrl-C sends) to the process.
    func send(_ signal: Int32) { kill(process.processIdentifier, signal) }

    /// What the process has written to stdout so far.
    var stdoutSoFar: String {
        (try? String(contentsOf: scratch.appendingPathComponent("stdout"), encoding: .utf8)) ?? ""
    }

    /// Waits until stdout contains `text` (or the process exits, or about 30 s pass — a hang guard, not a timing assertion).
    func waitForOutput(containing text: String) async throws -> Bool {
        for _ in 0..<600 {
            if stdoutSoFar.contains(text) { return true }
            if !process.isRunning { return stdoutSoFar.contains(text) }
            try await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    /// Sends SIGTERM (as Ctrl-C would end it) and waits; a process that outlives it by
    /// about 10 s is killed, so a broken build fails the test instead of hanging the run.
    func interrupt() async throws -> CLIResult {
        if process.isRunning { process.terminate() }
        for _ in 0..<200 where process.isRunning { try await Task.sleep(for: .milliseconds(50)) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        return try await wait()
    }

    /// Waits at most `limit` for the process to exit; one still running then
    /// is recorded as a failure (it hangs) and killed, so a regression fails the
    /// test instead of hanging the run.
    func wait(atMost limit: Duration, sourceLocation: SourceLocation = #_sourceLocation) async throws -> CLIResult {
        let clock = ContinuousClock()
        let deadline = clock.now + limit
        while process.isRunning && clock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        if process.isRunning {
            Issue.record(
                "labelreplay \(arguments.joined(separator: " ")) still running after \(limit): killed", sourceLocation: sourceLocation)
            kill(process.processIdentifier, SIGKILL)
        }
        return try await wait()
    }

    /// Waits for the process to exit and collects its output.
    func wait() async throws -> CLIResult {
        try? stdinPipe?.fileHandleForWriting.close()
        let status = await exited.value()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let stdout = try String(contentsOf: scratch.appendingPathComponent("stdout"), encoding: .utf8)
        let stderr = try String(contentsOf: scratch.appendingPathComponent("stderr"), encoding: .utf8)
        return CLIResult(arguments: arguments, status: status, stdout: stdout, stderr: stderr)
    }
}

/// A one-shot rendezvous between the termination handler and an awaiting test.
private final class Exit: Sendable {
    private struct State {
        var status: Int32?
        var waiter: CheckedContinuation<Int32, Never>?
    }
    private let state = Locked(State())

    func signal(_ value: Int32) {
        let waiter = state.withLock { s in
            s.status = value
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume(returning: value)
    }

    func value() async -> Int32 {
        await withCheckedContinuation { continuation in
            let status = state.withLock { s in
                if s.status == nil { s.waiter = continuation }
                return s.status
            }
            if let status { continuation.resume(returning: status) }
        }
    }
}
