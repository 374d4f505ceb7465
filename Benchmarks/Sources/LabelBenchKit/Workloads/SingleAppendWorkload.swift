import EventLog

/// Workload 1: durable single appends, one sync each.
///
/// Ours: `Durability.syncEachAppend`, one `append(_:)` per event (one
/// `pwrite` + one `fdatasync`). SQLite: WAL, `synchronous=FULL`, one
/// autocommit `INSERT` per event (one transaction, one WAL sync each).
/// Timed: the appends only (not opening or closing). Metric: events/s.
final class SingleAppendWorkload: Workload {
    let id = "single-append"
    let metric = Metric.eventsPerSecond
    let target = Target(minRatio: 1.2, metric: .eventsPerSecond)
    let eventCount: Int
    private let seed: UInt64
    private var entries: [LogEntry] = []

    /// 5,000 events (quick: 500).
    init(settings: BenchSettings) {
        eventCount = settings.size(full: 5_000, quick: 500)
        seed = settings.seed
    }

    var title: String { "durable single appends, \(eventCount.grouped) events" }

    func prepare(_ context: BenchContext) throws {
        entries = EventStream.entries(count: eventCount, seed: seed)
    }

    func measure(_ side: Side, repetition: Int, context: BenchContext) throws -> Double {
        let directory = try context.scratch.freshDirectory("\(id)-\(side.rawValue)")
        defer { context.scratch.remove(directory) }
        let entries = self.entries
        switch side {
        case .ours:
            let log = try Fixtures.createLog(in: directory, durability: .syncEachAppend)
            defer { log.close() }
            ScratchSpace.flushFileSystems()
            let elapsed = try Statistics.time {
                for entry in entries { try log.append(entry) }
            }
            try expect(Int(log.lastSeq), side)
            return Statistics.rate(events: entries.count, in: elapsed)
        case .sqlite:
            let db = try Fixtures.createDatabase(in: directory, synchronous: .full)
            defer { db.close() }
            let writer = try SQLiteEventWriter(connection: db)
            ScratchSpace.flushFileSystems()
            let elapsed = try Statistics.time {
                for entry in entries { try writer.insert(entry) }
            }
            try expect(try SQLiteEventDatabase.rowCount(db), side)
            return Statistics.rate(events: entries.count, in: elapsed)
        }
    }

    func finish(_ context: BenchContext) { entries = [] }

    private func expect(_ stored: Int, _ side: Side) throws {
        guard stored == eventCount else { throw BenchError("\(id): \(side.rawValue) stored \(stored) of \(eventCount) events") }
    }
}
