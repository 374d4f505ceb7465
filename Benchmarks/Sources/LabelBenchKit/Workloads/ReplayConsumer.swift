import EventLog

/// What a replay does with each decoded record. It runs inside the timed
/// region, identically for both sides.
///
/// After every measurement the runner compares the two sides' ``digest``s,
/// so a replay that skipped or garbled records on either side fails loudly.
protocol ReplayConsumer {
    /// A fresh consumer (zeroed counters, or an empty projection).
    init()
    /// Takes the next record (records arrive in seq order).
    mutating func consume(_ record: EventRecord) throws
    /// A summary of everything consumed; equal input gives equal digests.
    var digest: String { get }
    /// The suffix of the workload's id and title, e.g. `decode` or `fold`.
    static var name: String { get }
    /// Takes the next record of our log, borrowed (see ``EventRecordView``).
    mutating func consume(view: EventRecordView) throws
    /// Takes the next row of the SQLite peer, borrowed (see ``SQLiteEventRow``).
    mutating func consume(row: SQLiteEventRow) throws
}

extension ReplayConsumer {
    /// By default a consumer wants records: the view is copied into one.
    mutating func consume(view: EventRecordView) throws { try consume(view.record) }

    /// By default a consumer wants records: the row is decoded into one, as ``SQLiteEventReader/forEach(in:_:)`` does.
    mutating func consume(row: SQLiteEventRow) throws { try consume(try SQLiteEventReader.decode(row.statement)) }
}
