import EventLog
import Foundation

/// Workloads `index-update-<size>`: what keeping the history index current
/// costs on a long history (``HistoryFixture``: 1,000,000 events; quick:
/// 200,000; `--big` adds 10,000,000), after 65,536 more records — about
/// what a store appends between two automatic snapshots (16,384 after the
/// quick run's 200,000).
///
/// Prepared once (untimed): a copy of the fixture's log with its index. Each
/// measurement appends 65,536 events of another stream (untimed), then times
/// `HistoryIndexFile.update`. Ours: the update as it runs by default, which
/// appends one segment of the new records to `LOG.index-delta`. The peer:
/// `merge: true`, which reads the whole index and writes a new `LOG.index`
/// with the new records — what every update cost before the index had
/// segments. Both must cover the whole log. Metric: ms per update, the
/// median. Target: ≤ 300 ms (issue 27).
final class IndexUpdateWorkload: Workload {
    /// Records appended before each update: 65,536 (16,384 on the quick run's shorter history, below a quarter of it).
    var appended: Int { eventCount >= 1_000_000 ? 65_536 : 16_384 }

    let metric = Metric.milliseconds
    let repetitions: Int?
    private let fixture: HistoryFixture
    private var directory: String?
    private var stream = EventStream(seed: 0x1de_a5e6, liveLimit: HistoryFixture.liveLimit)
    private var samples: [Side: [Double]] = [:]
    private var sizes: (base: Int64, delta: Int64, segments: Int) = (0, 0, 0)

    init(fixture: HistoryFixture, repetitions: Int?) {
        self.fixture = fixture
        self.repetitions = repetitions
    }

    var eventCount: Int { fixture.eventCount }
    var id: String { "index-update-\(HistoryFixture.sizeName(eventCount))" }
    var title: String { "index update after \(appended.grouped) records, \(eventCount.grouped) events" }
    var peer: String? { "rewrite the index" }
    var target: Target { Target(maxOurs: 300, metric: .milliseconds) }
    var logPath: String { "\(directory ?? "")/\(Fixtures.logName)" }

    var notes: [String] {
        [
            "ours appends a segment to LOG.index-delta; the peer merges the index into a new LOG.index (the cost of every update before segments); after ours' last update: LOG.index \(Int(sizes.base).grouped) bytes, LOG.index-delta \(Int(sizes.delta).grouped) bytes in \(sizes.segments) segments; worst of \(samples[.ours]?.count ?? 0): ours \(Metric.milliseconds.format(samples[.ours]?.max() ?? 0)), rewrite \(Metric.milliseconds.format(samples[.sqlite]?.max() ?? 0))"
        ]
    }

    func prepare(_ context: BenchContext) throws {
        try fixture.acquire(context)
        let directory = try context.scratch.freshDirectory("index-update-\(HistoryFixture.sizeName(eventCount))")
        self.directory = directory
        context.progress("    copying the \(eventCount.grouped)-event history and its index (untimed)…")
        for (from, to) in [(fixture.logPath, logPath), (HistoryIndexFile.path(for: fixture.logPath), HistoryIndexFile.path(for: logPath))] {
            try FileManager.default.copyItem(atPath: from, toPath: to)
        }
        _ = try HistoryIndexFile.update(logPath: logPath, merge: true)
    }

    func finish(_ context: BenchContext) {
        if let directory { context.scratch.remove(directory) }
        directory = nil
        fixture.release(context)
    }

    func measure(_ side: Side, repetition: Int, context: BenchContext) throws -> Double {
        let last = try Fixtures.appendLog(count: appended, stream: &stream, path: logPath)
        ScratchSpace.flushFileSystems()
        var update: HistoryIndexFile.Update?
        let elapsed = try Statistics.time { update = try HistoryIndexFile.update(logPath: logPath, merge: side == .sqlite) }
        guard let update, update.index.coveredSeq == last, update.added == UInt64(appended) else {
            throw BenchError("\(id): the index does not cover the log's \(last) records after the update")
        }
        let expected: HistoryIndexFile.Update.Change = side == .ours ? .appendedSegment : .merged
        guard update.change == expected else { throw BenchError("\(id): the update \(update.change), not \(expected)") }
        if side == .ours {
            sizes = (
                ScratchSpace.fileSize(HistoryIndexFile.path(for: logPath)), ScratchSpace.fileSize(HistoryIndexFile.deltaPath(for: logPath)),
                update.index.segmentCount
            )
        }
        let milliseconds = Statistics.seconds(elapsed) * 1e3
        samples[side, default: []].append(milliseconds)
        return milliseconds
    }
}
