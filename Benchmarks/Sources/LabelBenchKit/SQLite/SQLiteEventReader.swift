import CSQLite
import EventLog

/// Reads the peer's table back into the same `EventRecord` values the log
/// decodes (the comparison a user would make: "load my history from SQLite").
enum SQLiteEventReader {
    /// Calls `body` with every row of `connection`'s table, in seq order, decoded.
    /// Returns the number of rows.
    @discardableResult
    static func forEach(in connection: SQLiteConnection, _ body: (EventRecord) throws -> Void) throws -> Int {
        let statement = try connection.prepare(SQLiteEventDatabase.selectAll)
        var count = 0
        while try statement.step() {
            try body(try decode(statement))
            count += 1
        }
        return count
    }

    /// Every record of the table at `path` (for tests and checks).
    static func readAll(path: String) throws -> [EventRecord] {
        let db = try SQLiteConnection(path: path)
        defer { db.close() }
        var records: [EventRecord] = []
        try forEach(in: db) { records.append($0) }
        return records
    }

    /// The record in the current row of a statement running ``SQLiteEventDatabase/selectAll``.
    static func decode(_ row: SQLiteStatement) throws -> EventRecord {
        let seq = row.int64(0)
        let event: LabelEvent
        switch row.int64(2) {
        case 1:
            event = .added(id: try id(row, 3), title: try text(row, 4), isEnabled: row.int64(6) != 0, index: Int(row.int64(7)))
        case 2:
            event = .renamed(id: try id(row, 3), oldTitle: try text(row, 5), newTitle: try text(row, 4))
        case 3:
            event = .toggled(id: try id(row, 3), isEnabled: row.int64(6) != 0)
        case 4:
            event = .removed(id: try id(row, 3), index: Int(row.int64(7)), title: try text(row, 4), isEnabled: row.int64(6) != 0)
        case 5:
            event = .moved(id: try id(row, 3), from: Int(row.int64(8)), to: Int(row.int64(9)))
        case 6:
            let bytes = row.blob(12) ?? UnsafeRawBufferPointer(start: nil, count: 0)
            guard bytes.count % 16 == 0 else { throw BenchError("row \(seq): order_ids is \(bytes.count) bytes, not a multiple of 16") }
            var order: [LabelID] = []
            order.reserveCapacity(bytes.count / 16)
            for start in stride(from: 0, to: bytes.count, by: 16) { order.append(labelID(bytes, at: start)) }
            event = .reordered(order: order)
        case 7:
            let id = row.isNull(3) ? nil : try Self.id(row, 3)
            event = .rejected(id: id, command: try text(row, 4), reason: try text(row, 13))
        case let other:
            throw BenchError("row \(seq) has unknown kind \(other)")
        }
        return EventRecord(
            seq: UInt64(seq), timestamp: EventTimestamp(millisecondsSince1970: row.int64(1)),
            actor: row.text(10), note: row.text(11), event: event)
    }

    private static func text(_ row: SQLiteStatement, _ column: Int32) throws -> String {
        guard let text = row.text(column) else { throw BenchError("column \(column) is NULL where a text is needed") }
        return text
    }

    private static func id(_ row: SQLiteStatement, _ column: Int32) throws -> LabelID {
        guard let bytes = row.blob(column), bytes.count == 16 else {
            throw BenchError("column \(column) is not a 16-byte label id")
        }
        return labelID(bytes, at: 0)
    }

    private static func labelID(_ b: UnsafeRawBufferPointer, at p: Int) -> LabelID {
        LabelID(
            bytes: (
                b[p], b[p + 1], b[p + 2], b[p + 3], b[p + 4], b[p + 5], b[p + 6], b[p + 7],
                b[p + 8], b[p + 9], b[p + 10], b[p + 11], b[p + 12], b[p + 13], b[p + 14], b[p + 15]
            ))
    }
}
