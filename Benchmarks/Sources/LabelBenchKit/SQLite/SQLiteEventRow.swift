import CSQLite
import EventLog

/// The current row of a ``SQLiteEventDatabase/selectAll`` statement, read in
/// place: texts and blobs are SQLite's own column buffers
/// (`sqlite3_column_text`/`sqlite3_column_blob` + `sqlite3_column_bytes`),
/// no `String` or array is made. The peer of ``EventRecordView``; valid
/// only inside the closure of ``SQLiteEventReader/forEachRow(in:_:)``.
///
/// SQLite does not check that its text is valid UTF-8 (the log's decoder
/// does, as part of its format checks), so this side does slightly less work.
struct SQLiteEventRow {
    let statement: SQLiteStatement

    var seq: UInt64 { UInt64(statement.int64(0)) }
    var time: Int64 { statement.int64(1) }
    var kindCode: Int64 { statement.int64(2) }
    var isEnabled: Bool { statement.int64(6) != 0 }
    var index: Int { Int(statement.int64(7)) }
    var from: Int { Int(statement.int64(8)) }
    var to: Int { Int(statement.int64(9)) }

    /// The title (column 4; the new title of a rename, the command of a rejection), in place.
    var title: UnsafeRawBufferPointer? { text(4) }
    var oldTitle: UnsafeRawBufferPointer? { text(5) }
    var actor: UnsafeRawBufferPointer? { text(10) }
    var note: UnsafeRawBufferPointer? { text(11) }
    var reason: UnsafeRawBufferPointer? { text(13) }
    /// The ids of a reorder, 16 bytes each (empty for none).
    var orderIDs: UnsafeRawBufferPointer { statement.blob(12) ?? UnsafeRawBufferPointer(start: nil, count: 0) }

    /// The label id (column 3), or `nil` when NULL.
    func labelID() throws -> LabelID? {
        guard let bytes = statement.blob(3) else { return nil }
        guard bytes.count == 16 else { throw BenchError("row \(seq): label_id is \(bytes.count) bytes, not 16") }
        return SQLiteEventRow.labelID(bytes, at: 0)
    }

    /// The id at byte `offset` of `bytes`.
    static func labelID(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> LabelID {
        LabelID(
            bytes: bytes.loadUnaligned(
                fromByteOffset: offset,
                as: (
                    UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                    UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8
                ).self))
    }

    private func text(_ column: Int32) -> UnsafeRawBufferPointer? {
        guard let bytes = sqlite3_column_text(statement.handle, column) else { return nil }
        return UnsafeRawBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(statement.handle, column)))
    }
}

extension SQLiteEventReader {
    /// Calls `body` with every row of `connection`'s table, in seq order,
    /// read in place (see ``SQLiteEventRow``). Returns the number of rows.
    @discardableResult
    static func forEachRow(in connection: SQLiteConnection, _ body: (SQLiteEventRow) throws -> Void) throws -> Int {
        let statement = try connection.prepare(SQLiteEventDatabase.selectAll)
        let row = SQLiteEventRow(statement: statement)
        var count = 0
        while try statement.step() {
            try body(row)
            count += 1
        }
        return count
    }
}
