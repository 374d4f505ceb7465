#if Postgres
import EventLog
import LabelStorePostgres

/// `pg-catch-up-1m` (`pg-catch-up-200k`): a follower catching up on a long
/// history: every record of a list of N, read from seq 1.
///
/// Prepared once (untimed): the same N events of the stream appended to a list
/// (ours, batches of 10,000 through `PostgresEventLog.append`) and inserted
/// into the plain table (the peer, transactions of multi-row `INSERT`s, so
/// `id` = seq). Timed: ours `read(from:maxCount: 4096)` in a loop until the
/// end (each page one `SELECT seq, payload … WHERE list = $1 AND seq >= $2
/// ORDER BY seq LIMIT 4096`, each payload decoded and checked by the log's
/// parser, the page checked gapless); the peer the same pages of the plain
/// table (`SELECT id, payload … WHERE id >= $1 ORDER BY id LIMIT 4096`),
/// each payload decoded by the same parser. Both from a warm cache (the
/// server's and the OS's). Target: ≥ 1 M records/s. Metric: events/s.
final class PostgresCatchUpWorkload: Workload {
    /// Records per read.
    static let pageSize = 4096
    /// Records per append (or transaction) while preparing.
    static let chunk = 10_000

    let id: String
    let metric = Metric.eventsPerSecond
    let target = Target(minOurs: 1_000_000, metric: .eventsPerSecond)
    let peer: String? = "plain SELECT"
    let eventCount: Int
    private let server: PostgresBenchServer
    private let seed: UInt64
    private var ourSchema: String?
    private var peerSchema: String?
    private var digests: [Side: UInt64] = [:]

    /// 1,000,000 records (quick: 200,000).
    init(server: PostgresBenchServer, settings: BenchSettings) {
        self.server = server
        eventCount = settings.size(full: 1_000_000, quick: 200_000)
        id = settings.quick ? "pg-catch-up-200k" : "pg-catch-up-1m"
        seed = settings.seed
    }

    var title: String { "pg: catch-up read, \(eventCount.grouped) records in pages of \(Self.pageSize)" }

    func prepare(_ context: BenchContext) throws {
        let ours = server.freshSchema("ours")
        ourSchema = ours
        let peer = server.freshSchema("peer")
        peerSchema = peer
        let log = try server.openLog(schema: ours, list: "history", notify: false)
        defer { log.close() }
        let connection = try server.connect()
        defer { connection.close() }
        let table = try PlainTable.create(schema: peer, on: connection)
        let rowsPerInsert = 100
        try table.prepareInsert(rows: rowsPerInsert, on: connection)
        var stream = EventStream(seed: seed)
        var written = 0
        while written < eventCount {
            let entries = stream.next(min(Self.chunk, eventCount - written))
            try log.append(entries, expectedLastSeq: UInt64(written))
            try connection.execute("BEGIN")
            for start in stride(from: 0, to: entries.count, by: rowsPerInsert) {
                let rows = entries[start..<min(start + rowsPerInsert, entries.count)]
                if rows.count != rowsPerInsert { try table.prepareInsert(rows: rows.count, on: connection) }
                try table.insert(rows, firstSeq: UInt64(written + start + 1), list: "history", on: connection)
            }
            try connection.execute("COMMIT")
            written += entries.count
            if written % 200_000 == 0 { context.progress("    prepared \(written.grouped) of \(eventCount.grouped) records on each side") }
        }
        try connection.execute("VACUUM ANALYZE \(table.name)")
        try connection.execute("VACUUM ANALYZE \(ours).records")
        guard try table.rowCount(on: connection) == eventCount else { throw BenchError("\(id): the plain table is short") }
    }

    func measure(_ side: Side, repetition: Int, context: BenchContext) throws -> Double {
        var count = 0
        var digest: UInt64 = 0
        let elapsed: Duration
        switch side {
        case .ours:
            guard let schema = ourSchema else { throw BenchError("\(id): not prepared") }
            let log = try server.openLog(schema: schema, list: "history", notify: false, create: false)
            defer { log.close() }
            elapsed = try Statistics.time {
                var next: UInt64 = 1
                while true {
                    let records = try log.read(from: next, maxCount: Self.pageSize)
                    if records.isEmpty { break }
                    for record in records {
                        digest = digest &* 31 &+ record.seq &+ UInt64(bitPattern: record.timestamp.millisecondsSince1970)
                    }
                    count += records.count
                    next += UInt64(records.count)
                }
            }
        case .sqlite:
            guard let schema = peerSchema else { throw BenchError("\(id): not prepared") }
            let connection = try server.connect()
            defer { connection.close() }
            try connection.prepare(
                "page", "SELECT id, payload FROM \(schema).events WHERE id >= $1 ORDER BY id LIMIT $2",
                types: [PeerValue.OID.int8, PeerValue.OID.int8])
            elapsed = try Statistics.time {
                var next: Int64 = 1
                while true {
                    let result = try connection.execute(prepared: "page", [.int8(next), .int8(Int64(Self.pageSize))])
                    if result.rowCount == 0 { break }
                    var records: [EventRecord] = []
                    records.reserveCapacity(result.rowCount)
                    for row in 0..<result.rowCount {
                        let record = try EventRecordView.parse(payload: result.bytes(row, 1)).record
                        guard let rowID = result.int64(row, 0), record.seq == UInt64(rowID) else {
                            throw BenchError("\(id): plain row \(row) of the page from \(next) holds seq \(record.seq)")
                        }
                        records.append(record)
                    }
                    for record in records {
                        digest = digest &* 31 &+ record.seq &+ UInt64(bitPattern: record.timestamp.millisecondsSince1970)
                    }
                    count += records.count
                    next += Int64(records.count)
                }
            }
        }
        guard count == eventCount else { throw BenchError("\(id): \(side.rawValue) read \(count) of \(eventCount) records") }
        if let other = digests[side == .ours ? .sqlite : .ours], other != digest {
            throw BenchError("\(id): ours and the peer read different records")
        }
        digests[side] = digest
        return Statistics.rate(events: count, in: elapsed)
    }

    func finish(_ context: BenchContext) {
        for schema in [ourSchema, peerSchema].compactMap({ $0 }) { server.dropSchema(schema) }
        ourSchema = nil
        peerSchema = nil
    }
}
#endif
