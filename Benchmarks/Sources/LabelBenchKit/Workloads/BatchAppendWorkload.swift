import EventLog

/// Workload 2: durable batch appends, 1,000 events per call, one sync per batch.
///
/// Ours: `Durability.syncEachAppend`, `append(_ entries:)` with 1,000
/// entries (one `pwrite` + one `fdatasync` per batch). SQLite: WAL,
/// `synchronous=FULL`, one transaction of 1,000 `INSERT`s per batch.
/// Timed: the appends only. Metric: events/s.
final class BatchAppendWorkload: Workload {
    /// Events per append call / per transaction.
    static let batchSize = 1_000

    let id = "batch-append"
    let metric = Metric.eventsPerSecond
    let target = Target(minRatio: 3, minOurs: 5_000_000, metric: .eventsPerSecond)
    let eventCount: Int
    private let seed: UInt64
    private var batches: [[LogEntry]] = []

    /// 1,000,000 events (quick: 100,000).
    init(settings: BenchSettings) {
        eventCount = settings.size(full: 1_000_000, quick: 100_000)
        seed = settings.seed
    }

    var title: String { "batch appends, \(eventCount.grouped) events in \(Self.batchSize.grouped)s" }

    func prepare(_ context: BenchContext) throws {
        batches = EventStream.batches(count: eventCount, batchSize: Self.batchSize, seed: seed)
    }

    func measure(_ side: Side, repetition: Int, context: BenchContext) throws -> Double {
        let directory = try context.scratch.freshDirectory("\(id)-\(side.rawValue)")
        defer { context.scratch.remove(directory) }
        let batches = self.batches
        let stored: Int
        let elapsed: Duration
        switch side {
        case .ours:
            let log = try Fixtures.createLog(in: directory, durability: .syncEachAppend)
            defer { log.close() }
            ScratchSpace.flushFileSystems()
            elapsed = try Statistics.time {
                for batch in batches { try log.append(batch) }
            }
            stored = Int(log.lastSeq)
        case .sqlite:
            let db = try Fixtures.createDatabase(in: directory, synchronous: .full)
            defer { db.close() }
            let writer = try SQLiteEventWriter(connection: db)
            ScratchSpace.flushFileSystems()
            elapsed = try Statistics.time {
                for batch in batches { try writer.insertTransaction(batch) }
            }
            stored = try SQLiteEventDatabase.rowCount(db)
        }
        guard stored == eventCount else { throw BenchError("\(id): \(side.rawValue) stored \(stored) of \(eventCount) events") }
        return Statistics.rate(events: eventCount, in: elapsed)
    }

    func finish(_ context: BenchContext) { batches = [] }
}
