#if Postgres
import EventLog
import Foundation
import LabelStorePostgres

/// `pg-append-ladder-*`: what each guarantee of a durable single append
/// costs against a plain `INSERT` (issue 45, item 6). Each rung adds one
/// guarantee to the one below, on the label store's own `records` table
/// (its schema made by the library); all of them single-row autocommit
/// statements from one connection, prepared, as `pg-single-append`'s peer:
///
/// - `key`: the `records` row with its key `(list, seq)` only (the label and
///   unlabelled indexes dropped), no checksum (0), no batch id;
/// - `label-index`: the same, with the two indexes: the hash index by label
///   and the partial index of records naming no label;
/// - `chain`: the same, with each row's chained CRC-32C computed on the
///   client (over the payload and the row before's) and a batch id;
/// - `statement`: the library's append statement itself (schema version 5):
///   the insert only if the row before has the expected checksum (the
///   optimistic check; the records' key refuses a second append at a seq),
///   and the list's committed length moved in the same statement by the
///   appends that reach a mark (one in 1,024 once the list is long), one
///   round trip;
/// - `library-no-notify`: `PostgresEventLog.append` with `notify: false`:
///   the statement above plus, in the same pipeline, the end read in a
///   transaction of its own (how a losing writer learns the winner's end);
/// - `schema4-head` (for comparison, not a rung above the others): the
///   schema version 4 append statement, which moved the list's head row
///   from the expected seq and checksum with every append.
///
/// `pg-single-append` (the library with its default `NOTIFY`) is the rung
/// above the last. The peer of every rung: the plain table's `INSERT`
/// (`PlainTable`: a `bigserial` key, no other index). Metric: events/s.
final class PostgresAppendLadderWorkload: Workload {
    /// One rung of the ladder (their names are ``PostgresCatalog/ladderRungs``, in order).
    enum Rung: String, CaseIterable {
        case key
        case labelIndex = "label-index"
        case chain
        case statement
        case libraryNoNotify = "library-no-notify"
        case schema4Head = "schema4-head"
    }

    let metric = Metric.eventsPerSecond
    let target = Target(minRatio: 1 / 1.5, metric: .eventsPerSecond, text: "within 1.5× (≥ 0.67×)")
    let eventCount: Int
    let rung: Rung
    private let server: PostgresBenchServer
    private let seed: UInt64
    private var entries: [LogEntry] = []

    /// 2,000 single appends (quick: 300), as `pg-single-append`.
    init(server: PostgresBenchServer, settings: BenchSettings, rung: Rung) {
        self.server = server
        self.rung = rung
        eventCount = settings.size(full: 2_000, quick: 300)
        seed = settings.seed
    }

    var id: String { "pg-append-ladder-\(rung.rawValue)" }
    var peer: String? { "plain INSERT" }
    var title: String {
        let what =
            switch rung {
            case .key: "the records row, its key only"
            case .labelIndex: "+ the label and unlabelled indexes"
            case .chain: "+ the chained checksum and batch id"
            case .statement: "+ the row before's check (the append statement)"
            case .libraryNoNotify: "+ the pipelined end read (the library, no NOTIFY)"
            case .schema4Head: "schema 4's statement: the head row moved by each"
            }
        return "pg: single appends, \(what), \(eventCount.grouped) events"
    }
    var notes: [String] { ["each rung adds one guarantee to the one above it in the table; pg-single-append adds NOTIFY"] }

    func prepare(_ context: BenchContext) throws {
        entries = EventStream.entries(count: eventCount, seed: seed)
    }

    func finish(_ context: BenchContext) { entries = [] }

