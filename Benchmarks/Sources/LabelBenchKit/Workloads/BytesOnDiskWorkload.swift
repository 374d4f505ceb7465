import EventLog

/// Workload 5: bytes on disk per event for the realistic stream (titles of
/// 8–40 characters, some non-ASCII; ~40% renamed, 30% toggled, 15% added,
/// 10% moved, 5% removed; actors on 30% of events, notes on 3%).
///
/// Ours: the log file's size (64-byte header included) after writing every
/// event in batches of 1,000. SQLite: after inserting every event in
/// transactions of 1,000 (default 4 KiB pages) and a
/// `wal_checkpoint(TRUNCATE)`, the database file plus its WAL (the `-shm`
/// index holds no data and is not counted). Deterministic: one measurement
/// per side. Metric: bytes per event (lower is better).
final class BytesOnDiskWorkload: Workload {
    let id: String
    let metric = Metric.bytesPerEvent
    let target = Target(maxRatio: 0.6, metric: .bytesPerEvent)
    let eventCount: Int
    let repetitions: Int? = 1
    private let seed: UInt64
    private var batches: [[LogEntry]] = []
    /// The log format ours is written in (2, or 4: batch frames).
    private let format: UInt16

    /// 1,000,000 events (quick: 100,000), our log in `format`.
    init(settings: BenchSettings, format: UInt16 = LogFormat.currentVersion) {
        eventCount = settings.size(full: 1_000_000, quick: 100_000)
        seed = settings.seed
        self.format = format
        id = format == LogFormat.currentVersion ? "bytes-per-event" : "bytes-per-event-format\(format)"
    }

    var title: String {
        "bytes on disk, \(eventCount.grouped) realistic events" + (format == LogFormat.currentVersion ? "" : ", log format \(format)")
    }

    func prepare(_ context: BenchContext) throws {
        batches = EventStream.batches(count: eventCount, batchSize: 1_000, seed: seed)
    }

    func measure(_ side: Side, repetition: Int, context: BenchContext) throws -> Double {
        let directory = try context.scratch.freshDirectory("\(id)-\(side.rawValue)")
        defer { context.scratch.remove(directory) }
        let bytes: Int64
        switch side {
        case .ours:
            let log = try Fixtures.createLog(in: directory, durability: .noSync, format: format)
            for batch in batches { try log.append(batch) }
            try log.sync()
            let logical = log.byteLength
            // A clean close trims the preallocated space; measure the file as it then rests on disk.
            log.close()
            bytes = ScratchSpace.fileSize(log.path)
            guard bytes == logical else { throw BenchError("\(id): the log file is \(bytes) bytes, the writer says \(logical)") }
        case .sqlite:
            let db = try Fixtures.createDatabase(in: directory, synchronous: .normal)
            defer { db.close() }
            let writer = try SQLiteEventWriter(connection: db)
            for batch in batches { try writer.insertTransaction(batch) }
            try SQLiteEventDatabase.checkpoint(db)
            guard try SQLiteEventDatabase.rowCount(db) == eventCount else { throw BenchError("\(id): SQLite lost rows") }
            bytes = SQLiteEventDatabase.bytesOnDisk(path: db.path)
        }
        return Double(bytes) / Double(eventCount)
    }

    func finish(_ context: BenchContext) { batches = [] }
}
