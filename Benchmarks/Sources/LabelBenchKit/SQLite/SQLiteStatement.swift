import CSQLite

/// A prepared statement (`sqlite3_stmt*`): bind, step, read columns, reset.
///
/// Parameter and column indices follow SQLite: parameters from 1, columns from 0.
final class SQLiteStatement {
    /// The raw handle.
    let handle: OpaquePointer
    private let connection: SQLiteConnection
    private let sql: String

    init(_ handle: OpaquePointer, connection: SQLiteConnection, sql: String) {
        self.handle = handle
        self.connection = connection
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    /// `SQLITE_TRANSIENT`: SQLite copies the bound bytes before the call returns.
    private static var transient: sqlite3_destructor_type {
        unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
    }

    /// Binds a 64-bit integer.
    func bind(_ value: Int64, at index: Int32) {
        sqlite3_bind_int64(handle, index, value)
    }

    /// Binds a text value, or NULL for `nil`.
    func bind(_ value: String?, at index: Int32) {
        guard var value else {
            sqlite3_bind_null(handle, index)
            return
        }
        value.withUTF8 { utf8 in
            if let base = utf8.baseAddress {
                _ = base.withMemoryRebound(to: CChar.self, capacity: utf8.count) { chars in
                    sqlite3_bind_text(handle, index, chars, Int32(utf8.count), Self.transient)
                }
            } else {
                sqlite3_bind_text(handle, index, "", 0, Self.transient)
            }
        }
    }

    /// Binds a blob, or NULL for `nil`.
    func bind(blob: UnsafeRawBufferPointer?, at index: Int32) {
        guard let blob else {
            sqlite3_bind_null(handle, index)
            return
        }
        sqlite3_bind_blob(handle, index, blob.baseAddress, Int32(blob.count), Self.transient)
    }

    /// Binds NULL.
    func bindNull(at index: Int32) {
        sqlite3_bind_null(handle, index)
    }

    /// Runs the statement one step: `true` when a row is available, `false` when it is done.
    @discardableResult
    func step() throws(SQLiteError) -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            sqlite3_reset(handle)
            throw connection.error(rc, "stepping \(sql)")
        }
    }

    /// Sets every parameter to NULL.
    func clearBindings() {
        sqlite3_clear_bindings(handle)
    }

    /// Makes the statement ready to run again (bindings are kept).
    func reset() {
        sqlite3_reset(handle)
    }

    /// Whether column `index` of the current row is NULL.
    func isNull(_ index: Int32) -> Bool {
        sqlite3_column_type(handle, index) == SQLITE_NULL
    }

    /// Column `index` as a 64-bit integer.
    func int64(_ index: Int32) -> Int64 {
        sqlite3_column_int64(handle, index)
    }

    /// Column `index` as text, or `nil` for NULL.
    func text(_ index: Int32) -> String? {
        guard let bytes = sqlite3_column_text(handle, index) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    /// Column `index` as raw bytes, valid until the next step or reset; `nil` for NULL.
    func blob(_ index: Int32) -> UnsafeRawBufferPointer? {
        guard let bytes = sqlite3_column_blob(handle, index) else { return nil }
        return UnsafeRawBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(handle, index)))
    }
}