    func measure(_ side: Side, repetition: Int, context: BenchContext) throws -> Double {
        let schema = server.freshSchema(side == .ours ? "ladder" : "plain")
        defer { server.dropSchema(schema) }
        let list = "ladder-\(repetition)"
        if side != .ours {
            let connection = try server.connect()
            defer { connection.close() }
            let table = try PlainTable.create(schema: schema, on: connection)
            try table.prepareInsert(rows: 1, on: connection)
            var seq: UInt64 = 1
            let elapsed = try Statistics.time {
                for entry in entries {
                    try table.insert(CollectionOfOne(entry), firstSeq: seq, list: list, on: connection)
                    seq += 1
                }
            }
            return Statistics.rate(events: eventCount, in: elapsed)
        }
        // The library makes the schema and the list (its head row), then each rung writes to it.
        let log = try server.openLog(schema: schema, list: list, notify: false)
        if rung == .libraryNoNotify {
            defer { log.close() }
            var last: UInt64 = 0
            let elapsed = try Statistics.time {
                for entry in entries {
                    last = try log.append([entry], expectedLastSeq: last)[0].seq
                }
            }
            return Statistics.rate(events: eventCount, in: elapsed)
        }
        log.close()
        let connection = try server.connect()
        defer { connection.close() }
        if rung == .key {
            _ = try connection.execute("DROP INDEX \(schema).records_by_label; DROP INDEX \(schema).records_unlabelled")
        }
        let logID = try connection.scalar("SELECT log_id FROM \(schema).lists WHERE list = '\(list)'")
        guard let historyID = UUID(uuidString: logID) else { throw BenchError("\(id): the list has no log id ('\(logID)')") }
        let types = [
            PeerValue.OID.text, PeerValue.OID.int8, PeerValue.OID.int8, PeerValue.OID.int2, PeerValue.OID.uuid, PeerValue.OID.text,
            PeerValue.OID.int8, PeerValue.OID.bytea, PeerValue.OID.uuid, PeerValue.OID.int8, PeerValue.OID.int8
        ]
        let insert = """
            INSERT INTO \(schema).records (list, seq, time_ms, kind, label_id, actor, crc, payload, batch_id)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
            """
        // Schema version 4's append statement: the head row moves only from the expected seq and checksum.
        let schema4Append = """
            WITH head AS (
                UPDATE \(schema).lists SET last_seq = last_seq + 1, last_crc = $7
                WHERE list = $1 AND last_seq = $10 AND last_crc = $11 AND $2 = $10 + 1
                RETURNING last_seq
            ), inserted AS (
                INSERT INTO \(schema).records (list, seq, time_ms, kind, label_id, actor, crc, payload, batch_id)
                SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9 FROM head RETURNING seq
            )
            SELECT (SELECT last_seq FROM head), (SELECT count(*) FROM inserted)
            """
        // The append statement's shape (PostgresStatements.appendOne, schema version 5): the insert only if
        // the row before has the expected checksum; the committed length moved at a mark ($12).
        let append = """
            WITH prior AS (
                SELECT 1 FROM \(schema).lists l WHERE l.list = $1 AND l.last_seq <= $10
                    AND (($10 = l.base_seq AND $11 = l.base_crc)
                         OR EXISTS (SELECT 1 FROM \(schema).records p WHERE p.list = $1 AND p.seq = $10 AND p.crc = $11))
                    AND $2 = $10 + 1
            ), inserted AS (
                INSERT INTO \(schema).records (list, seq, time_ms, kind, label_id, actor, crc, payload, batch_id)
                SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9 FROM prior RETURNING seq
            ), committed AS (
                UPDATE \(schema).lists SET last_seq = $2, last_crc = $7
                WHERE list = $1 AND $12 AND last_seq < $2 AND (SELECT count(*) FROM inserted) = 1
                RETURNING last_seq
            )
            SELECT CASE WHEN (SELECT count(*) FROM inserted) = 1 THEN $2 END, (SELECT count(*) FROM inserted)
            """
        let statement: String
        switch rung {
        case .statement: statement = append
        case .schema4Head: statement = schema4Append
        default: statement = insert + " RETURNING $10::bigint, $11::bigint, $12::boolean"
        }
        try connection.prepare("rung", statement, types: types + [PeerValue.OID.bool])
        var previous: UInt32 = 0
        let now = EventTimestamp.now()
        let elapsed = try Statistics.time {
            for (i, entry) in entries.enumerated() {
                let seq = UInt64(i + 1)
                let record = entry.record(seq: seq, now: now)
                let payload = try record.encodedPayload()
                let chained = rung == .chain || rung == .statement || rung == .schema4Head
                let crc = chained ? LadderChecksum.next(historyID: historyID, previous: previous, payload: payload) : 0
                let result = try connection.execute(
                    prepared: "rung",
                    [
                        .text(list), .int8(Int64(seq)), .int8(record.timestamp.millisecondsSince1970), .int2(Int16(record.event.kind.code)),
                        .uuid(record.event.labelID?.uuid), .text(record.actor), .int8(Int64(crc)), .bytea(payload),
                        .uuid(chained ? UUID() : nil), .int8(Int64(seq - 1)), .int8(Int64(previous)),
                        .bool((seq & (seq - 1) == 0 && seq <= 1024) || seq % 1024 == 0)
                    ])
                if rung == .statement || rung == .schema4Head, result.int64(0, 0) != Int64(seq) {
                    throw BenchError("\(id): the append of seq \(seq) wrote nothing")
                }
                previous = crc
            }
        }
        let stored = Int(try connection.scalar("SELECT count(*) FROM \(schema).records WHERE list = '\(list)'")) ?? -1
        guard stored == eventCount else { throw BenchError("\(id): \(stored) of \(eventCount) rows stored") }
        return Statistics.rate(events: eventCount, in: elapsed)
    }
}

/// The chained checksum a server list's row holds (docs/FORMAT.md: CRC-32C
/// of the history id, the payload length, the row before's checksum and the
/// payload), computed here bit by bit: the library's own is not visible to
/// this package, and the cost that matters is the server's, not this.
enum LadderChecksum {
    static func next(historyID: UUID, previous: UInt32, payload: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        func feed(_ bytes: some Sequence<UInt8>) {
            for byte in bytes {
                crc ^= UInt32(byte)
                for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
            }
        }
        withUnsafeBytes(of: historyID.uuid) { feed($0) }
        withUnsafeBytes(of: UInt32(payload.count).littleEndian) { feed($0) }
        withUnsafeBytes(of: previous.littleEndian) { feed($0) }
        feed(payload)
        return crc ^ 0xFFFF_FFFF
    }
}
#endif
