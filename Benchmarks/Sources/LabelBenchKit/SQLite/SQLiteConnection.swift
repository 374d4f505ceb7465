import CSQLite

/// One SQLite connection (`sqlite3*`), for use by one thread at a time.
///
/// It is opened with `SQLITE_OPEN_NOMUTEX` (multi-thread mode: no mutex
/// around each call), which is how a store would use one connection per thread.
final class SQLiteConnection {
    /// The raw handle.
    let handle: OpaquePointer
    /// The database file's path.
    let path: String
    private var isClosed = false

    /// Opens (creating if needed) the database at `path`.
    init(path: String) throws(SQLiteError) {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let db { sqlite3_close_v2(db) }
            throw SQLiteError(code: rc, message: message, context: "opening \(path)")
        }
        sqlite3_extended_result_codes(db, 1)
        self.handle = db
        self.path = path
    }

    deinit { close() }

    /// Runs one or more statements that return no rows we need (DDL, pragmas, BEGIN/COMMIT).
    func execute(_ sql: String) throws(SQLiteError) {
        let rc = sqlite3_exec(handle, sql, nil, nil, nil)
        guard rc == SQLITE_OK else { throw error(rc, "running \(sql)") }
    }

    /// Runs a statement that returns one row and gives its first column as text
    /// (e.g. `PRAGMA journal_mode=WAL` answers `wal`).
    func scalarText(_ sql: String) throws(SQLiteError) -> String? {
        let statement = try prepare(sql)
        guard try statement.step() else { return nil }
        return statement.text(0)
    }

    /// Compiles `sql` into a reusable statement.
    func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        var raw: OpaquePointer?
        let rc = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &raw, nil)
        guard rc == SQLITE_OK, let raw else { throw error(rc, "preparing \(sql)") }
        return SQLiteStatement(raw, connection: self, sql: sql)
    }

    /// Sets how long a statement waits for a lock another connection holds before failing with `SQLITE_BUSY`.
    func setBusyTimeout(milliseconds: Int32) {
        sqlite3_busy_timeout(handle, milliseconds)
    }

    /// Closes the connection (idempotent). Statements must not be used afterwards.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        sqlite3_close_v2(handle)
    }

    /// An error for result code `rc` with the connection's current message.
    func error(_ rc: Int32, _ context: String) -> SQLiteError {
        SQLiteError(code: rc, message: String(cString: sqlite3_errmsg(handle)), context: context)
    }
}
