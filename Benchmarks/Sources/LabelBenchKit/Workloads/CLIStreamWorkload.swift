import EventLog
import Foundation

/// Workloads `cli-stats`, `cli-export`, `cli-import` and
/// `cli-import-memory`: whole-history commands of the release `labelreplay`
/// on the ``HistoryFixture``, as child processes, no peer (absolute targets).
///
/// - `cli-stats`: `stats LOG` (a replay of the whole log); ms, reported.
/// - `cli-export`: `export LOG` to a file; lines/s, target ≥ 1 M lines/s.
/// - `cli-import`: `import NEW.labellog history.jsonl` into a new log (the
///   input is the history's export, written once, untimed); lines/s, target
///   ≥ 500 k lines/s. Run through ``RusageProbe`` so that the child's peak
///   resident set is its own; the imported log must hold every record.
/// - `cli-import-memory`: the peak resident set of those imports (the same
///   runs, not new ones, when `cli-import` ran first); MB, target ≤ 100 MB.
final class CLIStreamWorkload: Workload {
    /// The command run.
    enum Command: String, CaseIterable {
        case stats, export, `import`
        case importMemory = "import-memory"
    }

    let command: Command
    let repetitions: Int?
    private let run: CLIRun
    private var outputBytes = 0

    init(command: Command, run: CLIRun, repetitions: Int?) {
        self.command = command
        self.run = run
        self.repetitions = repetitions
    }

    private var fixture: HistoryFixture { run.fixture }
    var eventCount: Int { fixture.eventCount }
    var id: String { "cli-\(command.rawValue)" + (eventCount >= 10_000_000 ? "-10m" : "") }
    var peer: String? { nil }

    var metric: Metric {
        switch command {
        case .stats: .milliseconds
        case .export, .import: .linesPerSecond
        case .importMemory: .megabytes
        }
    }

    var title: String {
        let n = eventCount.grouped
        switch command {
        case .stats: return "labelreplay stats, \(n) events"
        case .export: return "labelreplay export, \(n) lines"
        case .import: return "labelreplay import into a new log, \(n) lines"
        case .importMemory: return "labelreplay import, peak resident, \(n) lines"
        }
    }

    var target: Target {
        switch command {
        case .stats: Target(metric: .milliseconds, text: "— (reported)")
        case .export: Target(minOurs: 1_000_000, metric: .linesPerSecond)
        case .import: Target(minOurs: 500_000, metric: .linesPerSecond)
        case .importMemory: Target(maxOurs: 100, metric: .megabytes, text: "≤ 100 MB")
        }
    }

    var notes: [String] {
        switch command {
        case .stats, .export: ["\(outputBytes.grouped) bytes of output"]
        case .import:
            ["\(outputBytes.grouped) bytes of JSON Lines in; peak resident of each run in cli-import-memory"]
        case .importMemory:
            [
                "ru_maxrss of each import (through `labelbench --rusage-probe`, whose own peak, \(String(format: "%.1f", Double(run.importFloor) / 1e6)) MB, is the lowest it can read); \(fixture.liveLabels.grouped) labels live at the end"
            ]
        }
    }

    func prepare(_ context: BenchContext) throws {
        _ = try run.binary.path(context)  // first: a missing binary fails before the history is written
        try fixture.acquire(context)
        if command == .import || command == .importMemory { _ = try run.exportedHistory(context) }
    }

    func finish(_ context: BenchContext) { fixture.release(context) }

    func measure(_ side: Side, repetition: Int, context: BenchContext) throws -> Double {
        switch command {
        case .stats, .export:
            let output = try run.outputPath("\(id).out", context: context)
            ScratchSpace.flushFileSystems()
            let outcome = try run.run([command.rawValue, fixture.logPath], outputPath: output, context: context)
            outputBytes = Int(ScratchSpace.fileSize(output))
            if command == .stats { return Statistics.seconds(outcome.elapsed) * 1e3 }
            let lines = try Self.lineCount(output)
            guard lines == eventCount else { throw BenchError("\(id): exported \(lines) lines, not \(eventCount)") }
            return Statistics.rate(events: lines, in: outcome.elapsed)
        case .import:
            let (elapsed, peak) = try importOnce(context)
            run.importPeaks.append(peak)
            return Statistics.rate(events: eventCount, in: elapsed)
        case .importMemory:
            let peak = repetition < run.importPeaks.count ? run.importPeaks[repetition] : try importOnce(context).peak
            return Double(peak) / 1e6
        }
    }

    /// One import into a new log through the rusage probe: its time and peak resident bytes.
    private func importOnce(_ context: BenchContext) throws -> (elapsed: Duration, peak: Int) {
        let input = try run.exportedHistory(context)
        outputBytes = Int(ScratchSpace.fileSize(input))
        let directory = try context.scratch.freshDirectory("\(id)-target")
        defer { context.scratch.remove(directory) }
        let log = "\(directory)/imported.labellog"
        let arguments = ["import", log, input]
        ScratchSpace.flushFileSystems()
        let report = try RusageProbe.run(
            try run.binary.path(context), arguments, outputPath: "\(directory)/out", errorPath: "\(directory)/err",
            reportPath: "\(directory)/probe")
        try CLIRun.requireSuccess(report.outcome, arguments, errorPath: "\(directory)/err")
        run.importFloor = report.floorBytes
        let records = try LogReader(path: log).forEachView { _ in }
        guard records == eventCount else { throw BenchError("\(id): the imported log holds \(records) records, not \(eventCount)") }
        return (report.outcome.elapsed, report.outcome.maxResidentBytes)
    }

    /// The number of newline bytes in the file at `path`.
    static func lineCount(_ path: String) throws -> Int {
        let data = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
        return data.withUnsafeBytes { raw in raw.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) } }
    }
}
