#if Postgres
import EventLog
import LabelStorePostgres
import Synchronization

/// `pg-writers-1-list`, `pg-writers-1-list-locked`, `pg-writers-8-lists` and `pg-writers-8-lists-no-notify`:
/// 8 writer threads, each with its own connection, each appending single
/// records, each acknowledged after `COMMIT` before the thread writes its next.
///
/// Ours: each thread its own `PostgresEventLog`, choosing as a `LabelStore`
/// does: while the log prefers the head row lock (adaptive locking, after two
/// conflicts in a row) it appends through `appendExclusively`; else an append
/// names the seq it expects the list to end at and, on `seqConflict` (another
/// writer got there first; the log has read the head again), retries after
/// the new last seq. On one list the head row's lock orders the writers; on 8
/// lists (one per thread) nothing is shared but the server.
///
/// - `pg-writers-1-list`: ours on one list; the peer is the common design with
///   a global `bigserial` and a transaction advisory lock that keeps commits in
///   id order: `BEGIN; SELECT pg_advisory_xact_lock(k); INSERT …; COMMIT`. Target: ≥ 1× (issue 29).
/// - `pg-writers-1-list-locked`: ours on one list in pessimistic mode (each
///   append under the head row lock, `appendExclusively`), against the same peer.
/// - `pg-writers-8-lists`: ours on 8 lists; the peer is ours on one list (the
///   ratio is the scaling). Target: ≥ 4×. `-no-notify`: both with
///   `Options.notify = false` (a notifying commit takes PostgreSQL's global
///   notify lock while queueing the notification; the backend sends it after
///   the append committed, in a transaction that does not wait for a flush).
///
/// Timed: from releasing the threads (connected, at a start line) until the
/// last is done. Every record must land: the lists' last seqs (or the table's
/// row count) must add up. Metric: events/s.
final class PostgresWritersWorkload: Workload {
    /// What the two sides run.
    enum Mode {
        /// Ours on one list vs the advisory-lock table.
        case oneList
        /// Ours on one list in pessimistic mode (each append holding the list's
        /// head row lock: `appendExclusively`) vs the advisory-lock table.
        case oneListLocked
        /// Ours on 8 lists vs ours on one list.
        case eightLists(notify: Bool)
    }

    /// Writer threads.
    static let threads = 8

    let id: String
    let metric = Metric.eventsPerSecond
    let target: Target
    let eventCount: Int
    private let mode: Mode
    private let server: PostgresBenchServer
    private let seed: UInt64
    private var slices: [[LogEntry]] = []
    /// Seq conflicts of ours on one list, and the records appended there, over every repetition.
    private var conflicts = 0
    private var oneListRecords = 0

    /// 2,000 events, 250 per thread (quick: 400, 50 per thread).
    init(server: PostgresBenchServer, settings: BenchSettings, mode: Mode) {
        self.server = server
        self.mode = mode
        eventCount = settings.size(full: 2_000, quick: 400)
        seed = settings.seed
        switch mode {
        case .oneList:
            id = "pg-writers-1-list"
            target = Target(minRatio: 1, metric: .eventsPerSecond, text: "≥ 1× advisory lock")
        case .oneListLocked:
            id = "pg-writers-1-list-locked"
            target = Target(minRatio: 1, metric: .eventsPerSecond, text: "≥ 1× advisory lock")
        case .eightLists(let notify):
            id = notify ? "pg-writers-8-lists" : "pg-writers-8-lists-no-notify"
            target = Target(minRatio: 4, metric: .eventsPerSecond, text: "≥ 4× 1 list")
        }
    }

    var peer: String? {
        switch mode {
        case .oneList, .oneListLocked: "advisory lock"
        case .eightLists(let notify): notify ? "8 writers, 1 list" : "1 list, no NOTIFY"
        }
    }

    var title: String {
        switch mode {
        case .oneList: "pg: 8 writers on 1 list, \(eventCount.grouped) single events"
        case .oneListLocked: "pg: 8 writers on 1 list, head row locked, \(eventCount.grouped) single events"
        case .eightLists(let notify): "pg: 8 writers on 8 lists\(notify ? "" : ", no NOTIFY"), \(eventCount.grouped) single events"
        }
    }

    func describe(ratio: Double) -> String {
        switch mode {
        case .oneList, .oneListLocked: metric.describe(ratio: ratio)
        case .eightLists: String(format: "%.2f× 1 list", ratio)
        }
    }

    var notes: [String] {
        guard oneListRecords > 0 else { return [] }
        return [
            String(
                format: "ours on one list: %.2f seq conflicts (each a retried append) per record",
                Double(conflicts) / Double(oneListRecords))
        ]
    }

    func prepare(_ context: BenchContext) throws {
        let entries = EventStream.entries(count: eventCount, seed: seed)
        let perThread = eventCount / Self.threads
        slices = (0..<Self.threads).map { t in
            let end = t == Self.threads - 1 ? entries.count : (t + 1) * perThread
            return Array(entries[(t * perThread)..<end])
        }
    }

    func measure(_ side: Side, repetition: Int, context: BenchContext) throws -> Double {
        switch (mode, side) {
        case (.oneList, .ours): try ours(lists: 1, notify: true, side: side)
        case (.oneList, .sqlite), (.oneListLocked, .sqlite): try advisoryLock()
        case (.oneListLocked, .ours): try oursLocked()
        case (.eightLists(let notify), .ours): try ours(lists: Self.threads, notify: notify, side: side)
        case (.eightLists(let notify), .sqlite): try ours(lists: 1, notify: notify, side: side)
        }
    }

