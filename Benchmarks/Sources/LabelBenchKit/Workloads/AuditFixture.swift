import EventLog

/// The history both sides of the audit-query workloads read
/// (``AuditQueryWorkload``): the same events in a log with its history index
/// (`LOG.index`, built by `HistoryIndexFile.update`) and in a SQLite table
/// with indexes on the label, the actor and the time. Written once, untimed,
/// by the first workload that needs it, and removed when the last of its
/// `users` workloads finishes.
final class AuditFixture {
    let eventCount: Int
    private let seed: UInt64
    private var directory: String?
    /// The workloads that have yet to finish with it.
    private var users: Int
    /// The id of a label with several events (that of the record at the middle of the history).
    private(set) var label = LabelID()
    /// The first timestamp of the history.
    private(set) var startTime: Int64 = 0

    /// A fixture of `eventCount` events of the stream for `seed`, shared by `users` workloads.
    init(eventCount: Int, seed: UInt64, users: Int) {
        self.eventCount = eventCount
        self.seed = seed
        self.users = users
    }

    var logPath: String { "\(directory ?? "")/\(Fixtures.logName)" }
    var databasePath: String { "\(directory ?? "")/\(Fixtures.databaseName)" }

    /// Writes both stores, the history index and SQLite's indexes, the first time.
    func acquire(_ context: BenchContext) throws {
        guard directory == nil else { return }
        let directory = try context.scratch.freshDirectory("audit-\(eventCount)")
        self.directory = directory
        context.progress("    writing \(eventCount.grouped) events to both stores, the history index and SQLite's indexes (untimed)…")
        try Fixtures.writeBoth(count: eventCount, seed: seed, logPath: logPath, databasePath: databasePath)
        try HistoryIndexFile.update(logPath: logPath)
        let db = try SQLiteEventDatabase.open(path: databasePath, synchronous: .off)
        defer { db.close() }
        try db.execute("CREATE INDEX events_label ON events(label_id)")
        try db.execute("CREATE INDEX events_actor ON events(actor)")
        try db.execute("CREATE INDEX events_time ON events(time)")
        try db.execute("ANALYZE")
        try SQLiteEventDatabase.checkpoint(db)
        let reader = try LogReader(path: logPath)
        startTime = try reader.next()?.timestamp.millisecondsSince1970 ?? 0
        let middle = try reader.record(atSeq: UInt64(eventCount / 2), using: nil)
        label = middle?.event.labelID ?? LabelID()
        ScratchSpace.flushFileSystems()
    }

    /// Called by each user when it finishes; removes both stores after the last.
    func release(_ context: BenchContext) {
        users -= 1
        guard users == 0, let directory else { return }
        context.scratch.remove(directory)
        self.directory = nil
    }
}
