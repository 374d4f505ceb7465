import EventLog

/// Workload 3: 8 writer threads, each event acknowledged durable before the
/// thread writes its next one.
///
/// Ours: one `LogWriter` with `Durability.groupCommit` shared by 8 threads,
/// each appending single events (appenders that arrive during a sync share
/// the next one). SQLite: WAL, `synchronous=FULL`, 8 threads with a
/// connection each (`busy_timeout` 60 s), `BEGIN IMMEDIATE; INSERT; COMMIT`
/// per event. Timed: from the moment all threads are released until the
/// last one is done (opening connections is untimed). Metric: events/s.
///
/// Each thread writes its own slice of the stream, so the stored order
/// interleaves the slices: this log is a write benchmark, not a foldable history.
final class ConcurrentWritersWorkload: Workload {
    /// Writer threads.
    static let threads = 8
    /// How long a SQLite writer waits for the lock before `SQLITE_BUSY`.
    static let busyTimeoutMilliseconds: Int32 = 60_000

    let id = "concurrent-writers"
    let metric = Metric.eventsPerSecond
    let target = Target(minRatio: 5, metric: .eventsPerSecond)
    let eventCount: Int
    private let seed: UInt64
    private var slices: [[LogEntry]] = []

    /// 4,000 events, 500 per thread (quick: 800, 100 per thread).
    init(settings: BenchSettings) {
        eventCount = settings.size(full: 4_000, quick: 800)
        seed = settings.seed
    }

    var title: String { "\(Self.threads) durable writers, \(eventCount.grouped) single events" }

    func prepare(_ context: BenchContext) throws {
        let entries = EventStream.entries(count: eventCount, seed: seed)
        let perThread = eventCount / Self.threads
        slices = (0..<Self.threads).map { t in
            let end = t == Self.threads - 1 ? entries.count : (t + 1) * perThread
            return Array(entries[(t * perThread)..<end])
        }
    }

    func measure(_ side: Side, repetition: Int, context: BenchContext) throws -> Double {
        let directory = try context.scratch.freshDirectory("\(id)-\(side.rawValue)")
        defer { context.scratch.remove(directory) }
        let slices = self.slices
        let stored: Int
        let elapsed: Duration
        switch side {
        case .ours:
            let log = try Fixtures.createLog(in: directory, durability: .groupCommit)
            defer { log.close() }
            ScratchSpace.flushFileSystems()
            elapsed = try ThreadGang.run(
                threads: Self.threads,
                setup: { _ in () },
                work: { thread, _ in
                    for entry in slices[thread] { try log.append(entry) }
                },
                teardown: { _, _ in })
            stored = Int(log.lastSeq)
        case .sqlite:
            let path = "\(directory)/\(Fixtures.databaseName)"
            let db = try SQLiteEventDatabase.open(path: path, synchronous: .full)  // creates the table
            defer { db.close() }
            ScratchSpace.flushFileSystems()
            elapsed = try ThreadGang.run(
                threads: Self.threads,
                setup: { _ in
                    let connection = try SQLiteEventDatabase.open(
                        path: path, synchronous: .full,
                        busyTimeout: Self.busyTimeoutMilliseconds)
                    return try SQLiteEventWriter(connection: connection)
                },
                work: { thread, writer in
                    for entry in slices[thread] { try writer.insertTransaction(CollectionOfOne(entry), immediate: true) }
                },
                teardown: { _, writer in writer.connection.close() })
            stored = try SQLiteEventDatabase.rowCount(db)
        }
        guard stored == eventCount else { throw BenchError("\(id): \(side.rawValue) stored \(stored) of \(eventCount) events") }
        return Statistics.rate(events: eventCount, in: elapsed)
    }

    func finish(_ context: BenchContext) { slices = [] }
}
