#if Postgres
import EventLog
import LabelProjection
import LabelStorePostgres

/// `pg-open-1m` (`pg-open-200k` with `--quick`; `pg-open-10m` with `--big`):
/// a host joining a long server list (issue 29, item 2).
///
/// Prepared once (untimed): the ``HistoryFixture``'s history (the realistic
/// stream, many labels removed) appended to a list through a store, which
/// leaves the checkpoints a writer leaves (``PostgresStoreFill``: one at
/// every multiple of the default interval, in chains of a full image and
/// deltas). Timed, from a warm cache: a new
/// `PostgresEventLog` (connect, check the schema, read the head) and
/// `LabelStore(storage:)`. Ours: the store opens from the checkpoint and folds
/// the records after it; the peer: the same store over the same list through
/// a storage that offers no checkpoints (every record read and folded: what
/// every open cost before). Both must end with the same list. Metric: ms per
/// open. Target: ≤ 1 s at 10,000,000 (issue 29), reported at the other sizes.
final class PostgresOpenWorkload: Workload {
    let id: String
    let metric = Metric.milliseconds
    let peer: String? = "fold from seq 1"
    let repetitions: Int?
    private let server: PostgresBenchServer
    private let fixture: HistoryFixture
    private var schema: String?
    private var digests: [Side: String] = [:]
    private var facts: [String] = []

    init(server: PostgresBenchServer, fixture: HistoryFixture, repetitions: Int?) {
        self.server = server
        self.fixture = fixture
        self.repetitions = repetitions
        id = "pg-open-\(HistoryFixture.sizeName(fixture.eventCount))"
    }

    var eventCount: Int { fixture.eventCount }
    var title: String { "pg: a host opens a list of \(eventCount.grouped) events" }
    var target: Target {
        eventCount >= 10_000_000
            ? Target(maxOurs: 1_000, metric: .milliseconds) : Target(metric: .milliseconds, text: "none, reported")
    }
    var notes: [String] { facts }

    func prepare(_ context: BenchContext) throws {
        try fixture.acquire(context)
        let schema = server.freshSchema("open")
        self.schema = schema
        let log = try server.openLog(schema: schema, list: "history", notify: false)
        defer { log.close() }
        context.progress("    appending the \(eventCount.grouped)-event history to a server list through a store (untimed)…")
        let rows = try PostgresStoreFill.fill(log, from: fixture.logPath, server: server, schema: schema, context: context)
        guard log.lastSeq == UInt64(eventCount), let newest = rows.last else {
            throw BenchError("\(id): the list holds \(log.lastSeq) records")
        }
        facts = [
            PostgresStoreFill.describe(rows, interval: log.checkpointInterval)
                + "; \(fixture.liveLabels.grouped) live labels, \(fixture.removedLabels.grouped) removed by the end; \(Int(UInt64(eventCount) - newest.seq).grouped) records after the newest"
        ]
    }

    func measure(_ side: Side, repetition: Int, context: BenchContext) throws -> Double {
        guard let schema else { throw BenchError("\(id): not prepared") }
        var list = LabelList()
        let elapsed = try Statistics.time {
            let log = try server.openLog(schema: schema, list: "history", notify: false, create: false)
            defer { log.close() }
            let store = side == .ours ? try LabelStore(storage: log) : try LabelStore(storage: NoCheckpoints(log))
            list = store.snapshot
        }
        guard list.lastSeq == UInt64(eventCount) else { throw BenchError("\(id): \(side.rawValue) opened at seq \(list.lastSeq)") }
        let digest = ProjectionFixtures.digest(list)
        if let other = digests[side == .ours ? .sqlite : .ours], other != digest {
            throw BenchError("\(id): the list from the checkpoint is not the list from seq 1")
        }
        digests[side] = digest
        return Statistics.seconds(elapsed) * 1e3
    }

    func finish(_ context: BenchContext) {
        if let schema { server.dropSchema(schema) }
        schema = nil
        fixture.release(context)
    }
}

/// A server list through `EventStorage` alone, offering no checkpoints: a
/// store over it folds every record, as every open did before them.
private final class NoCheckpoints: EventStorage {
    let log: PostgresEventLog
    init(_ log: PostgresEventLog) { self.log = log }
    var lastSeq: UInt64 { log.lastSeq }
    func refreshLastSeq() throws(EventLogError) -> UInt64 { try log.refreshLastSeq() }
    func append(_ entries: [LogEntry], expectedLastSeq: UInt64?) throws(EventLogError) -> [EventRecord] {
        try log.append(entries, expectedLastSeq: expectedLastSeq)
    }
    func read(from seq: UInt64, maxCount: Int) throws(EventLogError) -> [EventRecord] { try log.read(from: seq, maxCount: maxCount) }
}
#endif
