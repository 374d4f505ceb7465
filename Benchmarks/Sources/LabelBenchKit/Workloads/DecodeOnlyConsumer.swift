import EventLog

/// Decode only: touches every field of every record (so the decoding can't
/// be optimized away) and folds them into cheap checksums.
///
/// It reads both sides borrowed, as a fast reader would: our records as
/// ``EventRecordView``s (texts in place in the read buffer), SQLite's rows
/// with `sqlite3_column_text`/`_blob` + `_bytes` (``SQLiteEventRow``); no
/// `String` is made on either side. The digest is the same whichever of the
/// three `consume` methods fed it.
struct DecodeOnlyConsumer: ReplayConsumer {
    private var count = 0
    private var seqSum: UInt64 = 0
    private var timeSum: Int64 = 0
    private var textBytes = 0
    private var idBits: UInt64 = 0
    private var numbers = 0

    init() {}

    static var name: String { "decode" }

    mutating func consume(_ record: EventRecord) {
        count += 1
        seqSum &+= record.seq
        timeSum &+= record.timestamp.millisecondsSince1970
        textBytes &+= (record.actor?.utf8.count ?? 0) &+ (record.note?.utf8.count ?? 0)
        switch record.event {
        case .added(let id, let title, let isEnabled, let index), .removed(let id, let index, let title, let isEnabled):
            mix(id)
            textBytes &+= title.utf8.count
            numbers &+= index &+ (isEnabled ? 1 : 0)
        case .renamed(let id, let oldTitle, let newTitle):
            mix(id)
            textBytes &+= oldTitle.utf8.count &+ newTitle.utf8.count
        case .toggled(let id, let isEnabled):
            mix(id)
            numbers &+= isEnabled ? 1 : 0
        case .moved(let id, let from, let to):
            mix(id)
            numbers &+= from &* 3 &+ to
        case .reordered(let order):
            for id in order { mix(id) }
        case .rejected(let id, let command, let reason):
            if let id { mix(id) }
            textBytes &+= command.utf8.count &+ reason.utf8.count
        }
    }

    mutating func consume(view: EventRecordView) {
        count += 1
        seqSum &+= view.seq
        timeSum &+= view.timestamp.millisecondsSince1970
        textBytes &+= (view.actor?.count ?? 0) &+ (view.note?.count ?? 0)
        switch view.event {
        case .added(let id, let title, let isEnabled, let index), .removed(let id, let index, let title, let isEnabled):
            mix(id)
            textBytes &+= title.count
            numbers &+= index &+ (isEnabled ? 1 : 0)
        case .renamed(let id, let oldTitle, let newTitle):
            mix(id)
            textBytes &+= oldTitle.count &+ newTitle.count
        case .toggled(let id, let isEnabled):
            mix(id)
            numbers &+= isEnabled ? 1 : 0
        case .moved(let id, let from, let to):
            mix(id)
            numbers &+= from &* 3 &+ to
        case .reordered(let order):
            for id in order { mix(id) }
        case .rejected(let id, let command, let reason):
            if let id { mix(id) }
            textBytes &+= command.count &+ reason.count
        }
    }

    mutating func consume(row: SQLiteEventRow) throws {
        count += 1
        seqSum &+= row.seq
        timeSum &+= row.time
        textBytes &+= (row.actor?.count ?? 0) &+ (row.note?.count ?? 0)
        func id() throws -> LabelID {
            guard let id = try row.labelID() else { throw BenchError("row \(row.seq): label_id is NULL") }
            return id
        }
        func text(_ bytes: UnsafeRawBufferPointer?) throws -> Int {
            guard let bytes else { throw BenchError("row \(row.seq): a text column is NULL") }
            return bytes.count
        }
        switch row.kindCode {
        case 1, 4:
            mix(try id())
            textBytes &+= try text(row.title)
            numbers &+= row.index &+ (row.isEnabled ? 1 : 0)
        case 2:
            mix(try id())
            textBytes &+= try text(row.oldTitle) &+ text(row.title)
        case 3:
            mix(try id())
            numbers &+= row.isEnabled ? 1 : 0
        case 5:
            mix(try id())
            numbers &+= row.from &* 3 &+ row.to
        case 6:
            let ids = row.orderIDs
            guard ids.count % 16 == 0 else { throw BenchError("row \(row.seq): order_ids is \(ids.count) bytes, not a multiple of 16") }
            for start in stride(from: 0, to: ids.count, by: 16) { mix(SQLiteEventRow.labelID(ids, at: start)) }
        case 7:
            if let id = try row.labelID() { mix(id) }
            textBytes &+= try text(row.title) &+ text(row.reason)
        case let other:
            throw BenchError("row \(row.seq) has unknown kind \(other)")
        }
    }

    var digest: String {
        "\(count) records, seq sum \(seqSum), time sum \(timeSum), \(textBytes) text bytes, ids \(idBits), numbers \(numbers)"
    }

    private mutating func mix(_ id: LabelID) {
        let bytes = id.uuid.uuid
        idBits = (idBits &* 31) &+ UInt64(bytes.0) &+ UInt64(bytes.7) << 8 &+ UInt64(bytes.15) << 16
    }
}
