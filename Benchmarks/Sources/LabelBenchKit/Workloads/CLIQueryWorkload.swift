import EventLog
import Foundation

/// Workloads `cli-show`, `cli-show-current`, `cli-diff`, `cli-trace`, `cli-log-label`,
/// `cli-log-actor`: the release `labelreplay` binary run as a child process
/// (``ChildProcess``: `posix_spawn` + `wait4`) on the ``HistoryFixture``,
/// output to a scratch file, timed from the spawn until it is reaped.
///
/// Ours: the command with the history files (`LOG.index`,
/// `LOG.checkpoints`); the peer: the same command with both moved away (a
/// scan of the log from seq 1). The two outputs must be the same bytes, or
/// the workload fails. Metric: ms per command (process start, reading,
/// folding and printing). Targets: `log` ≤ 50 ms and at least as fast as the
/// scan; `show`, `diff`, `trace` at least as fast as the scan (their
/// ≤ 100 ms + output bound is the `state-at-*` rows': the output's cost is
/// not separated here; its size is in the notes).
final class CLIQueryWorkload: Workload {
    /// The command run.
    enum Command: String, CaseIterable {
        case show, diff, trace
        case showCurrent = "show-current"
        case logLabel = "log-label"
        case logActor = "log-actor"
    }

    let metric = Metric.milliseconds
    let command: Command
    let repetitions: Int?
    private let run: CLIRun
    private var outputBytes = 0
    private var compared = false

    init(command: Command, run: CLIRun, repetitions: Int?) {
        self.command = command
        self.run = run
        self.repetitions = repetitions
    }

    private var fixture: HistoryFixture { run.fixture }
    var eventCount: Int { fixture.eventCount }
    var id: String { "cli-\(command.rawValue)" + (eventCount >= 10_000_000 ? "-10m" : "") }

    private var seqs: (show: Int, from: Int, to: Int) { (eventCount / 2, eventCount * 2 / 5, eventCount * 9 / 10) }
    private var day: (since: EventTimestamp, until: EventTimestamp) {
        (EventTimestamp(millisecondsSince1970: fixture.middleTime), EventTimestamp(millisecondsSince1970: fixture.middleTime + 86_400_000))
    }

    var title: String {
        let n = eventCount.grouped
        switch command {
        case .show: return "labelreplay show --at \(seqs.show.grouped) --json, \(n) events"
        case .showCurrent: return "labelreplay show --json (the current list), \(n) events"
        case .diff: return "labelreplay diff \(seqs.from.grouped) \(seqs.to.grouped) --json, \(n) events"
        case .trace: return "labelreplay trace --label PREFIX --json, \(n) events"
        case .logLabel: return "labelreplay log --label PREFIX, \(n) events"
        case .logActor: return "labelreplay log --actor A, 1 day, \(n) events"
        }
    }

    var peer: String? { "scan (no index)" }

    var target: Target {
        switch command {
        case .logLabel, .logActor: Target(maxRatio: 1, maxOurs: 50, metric: .milliseconds, text: "≤ 50 ms & ≥ 1×")
        case .show, .showCurrent, .diff, .trace: Target(maxRatio: 1, metric: .milliseconds, text: "≥ 1× (≤ 100 ms: state-at)")
        }
    }

    var notes: [String] {
        [
            "\(outputBytes.grouped) bytes of output"
                + (compared ? ", the same bytes with and without the history files" : "")
        ]
    }

    /// The command line (without the program name).
    var arguments: [String] {
        let log = fixture.logPath
        // An id prefix, as users type it: resolving it is part of the command's work.
        let label = String(fixture.label.description.prefix(8))
        switch command {
        case .show: return ["show", log, "--at", String(seqs.show), "--json"]
        case .showCurrent: return ["show", log, "--json"]
        case .diff: return ["diff", log, String(seqs.from), String(seqs.to), "--json"]
        case .trace: return ["trace", log, "--label", label, "--json"]
        case .logLabel: return ["log", log, "--label", label]
        case .logActor: return ["log", log, "--actor", "alice", "--since", day.since.iso8601, "--until", day.until.iso8601]
        }
    }

    func prepare(_ context: BenchContext) throws {
        _ = try run.binary.path(context)  // first: a missing binary fails before the history is written
        try fixture.acquire(context)
    }

    func finish(_ context: BenchContext) { fixture.release(context) }

    func measure(_ side: Side, repetition: Int, context: BenchContext) throws -> Double {
        let output = try run.outputPath("\(id)-\(side.rawValue).out", context: context)
        let arguments = self.arguments
        ScratchSpace.flushFileSystems()
        let outcome =
            side == .ours
            ? try run.run(arguments, outputPath: output, context: context)
            : try fixture.withoutHistoryFiles { try run.run(arguments, outputPath: output, context: context) }
        let comparison = try run.compareWithOtherSide(output, id: id, side: side, arguments: arguments, context: context)
        outputBytes = comparison.bytes
        compared = compared || comparison.compared
        return Statistics.seconds(outcome.elapsed) * 1e3
    }
}
