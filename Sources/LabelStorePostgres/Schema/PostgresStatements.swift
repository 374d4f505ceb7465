#if Postgres
/// The SQL this backend sends, for one schema at one version (docs/POSTGRES.md, "Protocol").
struct PostgresStatements {
    /// The schema's name as an SQL identifier, quoted (``quoted(_:)``): any
    /// name, a reserved word (`user`, `order`) too, is safe to interpolate.
    let schema: String
    /// The schema's version: 1 has no checksum columns (it is read as if every
    /// checksum were 0 and never written), 2 has them.
    let version: Int64

    /// The statements for the schema `name` (as written; it is quoted here) at `version`.
    init(schema name: String, version: Int64 = PostgresSchema.version) {
        self.schema = Self.quoted(name)
        self.version = version
    }

    /// The head row `l`'s chain value, or 0 in version 1.
    private var headCRC: String { version >= 2 ? "l.last_crc" : "0::bigint" }

    /// Whether the list ends at its last record row (version 5) rather than
    /// at the head row's `last_seq` (versions 1–4), which version 5 moves only
    /// now and then: the list's *committed length* (docs/POSTGRES.md, "Schema").
    var endsAtLastRow: Bool { version >= 5 }

    /// The list's end and that record's chain value, for a query over the
    /// lists row `l` with ``lastRow`` joined: the head row's columns up to
    /// version 4; from version 5 the last record row `t`, or the base when
    /// the list has no rows.
    private var end: (seq: String, crc: String) {
        endsAtLastRow ? ("COALESCE(t.seq, l.base_seq)", "COALESCE(t.crc, l.base_crc)") : ("l.last_seq", headCRC)
    }

    /// The list's last record row as `t` (version 5; nothing before): a
    /// backward scan of the records' key, one index entry.
    private var lastRow: String {
        endsAtLastRow
            ? "LEFT JOIN LATERAL (SELECT seq, crc FROM \(schema).records WHERE list = l.list ORDER BY seq DESC LIMIT 1) t ON true"
            : ""
    }

    /// `$1` list → `log_id`, the last seq, its chain value, then the committed
    /// length and its chain value (the head row's `last_seq`, `last_crc`: the
    /// same as the first two up to version 4), then `base_seq`, `base_crc`.
    var head: String {
        "SELECT l.log_id, \(end.seq), \(end.crc), l.last_seq, \(headCRC), \(baseSeqAndCRC) FROM \(schema).lists l \(lastRow) WHERE l.list = $1"
    }

    /// `$1` list, `$2`…`$3` seqs → `seq`, `crc` of each row in that range, in
    /// seq order (version 2 and later): where a changed history parts from the
    /// one a handle saw.
    var chainValues: String { "SELECT seq, crc FROM \(schema).records WHERE list = $1 AND seq BETWEEN $2 AND $3 ORDER BY seq" }

    /// `$1` milliseconds as text: the transaction's `lock_timeout` (pessimistic
    /// mode's opening, after `BEGIN` and before ``lockHead``, in one round trip).
    var setLockTimeout: String { "SELECT set_config('lock_timeout', $1, true)" }

    /// `$1` list → the last seq, its chain value, `log_id` (version 5), read in
    /// pessimistic mode after ``lockList`` took the list's lock: a statement of
    /// its own, so its snapshot holds what the lock's last holder committed.
    var lockHead: String { "SELECT \(end.seq), \(end.crc), l.log_id FROM \(schema).lists l \(lastRow) WHERE l.list = $1" }

    /// `$1` the list's lock key (``lockKey(schema:list:)``): waits for the
    /// list's write lock and holds it until the transaction ends (version 5,
    /// pessimistic mode). A transaction advisory lock: no row is written.
    var lockList: String { "SELECT pg_advisory_xact_lock(\(Self.lockClass), hashtext($1))" }

    /// The first key of every list's advisory lock ("LBST"): an application's
    /// own advisory locks of one `bigint` key never collide with it.
    static let lockClass: Int32 = 0x4C42_5354

    /// The text whose hash is the second key of a list's advisory lock.
    static func lockKey(schema: String, list: String) -> String { "\(schema).\(list)" }

    /// The list's head row updated to itself: a write that changes nothing,
    /// whose commit waits for the synchronous standbys like an append's
    /// (settling a lost reply, ``PostgresEventLog``'s `awaitReplication`).
    var touchHead: String { "UPDATE \(schema).lists SET last_seq = last_seq WHERE list = $1" }

