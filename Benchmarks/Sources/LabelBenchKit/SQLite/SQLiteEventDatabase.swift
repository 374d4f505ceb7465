/// The peer's database: the same events as the log, one row each, in one
/// table of a WAL-mode SQLite database.
///
/// The schema is what a developer would write for these events: typed
/// columns, NULL where a kind has no value, the seq as the rowid.
enum SQLiteEventDatabase {
    /// SQLite's `PRAGMA synchronous` levels used by the workloads.
    enum Synchronous: String, Sendable {
        /// No syncs (setup of read-only workloads only).
        case off = "OFF"
        /// WAL: sync at checkpoints only; commits survive a process crash, not power loss.
        case normal = "NORMAL"
        /// WAL: sync the WAL at every commit; commits survive power loss. The peer of a durable append.
        case full = "FULL"
    }

    /// The table. Column use per kind:
    /// `added`/`removed`: label_id, title, is_enabled, idx; `renamed`: label_id, old_title, title (new);
    /// `toggled`: label_id, is_enabled; `moved`: label_id, from_idx, to_idx;
    /// `reordered`: order_ids (16 bytes per id); `rejected`: label_id (or NULL), title (the command), reason.
    static let createTable = """
        CREATE TABLE IF NOT EXISTS events (
            seq        INTEGER PRIMARY KEY,
            time       INTEGER NOT NULL,
            kind       INTEGER NOT NULL,
            label_id   BLOB,
            title      TEXT,
            old_title  TEXT,
            is_enabled INTEGER,
            idx        INTEGER,
            from_idx   INTEGER,
            to_idx     INTEGER,
            actor      TEXT,
            note       TEXT,
            order_ids  BLOB,
            reason     TEXT
        )
        """

    /// The insert: the seq is left to SQLite (the next rowid, i.e. gapless like the log's).
    static let insert = """
        INSERT INTO events (time, kind, label_id, title, old_title, is_enabled, idx, from_idx, to_idx,
                            actor, note, order_ids, reason)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
        """

    /// The replay query: every row in seq order.
    static let selectAll = """
        SELECT seq, time, kind, label_id, title, old_title, is_enabled, idx, from_idx, to_idx,
               actor, note, order_ids, reason
        FROM events ORDER BY seq
        """

    /// Opens (creating if needed) the database at `path` in WAL mode with
    /// `synchronous`, and creates the table. `synchronous` is a per-connection
    /// setting: every connection that writes must be opened through here.
    /// A `busyTimeout` (ms) is set before anything else, for connections opened while others write.
    static func open(path: String, synchronous: Synchronous, busyTimeout: Int32? = nil) throws -> SQLiteConnection {
        let db = try SQLiteConnection(path: path)
        if let busyTimeout { db.setBusyTimeout(milliseconds: busyTimeout) }
        let mode = try db.scalarText("PRAGMA journal_mode=WAL")
        guard mode?.lowercased() == "wal" else {
            throw BenchError("SQLite refused WAL mode for \(path) (journal_mode is \(mode ?? "nil"))")
        }
        try db.execute("PRAGMA synchronous=\(synchronous.rawValue)")
        try db.execute(createTable)
        return db
    }

    /// Moves everything from the WAL into the database file and truncates the WAL to zero bytes.
    static func checkpoint(_ db: SQLiteConnection) throws {
        _ = try db.scalarText("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    /// The number of rows in the table.
    static func rowCount(_ db: SQLiteConnection) throws -> Int {
        let statement = try db.prepare("SELECT count(*) FROM events")
        guard try statement.step() else { return 0 }
        return Int(statement.int64(0))
    }

    /// The bytes the database takes on disk: the database file plus its WAL
    /// (the `-shm` index is not counted: it holds no data and is deleted on close).
    static func bytesOnDisk(path: String) -> Int64 {
        ScratchSpace.fileSize(path) + ScratchSpace.fileSize(path + "-wal")
    }
}
