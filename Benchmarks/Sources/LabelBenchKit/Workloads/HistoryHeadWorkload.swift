import EventLog
import Foundation

/// Workload `history-head-<size>`: checking a log against a kept head, what
/// `labelreplay verify LOG --head SEQ:HEX` adds to `verify` (docs/AUDIT.md).
///
/// Ours: `HistoryProver.verify(_:extends:)` over the whole log (open a
/// reader, read and check every frame, hash its payload into the tree on
/// every core, compare the head). Peer: the read with a decode, without the hash
/// (`LogReader.forEachView`), so the ratio is what hashing costs. The log
/// is freshly written, so both read from the page cache. Metric: MB/s of
/// log file; target ≥ 500 MB/s (issue "tamper-evident history").
final class HistoryHeadWorkload: Workload {
    let metric = Metric.megabytesPerSecond
    let target = Target(minOurs: 500, metric: .megabytesPerSecond)
    let eventCount: Int
    let repetitions: Int?
    let peer: String? = "read + decode only"
    private let seed: UInt64
    private var path = ""
    private var head: HistoryHead?
    private var bytes = 0

    init(eventCount: Int, settings: BenchSettings, repetitions: Int? = nil) {
        self.eventCount = eventCount
        self.seed = settings.seed
        self.repetitions = settings.repetitionsOverride ?? repetitions
    }

    var id: String { "history-head-\(eventCount % 1_000_000 == 0 ? "\(eventCount / 1_000_000)m" : "\(eventCount / 1_000)k")" }
    var title: String { "verify --head (hash every record), \(eventCount.grouped) events" }

    func prepare(_ context: BenchContext) throws {
        let directory = try context.scratch.freshDirectory(id)
        path = directory + "/" + Fixtures.logName
        context.progress("    writing \(eventCount.grouped) events (untimed)…")
        try Fixtures.writeLog(count: eventCount, stream: EventStream(seed: seed), path: path)
        bytes = Int(try LogReader(path: path).fileSize())
        head = try HistoryProver.head(of: HistoryRecords(path: path))
    }

    func measure(_ side: Side, repetition: Int, context: BenchContext) throws -> Double {
        guard let head else { throw BenchError("\(id): not prepared") }
        var count = 0
        let elapsed: Duration
        switch side {
        case .ours:
            var now: HistoryHead?
            elapsed = try Statistics.time { now = try HistoryProver.verify(HistoryRecords(path: path), extends: head) }
            guard now == head else { throw BenchError("\(id): the log's head changed") }
            count = Int(head.seq)
        case .sqlite:
            elapsed = try Statistics.time { count = try LogReader(path: path).forEachView { _ in } }
        }
        guard count == eventCount else { throw BenchError("\(id): \(count) records, expected \(eventCount)") }
        return Double(bytes) / 1e6 / Statistics.seconds(elapsed)
    }

    func finish(_ context: BenchContext) { try? FileManager.default.removeItem(atPath: path) }
}