    /// The head row `l`'s base seq and chain value (version 4), or a list from seq 1 in older versions.
    private var baseSeqAndCRC: String { version >= 4 ? "l.base_seq, l.base_crc" : "0::bigint, 0::bigint" }

    /// The head row's base columns (version 4), or a list from seq 1 in older versions.
    private var baseColumns: String { version >= 4 ? "l.base_seq, l.base_crc, l.base" : "0::bigint, 0::bigint, NULL::bytea" }

    /// `$1` list → `log_id`, the last seq, its chain value, `base_seq`,
    /// `base_crc`, `base`, then the committed length and its chain value (as ``head``).
    var openList: String {
        "SELECT l.log_id, \(end.seq), \(end.crc), \(baseColumns), l.last_seq, \(headCRC) FROM \(schema).lists l \(lastRow) WHERE l.list = $1"
    }

    /// `$1` list → `base_seq`, `base_crc`, `base`.
    var base: String { "SELECT \(baseColumns) FROM \(schema).lists l WHERE l.list = $1" }

    /// `$1` list, `$2` log id: creates the list's head row unless it exists.
    var createList: String {
        "INSERT INTO \(schema).lists (list, log_id) VALUES ($1, $2) ON CONFLICT (list) DO NOTHING"
    }

    /// `$1` list, `$2` log id, `$3` base seq, `$4` base crc, `$5` base block: a list that starts after a base
    /// (version 4), its head at the base.
    var createBasedList: String {
        "INSERT INTO \(schema).lists (list, log_id, last_seq, last_crc, base_seq, base_crc, base) VALUES ($1, $2, $3, $4, $3, $4, $5) ON CONFLICT (list) DO NOTHING"
    }

    /// The condition that the list `l` is still the history `$11` at `$2` with
    /// chain value `$12` (version 5): the record row at `$2` has that chain
    /// value, or `$2` is the list's base (seq 0 and chain value 0 for a list
    /// from seq 1); and the list's committed length is not past `$2` (a list
    /// whose last rows were deleted by hand is not appended to: a read names
    /// the missing seq). An append checks it and inserts seqs `$2 + 1…`; a
    /// list already past `$2` has a row at `$2 + 1`, whose key refuses the insert.
    private var extendsHistory: String {
        """
        l.list = $1 AND l.log_id = $11 AND l.last_seq <= $2
            AND (($2 = l.base_seq AND $12 = l.base_crc)
                 OR EXISTS (SELECT 1 FROM \(schema).records p WHERE p.list = $1 AND p.seq = $2 AND p.crc = $12))
        """
    }

    /// Moves the committed length to `$2 + $3` with chain value `$13` when `$15`
    /// says the append crosses a mark (``PostgresEventLog/movesCommittedLength(from:count:)``)
    /// and every record was inserted (version 5): the one row an append
    /// writes besides its records, written by few appends.
    private var commitLength: String {
        """
        committed AS (
            UPDATE \(schema).lists SET last_seq = $2 + $3, last_crc = $13
            WHERE list = $1 AND $15 AND last_seq < $2 + $3 AND (SELECT count(*) FROM inserted) = $3
            RETURNING last_seq
        )
        SELECT CASE WHEN (SELECT count(*) FROM inserted) = $3 THEN $2 + $3 END, (SELECT count(*) FROM inserted)
        """
    }

    /// The append, one statement: inserts the records (`$5`…`$10`, `$14`:
    /// arrays), the first with the batch id `$4`, only if the list is still
    /// the history `$11` at `$2` with chain value `$12` (and `$3` records are
    /// given). Returns the new end, `$2 + $3` (NULL when nothing was written),
    /// and the rows inserted. Version 5 only (a build writes only its own
    /// version): the records' key orders appends (a row at `$2 + 1` refuses
    /// the insert: a unique violation, read as a conflict), and the head row
    /// moves only when `$15` says so (version 4 moved it with every append).
    /// Sent in a pipeline with ``afterAppend``, which reads the end once the
    /// append's transaction ended.
    var append: String {
        let rows = """
            INSERT INTO \(schema).records (list, seq, time_ms, kind, label_id, actor, crc, payload, batch_id)
            SELECT $1, r.seq, r.time_ms, r.kind, r.label_id, r.actor, r.crc, r.payload, CASE WHEN r.seq = $2 + 1 THEN $4::uuid END
            """
        let columns = """
            unnest($5::bigint[], $6::bigint[], $7::smallint[], $8::uuid[], $9::text[], $14::bigint[], $10::bytea[])
                AS r(seq, time_ms, kind, label_id, actor, crc, payload)
            """
        return """
            WITH prior AS (
                SELECT 1 FROM \(schema).lists l WHERE \(extendsHistory) AND cardinality($5::bigint[]) = $3
            ), inserted AS (
                \(rows)
                FROM prior, \(columns)
                RETURNING seq
            ), \(commitLength)
            """
    }

