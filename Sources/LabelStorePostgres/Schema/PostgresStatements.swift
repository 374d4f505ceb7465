#if Postgres
/// The SQL this backend sends, for one schema (docs/POSTGRES.md, "Protocol").
struct PostgresStatements {
    /// The schema's name as an SQL identifier, quoted (``quoted(_:)``): any
    /// name, a reserved word (`user`, `order`) too, is safe to interpolate.
    let schema: String

    /// The statements for the schema `name` (as written; it is quoted here).
    init(schema name: String) { self.schema = Self.quoted(name) }

    /// `$1` list → `last_seq`.
    var head: String { "SELECT last_seq FROM \(schema).lists WHERE list = $1" }

    /// Pessimistic mode's opening, one round trip: a transaction with `lock_timeout`
    /// that locks the list's head row (`list` already an escaped literal) → `last_seq` as text.
    func lockHead(list literal: String, timeoutMilliseconds: Int64) -> String {
        "BEGIN; SET LOCAL lock_timeout = \(timeoutMilliseconds); SELECT last_seq FROM \(schema).lists WHERE list = \(literal) FOR UPDATE"
    }

    /// `$1` list → `log_id`, `last_seq`.
    var openList: String { "SELECT log_id, last_seq FROM \(schema).lists WHERE list = $1" }

    /// `$1` list, `$2` log id: creates the list's head row unless it exists.
    var createList: String {
        "INSERT INTO \(schema).lists (list, log_id) VALUES ($1, $2) ON CONFLICT (list) DO NOTHING"
    }

    /// The append, one statement: moves the head from `$2` to `$2 + $3` only if it is
    /// at `$2` (and `$3` records are given), records the batch `$4`, and inserts the
    /// records (`$5`…`$10`, arrays). Returns the new head (NULL when the head was not
    /// at `$2`: nothing was written), the rows inserted, the batch rows, and the head
    /// as the statement's snapshot saw it (the winner's seq when a conflict was
    /// committed before the statement began).
    var append: String {
        """
        WITH head AS (
            UPDATE \(schema).lists SET last_seq = last_seq + $3
            WHERE list = $1 AND last_seq = $2 AND cardinality($5::bigint[]) = $3
            RETURNING last_seq
        ), batch AS (
            INSERT INTO \(schema).batches (list, batch_id, first_seq, count)
            SELECT $1, $4, last_seq - $3 + 1, $3 FROM head
            RETURNING first_seq
        ), inserted AS (
            INSERT INTO \(schema).records (list, seq, time_ms, kind, label_id, actor, payload)
            SELECT $1, r.seq, r.time_ms, r.kind, r.label_id, r.actor, r.payload
            FROM head, unnest($5::bigint[], $6::bigint[], $7::smallint[], $8::uuid[], $9::text[], $10::bytea[])
                AS r(seq, time_ms, kind, label_id, actor, payload)
            RETURNING seq
        )
        SELECT (SELECT last_seq FROM head), (SELECT count(*) FROM inserted), (SELECT count(*) FROM batch),
            (SELECT last_seq FROM \(schema).lists WHERE list = $1)
        """
    }

    /// `$1` channel, `$2` seq: the wake-up hint, sent after an append committed, in a
    /// transaction of its own that does not wait for a WAL flush (so the lock
    /// PostgreSQL takes to queue a notification is held only briefly).
    var notify: String { "SELECT set_config('synchronous_commit', 'off', true), pg_notify($1, $2)" }

    /// `$1` list, `$2` batch id → `first_seq`, `count` of a committed batch.
    var findBatch: String { "SELECT first_seq, count FROM \(schema).batches WHERE list = $1 AND batch_id = $2" }

    /// `$1` list, `$2` first seq, `$3` limit → `seq`, `payload` in seq order.
    var read: String {
        "SELECT seq, payload FROM \(schema).records WHERE list = $1 AND seq >= $2 ORDER BY seq LIMIT $3"
    }

    /// The list's notification channel: `schema.list` when that fits in an
    /// identifier (63 bytes), else `schema.#` and a 64-bit FNV-1a hash of the
    /// list's name in hex. A hint only: followers poll as well.
    static func channel(schema: String, list: String) -> String {
        let plain = "\(schema).\(list)"
        if plain.utf8.count <= 63 { return plain }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in list.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return "\(schema).#" + String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// `identifier` as a quoted SQL identifier, as `PQescapeIdentifier` writes
    /// it: in double quotes, each `"` inside doubled.
    static func quoted(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
#endif
