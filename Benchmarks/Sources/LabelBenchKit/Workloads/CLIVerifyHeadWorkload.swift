import EventLog
import Foundation

/// Workload `cli-verify-head-<size>` (and `cli-verify-head-quick-<size>`):
/// `labelreplay verify LOG --head SEQ:HEX` as a user runs it (issue 43, item
/// 11): the release binary as a child process, timed from the spawn until it
/// is reaped, on a freshly written log (page cache).
///
/// - Full: the command checks every frame and folds every event (what
///   `verify` is), and hashes every payload into the history tree in the same
///   pass. Peer: `labelreplay verify LOG` without `--head`, so the ratio is
///   what the head check adds end to end. No target: the fold bounds it
///   (about 3 M events a second on one core, whatever the hashing does).
/// - Quick (`--quick`): every frame checked (framing, chained checksum, seq)
///   and hashed, nothing decoded or folded. Peer: the full command, so the
///   ratio is what leaving out the fold saves. Target ≥ 500 MB/s.
///
/// Metric: MB/s of log file.
final class CLIVerifyHeadWorkload: Workload {
    let metric = Metric.megabytesPerSecond
    let target: Target
    let eventCount: Int
    let repetitions: Int?
    let peer: String?
    /// Whether ours is `verify --quick --head` (else `verify --head`).
    let quick: Bool
    private let seed: UInt64
    private let binary: LabelReplayBinary
    private var path = ""
    private var head = ""
    private var bytes = 0

    init(eventCount: Int, binary: LabelReplayBinary, settings: BenchSettings, repetitions: Int? = nil, quick: Bool = false) {
        self.eventCount = eventCount
        self.quick = quick
        self.target =
            quick
            ? Target(minOurs: 500, metric: .megabytesPerSecond) : Target(metric: .megabytesPerSecond, text: "none: the fold bounds it")
        self.peer = quick ? "labelreplay verify --head (the full check)" : "labelreplay verify (no --head)"
        self.binary = binary
        self.seed = settings.seed
        self.repetitions = settings.repetitionsOverride ?? repetitions
    }

    var id: String {
        "cli-verify-head-\(quick ? "quick-" : "")\(eventCount % 1_000_000 == 0 ? "\(eventCount / 1_000_000)m" : "\(eventCount / 1_000)k")"
    }
    var title: String { "labelreplay verify \(quick ? "--quick " : "")--head (CLI process), \(eventCount.grouped) events" }

    func prepare(_ context: BenchContext) throws {
        _ = try binary.path(context)
        let directory = try context.scratch.freshDirectory(id)
        path = directory + "/" + Fixtures.logName
        context.progress("    writing \(eventCount.grouped) events (untimed)…")
        try Fixtures.writeLog(count: eventCount, stream: EventStream(seed: seed), path: path)
        bytes = Int(try LogReader(path: path).fileSize())
        head = try HistoryProver.head(of: HistoryRecords(path: path)).description
    }

    func measure(_ side: Side, repetition: Int, context: BenchContext) throws -> Double {
        let arguments =
            switch (side, quick) {
            case (.ours, true): ["verify", path, "--quick", "--head", head]
            case (.ours, false), (_, true): ["verify", path, "--head", head]
            case (_, false): ["verify", path]
            }
        let output = path + ".\(side.rawValue).out"
        let outcome = try ChildProcess.run(
            try binary.path(context), arguments, outputPath: output, errorPath: output + ".err", environment: CLIRun.environment)
        try CLIRun.requireSuccess(outcome, arguments, errorPath: output + ".err")
        return Double(bytes) / 1e6 / Statistics.seconds(outcome.elapsed)
    }

    func finish(_ context: BenchContext) { try? FileManager.default.removeItem(atPath: path) }
}