    /// ``append`` for one record: the same parameters, `$5`…`$10` and `$14`
    /// single values instead of arrays (`$3` is 1 and `$5` must be `$2 + 1`).
    var appendOne: String {
        """
        WITH prior AS (
            SELECT 1 FROM \(schema).lists l WHERE \(extendsHistory) AND $3 = 1 AND $5 = $2 + 1
        ), inserted AS (
            INSERT INTO \(schema).records (list, seq, time_ms, kind, label_id, actor, crc, payload, batch_id)
            SELECT $1, $5, $6, $7, $8, $9, $14, $10, $4 FROM prior
            RETURNING seq
        ), \(commitLength)
        """
    }

    /// `$1` list, `$2` channel, `$3` the end the append moved to, `$4` whether
    /// to notify → `log_id`, the list's last seq and its chain value (as
    /// ``head``), read in a transaction of its own right after the append's
    /// (the same pipeline), so a losing append learns the winner's end without
    /// another round trip. With `$4`, and only if the list reached `$3`, it
    /// sends the wake-up hint in that transaction, which does not wait for a
    /// WAL flush (so the lock PostgreSQL takes to queue a notification is held
    /// only briefly).
    var afterAppend: String {
        """
        SELECT l.log_id, \(end.seq), \(end.crc),
            CASE WHEN $4 AND \(end.seq) >= $3 THEN set_config('synchronous_commit', 'off', true) END,
            CASE WHEN $4 AND \(end.seq) >= $3 THEN pg_notify($2, $3::text) END
        FROM \(schema).lists l \(lastRow) WHERE l.list = $1
        """
    }

    /// `$1` list, `$2` seq → that record's `crc` (version 2).
    var crcAt: String { "SELECT crc FROM \(schema).records WHERE list = $1 AND seq = $2" }
    /// The batch id on the row at a seq (as text), if any: from version 7 also
    /// the batch id a cut kept of a row it removed.
    var batchAt: String {
        let row = "SELECT batch_id::text FROM \(schema).records WHERE list = $1 AND seq = $2 AND batch_id IS NOT NULL"
        return version >= 7 ? row + " UNION ALL SELECT batch_id::text FROM \(schema).cut_batches WHERE list = $1 AND seq = $2" : row
    }

    /// `$1` list, `$2` the first seqs an append was sent at, `$3` its batch id →
    /// the first seq of the append that committed (no row: none did). The
    /// records' key finds each candidate; the batch id says whose it is.
    var findBatch: String {
        "SELECT seq FROM \(schema).records WHERE list = $1 AND seq = ANY($2::bigint[]) AND batch_id = $3"
    }

    /// `$1` list, `$2` label ids, `$3` after, `$4` through, `$5` kinds → the
    /// records naming those labels in that range, in seq order (`seq`, `crc`,
    /// `payload`, and the `crc` of the row before), through the label index.
    var labelRecords: String {
        let crc = version >= 2 ? "crc" : "0::bigint"
        return """
            SELECT r.seq, r.\(crc), r.payload, p.\(crc) FROM \(schema).records r
            LEFT JOIN \(schema).records p ON p.list = r.list AND p.seq = r.seq - 1
            WHERE r.list = $1 AND r.label_id = ANY($2::uuid[]) AND r.seq > $3 AND r.seq <= $4 AND r.kind = ANY($5::smallint[])
            ORDER BY r.seq
            """
    }

