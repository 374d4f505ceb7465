#if Postgres
import EventLog
import Foundation
import LabelStorePostgres
import Synchronization

/// The PostgreSQL server of the `pg-*` workloads: its connection string, and
/// the schemas the run makes there.
///
/// Every measurement works in schemas of its own (``freshSchema(_:)``), made
/// for it and dropped after it (`DROP SCHEMA … CASCADE`), so both sides always
/// start from empty tables: ours a label store schema (`PostgresEventLog` with
/// `createIfMissing`), the peer a plain table. Their names start with
/// `labelbench_<pid>_`.
final class PostgresBenchServer: Sendable {
    /// The libpq connection string (never printed: it may hold a password).
    let conninfo: String
    private let counter = Atomic<Int>(0)
    private let runTag: String

    /// The server at `conninfo`.
    init(conninfo: String) {
        self.conninfo = conninfo
        runTag = "labelbench_\(ProcessInfo.processInfo.processIdentifier)"
    }

    /// A new schema name, unique in this run, e.g. `labelbench_4242_7_ours`.
    func freshSchema(_ what: String) -> String {
        let n = counter.add(1, ordering: .relaxed).newValue
        return "\(runTag)_\(n)_\(what)"
    }

    /// A new peer connection.
    func connect() throws -> PeerConnection { try PeerConnection(conninfo) }

    /// Drops `schema` and everything in it (after a measurement; failures are ignored).
    func dropSchema(_ schema: String) {
        guard let connection = try? connect() else { return }
        defer { connection.close() }
        _ = try? connection.execute("DROP SCHEMA IF EXISTS \(schema) CASCADE")
    }

    /// Opens (creating the schema and the list when missing) the list `list` in `schema` with our backend.
    func openLog(
        schema: String, list: String, notify: Bool = PostgresEventLog.Options().notify, pollInterval: Duration? = nil,
        create: Bool = true
    ) throws -> PostgresEventLog {
        var options = PostgresEventLog.Options(createIfMissing: create, notify: notify)
        if let pollInterval { options.pollInterval = pollInterval }
        return try PostgresEventLog(location: PostgresLocation(connection: conninfo, list: list, schema: schema), options: options)
    }

    /// One line for the header: the server's version, address and the settings
    /// that decide what a commit costs (never the connection string).
    static func describe(conninfo: String) -> String {
        do {
            let connection = try PeerConnection(conninfo)
            defer { connection.close() }
            let version = try connection.scalar("SHOW server_version")
            var settings: [String] = []
            for name in ["fsync", "synchronous_commit", "wal_sync_method", "full_page_writes", "shared_buffers"] {
                settings.append("\(name)=\(try connection.scalar("SHOW \(name)"))")
            }
            return "postgres: PostgreSQL \(version) on \(connection.serverAddress); " + settings.joined(separator: ", ")
        } catch {
            return "postgres: \(error)"
        }
    }
}

/// The peers' table: a plain `events` table in a schema of its own, with a
/// `bigserial` primary key (its only index) and the same columns as the
/// backend's `records` (list, time, kind, label id, actor, the encoded payload).
struct PlainTable {
    /// `schema.events`.
    let name: String

    /// The columns of each row in an `INSERT`.
    static let columnsPerRow = 6

    /// Creates the schema `schema` and its table on `connection`.
    static func create(schema: String, on connection: PeerConnection) throws -> PlainTable {
        try connection.execute(
            """
            CREATE SCHEMA \(schema);
            CREATE TABLE \(schema).events (
                id bigserial PRIMARY KEY,
                list text NOT NULL,
                time_ms bigint NOT NULL,
                kind smallint NOT NULL,
                label_id uuid,
                actor text,
                payload bytea NOT NULL)
            """)
        return PlainTable(name: "\(schema).events")
    }

    /// Prepares, on `connection`, `insert<rows>`: one `INSERT … VALUES (…), (…)` of `rows` rows.
    func prepareInsert(rows: Int, on connection: PeerConnection) throws {
        let n = Self.columnsPerRow
        let tuples = (0..<rows).map { r in "(" + (1...n).map { "$\(r * n + $0)" }.joined(separator: ", ") + ")" }
        let types = [
            PeerValue.OID.text, PeerValue.OID.int8, PeerValue.OID.int2, PeerValue.OID.uuid, PeerValue.OID.text, PeerValue.OID.bytea
        ]
        try connection.prepare(
            "insert\(rows)",
            "INSERT INTO \(name) (list, time_ms, kind, label_id, actor, payload) VALUES " + tuples.joined(separator: ", "),
            types: Array(repeating: types, count: rows).flatMap { $0 })
    }

    /// Inserts `entries` as records from seq `firstSeq` (encoded as the backend
    /// would) with the statement `insert<entries.count>` prepared on `connection`; autocommit
    /// unless the caller began a transaction. Checks that every row landed.
    func insert(_ entries: some Collection<LogEntry>, firstSeq: UInt64, list: String, on connection: PeerConnection) throws {
        var parameters: [PeerValue] = []
        parameters.reserveCapacity(entries.count * Self.columnsPerRow)
        let now = EventTimestamp.now()
        for (i, entry) in entries.enumerated() {
            let record = entry.record(seq: firstSeq + UInt64(i), now: now)
            parameters += [
                .text(list), .int8(record.timestamp.millisecondsSince1970), .int2(Int16(record.event.kind.code)),
                .uuid(record.event.labelID?.uuid), .text(record.actor), .bytea(try record.encodedPayload())
            ]
        }
        let result = try connection.execute(prepared: "insert\(entries.count)", parameters)
        guard result.affectedRows == entries.count else {
            throw BenchError("plain table: an INSERT of \(entries.count) rows inserted \(result.affectedRows)")
        }
    }

    /// The number of rows in the table.
    func rowCount(on connection: PeerConnection) throws -> Int {
        Int(try connection.scalar("SELECT count(*) FROM \(name)")) ?? -1
    }
}
#endif
