import CSQLite

/// A failed SQLite call: the result code, SQLite's message and what the harness was doing.
struct SQLiteError: Error, CustomStringConvertible {
    /// The (extended) result code.
    var code: Int32
    /// `sqlite3_errmsg` at the time of the failure.
    var message: String
    /// What the harness was doing.
    var context: String

    /// Whether the failure is `SQLITE_BUSY` (another connection holds the lock).
    var isBusy: Bool { code & 0xFF == SQLITE_BUSY }

    /// The code, message and context on one line.
    var description: String { "SQLite error \(code) (\(message)) while \(context)" }
}