    /// `$1` list, `$2` seqs (distinct) → the records at those seqs, in seq
    /// order, as ``labelRecords`` gives them (with the checksum of the row
    /// before), a probe of the records' key per seq. (As a join with the
    /// unnested array: with `seq = ANY($2)` the planner scans the whole
    /// table for a few thousand seqs — 100 ms for 13,000 of 1 M rows, where
    /// the probes take 60.)
    var recordsAtSeqs: String {
        let crc = version >= 2 ? "crc" : "0::bigint"
        return """
            SELECT r.seq, r.\(crc), r.payload, p.\(crc) FROM unnest($2::bigint[]) w(seq)
            JOIN \(schema).records r ON r.list = $1 AND r.seq = w.seq
            LEFT JOIN \(schema).records p ON p.list = r.list AND p.seq = r.seq - 1
            ORDER BY r.seq
            """
    }

    /// `$1` list, `$2` kind, `$3` after, `$4` through → the records of that
    /// kind naming no label (reorders) in that range, as ``labelRecords``
    /// gives them (with the checksum of the row before), through the
    /// unlabelled records' index.
    var unlabelledRecords: String {
        let crc = version >= 2 ? "crc" : "0::bigint"
        return """
            SELECT r.seq, r.\(crc), r.payload, p.\(crc) FROM \(schema).records r
            LEFT JOIN \(schema).records p ON p.list = r.list AND p.seq = r.seq - 1
            WHERE r.list = $1 AND r.label_id IS NULL AND r.kind = $2 AND r.seq > $3 AND r.seq <= $4
            ORDER BY r.seq
            """
    }

    /// `$1` list, `$2` lowest id, `$3` highest id → the distinct label ids
    /// the list's records name in that range (an id prefix's: every id that
    /// starts with it), in id order.
    var labelIDsInRange: String {
        """
        SELECT DISTINCT label_id FROM \(schema).records
        WHERE list = $1 AND label_id >= $2::uuid AND label_id <= $3::uuid ORDER BY label_id
        """
    }

    /// ``labelIDsInRange`` among the records after seq `$4` only: a range of
    /// the records' key, not a scan of every row of the list.
    var labelIDsInRangeAfter: String {
        """
        SELECT DISTINCT label_id FROM \(schema).records
        WHERE list = $1 AND seq > $4 AND label_id >= $2::uuid AND label_id <= $3::uuid ORDER BY label_id
        """
    }

    /// `$1` list, `$2` kind, `$3` after, `$4` through → the seqs of the
    /// records of that kind naming no label (reorders) in that range, in seq
    /// order, through the unlabelled records' index.
    var unlabelledSeqs: String {
        """
        SELECT seq FROM \(schema).records
        WHERE list = $1 AND label_id IS NULL AND kind = $2 AND seq > $3 AND seq <= $4 ORDER BY seq
        """
    }

    /// `$1` list, `$2` seq → the list's checkpoints at or before `$2`, newest
    /// first: `seq`, `crc` (as written), the `crc` its record has now (NULL
    /// when the record is gone), and `delta_on` (NULL: a full image). Version 8.
    var checkpoints: String {
        """
        SELECT c.seq, c.crc, r.crc, c.delta_on FROM \(schema).checkpoints c
        LEFT JOIN \(schema).records r ON r.list = c.list AND r.seq = c.seq
        WHERE c.list = $1 AND c.seq <= $2 ORDER BY c.seq DESC
        """
    }

    /// `$1` list, `$2` seqs → those checkpoints' `seq`, `crc` (as written) and `image`.
    var checkpointImages: String {
        "SELECT seq, crc, image FROM \(schema).checkpoints WHERE list = $1 AND seq = ANY($2::bigint[])"
    }

    /// `$1` list, `$2` seq, `$3` image, `$4` frontier (or NULL), `$5` the seq
    /// of the checkpoint the image is a delta on (or NULL: a full image) →
    /// inserts the checkpoint with its record's `crc`; no row when the record
    /// is missing, a checkpoint at that seq exists, or the one it is a delta
    /// on does not. Version 8.
    var storeCheckpoint: String {
        """
        INSERT INTO \(schema).checkpoints (list, seq, crc, image, frontier, delta_on)
        SELECT list, seq, crc, $3, $4, $5 FROM \(schema).records WHERE list = $1 AND seq = $2
        AND ($5::bigint IS NULL OR EXISTS (SELECT 1 FROM \(schema).checkpoints b WHERE b.list = $1 AND b.seq = $5::bigint))
        ON CONFLICT (list, seq) DO NOTHING
        """
    }

