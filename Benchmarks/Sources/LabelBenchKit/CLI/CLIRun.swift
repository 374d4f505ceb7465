import Foundation

/// What the `cli-*` workloads of one history share: the `labelreplay` binary,
/// the ``HistoryFixture``, a directory for outputs, and the history exported
/// as JSON Lines (the `import` workloads' input, written once on first use).
final class CLIRun {
    let binary: LabelReplayBinary
    let fixture: HistoryFixture
    private var outputs: String?
    private var exported: String?
    /// Peak resident bytes of each `import` measured so far, in order (shared with `cli-import-memory`).
    var importPeaks: [Int] = []
    /// The probe's own peak (see ``RusageProbe/Report/floorBytes``) at the last import.
    var importFloor = 0

    init(binary: LabelReplayBinary, fixture: HistoryFixture) {
        self.binary = binary
        self.fixture = fixture
    }

    /// The environment of every command: the machine's, with UTC times and no colors.
    static let environment: [String: String] = {
        var environment = ProcessInfo.processInfo.environment
        environment["TZ"] = "UTC"
        environment["NO_COLOR"] = "1"
        environment["LABELREPLAY_ACTOR"] = ""
        return environment
    }()

    /// A file in the outputs directory (made on first use).
    func outputPath(_ name: String, context: BenchContext) throws -> String {
        if outputs == nil { outputs = try context.scratch.freshDirectory("cli-outputs") }
        return "\(outputs ?? "")/\(name)"
    }

    /// Runs `labelreplay arguments` with its output to `outputPath`; throws unless it exits with 0.
    func run(_ arguments: [String], outputPath: String, context: BenchContext) throws -> ChildProcess.Outcome {
        let errorPath = outputPath + ".err"
        let outcome = try ChildProcess.run(
            try binary.path(context), arguments, outputPath: outputPath, errorPath: errorPath, environment: Self.environment)
        try Self.requireSuccess(outcome, arguments, errorPath: errorPath)
        return outcome
    }

    /// Compares `side`'s output of workload `id` with the other side's, once
    /// both ran (throws unless they are the same bytes); returns the output's
    /// size and whether it was compared.
    func compareWithOtherSide(
        _ output: String, id: String, side: Side, arguments: [String], context: BenchContext
    ) throws -> (bytes: Int, compared: Bool) {
        let other = try outputPath("\(id)-\(side == .ours ? Side.sqlite.rawValue : Side.ours.rawValue).out", context: context)
        guard FileManager.default.fileExists(atPath: other) else { return (Int(ScratchSpace.fileSize(output)), false) }
        let bytes = try OutputComparison.requireEqual(output, other, what: "\(id) (labelreplay \(arguments.joined(separator: " ")))")
        return (bytes, true)
    }

    /// Throws unless `outcome` is a 0 exit, with the command's standard error.
    static func requireSuccess(_ outcome: ChildProcess.Outcome, _ arguments: [String], errorPath: String) throws {
        guard outcome.status != 0 else { return }
        let errors = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
        throw BenchError("labelreplay \(arguments.joined(separator: " ")) exited with status \(outcome.status): \(errors.prefix(2_000))")
    }

    /// The history as JSON Lines (`labelreplay export`), written the first time (untimed).
    func exportedHistory(_ context: BenchContext) throws -> String {
        if let exported { return exported }
        try fixture.acquire(context)
        let path = try outputPath("history.jsonl", context: context)
        context.progress("    exporting the history to JSON Lines, the import's input (untimed)…")
        _ = try run(["export", fixture.logPath], outputPath: path, context: context)
        exported = path
        return path
    }
}