    /// 8 threads of ours on `lists` lists (thread t on list t % lists).
    private func ours(lists: Int, notify: Bool, side: Side) throws -> Double {
        let schema = server.freshSchema("ours")
        defer { server.dropSchema(schema) }
        let server = self.server, slices = self.slices
        // Creates the schema and the lists before the threads open them.
        for list in 0..<lists { try server.openLog(schema: schema, list: "w\(list)", notify: notify).close() }
        let retries = AtomicCounter()
        let elapsed = try ThreadGang.run(
            threads: Self.threads,
            setup: { thread -> PostgresEventLog in
                try server.openLog(schema: schema, list: "w\(thread % lists)", notify: notify, create: false)
            },
            work: { thread, log in
                var expected = log.lastSeq
                for entry in slices[thread] {
                    while true {
                        // As a `LabelStore` does: through the head row lock while the log prefers it
                        // (adaptive locking, after repeated conflicts), else with the expected seq.
                        if log.prefersExclusiveAppends {
                            expected = try log.appendExclusively { _ in [entry] }.last!.seq
                            break
                        }
                        do {
                            expected = try log.append([entry], expectedLastSeq: expected).last!.seq
                            break
                        } catch let error as EventLogError where error.code == .seqConflict {
                            retries.add(1)
                            expected = try error.lastGoodSeq ?? log.refreshLastSeq()
                        }
                    }
                }
            },
            teardown: { _, log in log.close() })
        var stored = 0
        for list in 0..<lists {
            let log = try server.openLog(schema: schema, list: "w\(list)", notify: notify, create: false)
            stored += Int(try log.refreshLastSeq())
            log.close()
        }
        guard stored == eventCount else { throw BenchError("\(id): \(side.rawValue) stored \(stored) of \(eventCount) events") }
        if lists == 1 {
            conflicts += retries.value
            oneListRecords += eventCount
        }
        return Statistics.rate(events: eventCount, in: elapsed)
    }

    /// 8 threads of ours on one list, each append holding the head row lock
    /// (pessimistic mode's `appendExclusively`): the writers queue on the lock.
    private func oursLocked() throws -> Double {
        let schema = server.freshSchema("ours")
        defer { server.dropSchema(schema) }
        let server = self.server, slices = self.slices
        try server.openLog(schema: schema, list: "w0", notify: true).close()
        let elapsed = try ThreadGang.run(
            threads: Self.threads,
            setup: { _ -> PostgresEventLog in try server.openLog(schema: schema, list: "w0", notify: true, create: false) },
            work: { thread, log in
                for entry in slices[thread] { _ = try log.appendExclusively { _ in [entry] } }
            },
            teardown: { _, log in log.close() })
        let log = try server.openLog(schema: schema, list: "w0", notify: true, create: false)
        defer { log.close() }
        let stored = Int(try log.refreshLastSeq())
        guard stored == eventCount else { throw BenchError("\(id): ours (locked) stored \(stored) of \(eventCount) events") }
        return Statistics.rate(events: eventCount, in: elapsed)
    }

    /// The peer of `pg-writers-1-list`: 8 threads, a connection each,
    /// `BEGIN; SELECT pg_advisory_xact_lock(k); INSERT; COMMIT` per record.
    private func advisoryLock() throws -> Double {
        let schema = server.freshSchema("peer")
        defer { server.dropSchema(schema) }
        let server = self.server, slices = self.slices
        let admin = try server.connect()
        defer { admin.close() }
        let table = try PlainTable.create(schema: schema, on: admin)
        let name = table.name
        let elapsed = try ThreadGang.run(
            threads: Self.threads,
            setup: { _ -> (PeerConnection, PlainTable) in
                let connection = try server.connect()
                let table = PlainTable(name: name)
                try table.prepareInsert(rows: 1, on: connection)
                try connection.prepare("lock", "SELECT pg_advisory_xact_lock($1)", types: [PeerValue.OID.int8])
                return (connection, table)
            },
            work: { thread, state in
                let (connection, table) = state
                for (i, entry) in slices[thread].enumerated() {
                    try connection.execute("BEGIN")
                    try connection.execute(prepared: "lock", [.int8(0x1abe1)])
                    try table.insert(CollectionOfOne(entry), firstSeq: UInt64(thread * 1_000_000 + i + 1), list: "w0", on: connection)
                    try connection.execute("COMMIT")
                }
            },
            teardown: { _, state in state.0.close() })
        let stored = try table.rowCount(on: admin)
        guard stored == eventCount else { throw BenchError("\(id): advisory lock stored \(stored) of \(eventCount) events") }
        return Statistics.rate(events: eventCount, in: elapsed)
    }

    func finish(_ context: BenchContext) { slices = [] }
}

/// A thread-safe counter.
final class AtomicCounter: Sendable {
    private let count = Atomic<Int>(0)
    /// Adds `n`.
    func add(_ n: Int) { count.add(n, ordering: .relaxed) }
    /// The sum so far.
    var value: Int { count.load(ordering: .relaxed) }
}
#endif