    /// `$1` list, `$2` first seq, `$3` last seq → the checkpoints in that
    /// range that hold a frontier, ascending: `seq`, `crc` (as written), the
    /// `crc` its record has now (NULL when the record is gone), `frontier`. Version 6.
    var checkpointFrontiers: String {
        """
        SELECT c.seq, c.crc, r.crc, c.frontier FROM \(schema).checkpoints c
        LEFT JOIN \(schema).records r ON r.list = c.list AND r.seq = c.seq
        WHERE c.list = $1 AND c.seq >= $2 AND c.seq <= $3 AND c.frontier IS NOT NULL ORDER BY c.seq
        """
    }

    /// `$1` list, `$2` first seq, `$3` last seq → the first checkpoint in
    /// that range whose record still has the `crc` it was written for: its
    /// `seq`, `crc`, `delta_on` (NULL: a full image) and `image`. Version 8.
    var firstCheckpointRow: String {
        """
        SELECT c.seq, c.crc, c.delta_on, c.image FROM \(schema).checkpoints c
        JOIN \(schema).records r ON r.list = c.list AND r.seq = c.seq AND r.crc = c.crc
        WHERE c.list = $1 AND c.seq >= $2 AND c.seq <= $3 ORDER BY c.seq LIMIT 1
        """
    }

    /// `$1` list → its checkpoints' seqs, ascending.
    var checkpointSeqs: String { "SELECT seq FROM \(schema).checkpoints WHERE list = $1 ORDER BY seq" }

    /// `$1` list → its checkpoints' `seq` and `delta_on`, ascending. Version 8.
    var checkpointLinks: String { "SELECT seq, delta_on FROM \(schema).checkpoints WHERE list = $1 ORDER BY seq" }

    /// `$1` list → deletes its deltas whose chain no longer reaches a full
    /// image (the checkpoint one is written on was deleted), and the deltas
    /// on those. Version 8.
    var dropBrokenChains: String {
        """
        WITH RECURSIVE broken AS (
            SELECT c.seq FROM \(schema).checkpoints c
            WHERE c.list = $1 AND c.delta_on IS NOT NULL
            AND NOT EXISTS (SELECT 1 FROM \(schema).checkpoints b WHERE b.list = $1 AND b.seq = c.delta_on)
            UNION
            SELECT c.seq FROM \(schema).checkpoints c JOIN broken ON c.delta_on = broken.seq WHERE c.list = $1)
        DELETE FROM \(schema).checkpoints WHERE list = $1 AND seq IN (SELECT seq FROM broken)
        """
    }

    /// `$1` list, `$2` seqs → deletes those checkpoints.
    var dropCheckpoints: String { "DELETE FROM \(schema).checkpoints WHERE list = $1 AND seq = ANY($2::bigint[])" }

    /// `$1` list, `$2` first seq, `$3` limit → the list's row — `log_id`,
    /// the list's last seq and its chain value (as ``head``), three NULLs,
    /// the head row's `base_seq`, then the committed length and its chain
    /// value — and one row per record from `$2` in seq order: three NULLs,
    /// the record's `seq`, `crc`, `payload`, three NULLs; no list row when
    /// there is no list. The list's columns once, not on every record's row
    /// (half the bytes a page sends). The list's row comes first as the
    /// server runs a `UNION ALL`, but SQL does not promise it: the reader
    /// finds it wherever it is (``PostgresEventLog/listRow(of:)``); the
    /// records are in seq order (their own `ORDER BY`). One statement, so
    /// the end and the records are one snapshot: every record up to the end
    /// must be there, and the end is at least the committed length (the head
    /// row is the promise).
    var read: String {
        let crc = version >= 2 ? "crc" : "0::bigint"
        return """
            SELECT l.log_id, \(end.seq), \(end.crc), NULL::bigint, NULL::bigint, NULL::bytea,
                \(version >= 4 ? "l.base_seq" : "0::bigint"), l.last_seq, \(headCRC)
            FROM \(schema).lists l \(lastRow) WHERE l.list = $1
            UNION ALL (
                SELECT NULL::uuid, NULL::bigint, NULL::bigint, seq, \(crc), payload, NULL::bigint, NULL::bigint, NULL::bigint
                FROM \(schema).records WHERE list = $1 AND seq >= $2 ORDER BY seq LIMIT $3)
            """
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
