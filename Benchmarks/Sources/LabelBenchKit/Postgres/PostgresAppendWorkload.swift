#if Postgres
import EventLog
import LabelStorePostgres

/// `pg-single-append` and `pg-batch-append`: durable appends from one thread.
///
/// Ours: `PostgresEventLog.append(_:expectedLastSeq:)` of `batchSize` records
/// (with the expectation, as a `LabelStore` appends): one statement that moves
/// the list's head row and inserts the records (the batch id on the first),
/// and in the same round trip the head read and the default `NOTIFY`;
/// acknowledged after `COMMIT`. The peer: a prepared plain
/// `INSERT` of `batchSize` rows (`VALUES (…), (…)`) into a table whose only
/// index is its `bigserial` key, autocommit: the upper bound of any append.
/// Both encode each record the same way inside the timed region. Timed: the
/// appends only (connecting and creating the schema are not). Metric: events/s.
final class PostgresAppendWorkload: Workload {
    let id: String
    let metric = Metric.eventsPerSecond
    let target = Target(minRatio: 1 / 1.5, metric: .eventsPerSecond, text: "within 1.5× (≥ 0.67×)")
    let eventCount: Int
    let batchSize: Int
    private let server: PostgresBenchServer
    private let seed: UInt64
    private var entries: [LogEntry] = []

    /// Single appends: 2,000 events (quick: 300); batches of 100: 50,000 events (quick: 5,000).
    init(server: PostgresBenchServer, settings: BenchSettings, batchSize: Int) {
        self.server = server
        self.batchSize = batchSize
        id = batchSize == 1 ? "pg-single-append" : "pg-batch-append"
        eventCount = batchSize == 1 ? settings.size(full: 2_000, quick: 300) : settings.size(full: 50_000, quick: 5_000)
        seed = settings.seed
    }

    var notes: [String] {
        [
            "the plain table keeps one index (its key); ours also checks the row before, keeps the records' hash index by "
                + "label and the unlabelled records' index, and moves the committed length at marks in the append's statement, "
                + "and in the same round trip reads the end and sends a NOTIFY in a transaction of their own"
        ]
    }

    var peer: String? { batchSize == 1 ? "plain INSERT" : "plain INSERT ×\(batchSize)" }

    var title: String {
        batchSize == 1
            ? "pg: durable single appends, \(eventCount.grouped) events"
            : "pg: batch appends, \(eventCount.grouped) events in \(batchSize)s"
    }

    func prepare(_ context: BenchContext) throws {
        entries = EventStream.entries(count: eventCount, seed: seed)
    }

    func measure(_ side: Side, repetition: Int, context: BenchContext) throws -> Double {
        let schema = server.freshSchema(side == .ours ? "ours" : "peer")
        defer { server.dropSchema(schema) }
        let batches = stride(from: 0, to: entries.count, by: batchSize).map { entries[$0..<min($0 + batchSize, entries.count)] }
        switch side {
        case .ours:
            let log = try server.openLog(schema: schema, list: "append-\(repetition)")
            defer { log.close() }
            var last: UInt64 = 0
            let elapsed = try Statistics.time {
                for batch in batches {
                    let records = try log.append(Array(batch), expectedLastSeq: last)
                    last += UInt64(records.count)
                }
            }
            try expect(Int(try log.refreshLastSeq()), side)
            return Statistics.rate(events: eventCount, in: elapsed)
        case .sqlite:
            let connection = try server.connect()
            defer { connection.close() }
            let table = try PlainTable.create(schema: schema, on: connection)
            try table.prepareInsert(rows: batchSize, on: connection)
            if eventCount % batchSize != 0 { try table.prepareInsert(rows: eventCount % batchSize, on: connection) }
            let list = "append-\(repetition)"
            var seq: UInt64 = 1
            let elapsed = try Statistics.time {
                for batch in batches {
                    try table.insert(batch, firstSeq: seq, list: list, on: connection)
                    seq += UInt64(batch.count)
                }
            }
            try expect(try table.rowCount(on: connection), side)
            return Statistics.rate(events: eventCount, in: elapsed)
        }
    }

    func finish(_ context: BenchContext) { entries = [] }

    private func expect(_ stored: Int, _ side: Side) throws {
        guard stored == eventCount else { throw BenchError("\(id): \(side.rawValue) stored \(stored) of \(eventCount) events") }
    }
}
#endif
