import EventLog

extension Log {
    /// What `log` prints (not following), read through the history index: the
    /// records `history` names for `selection` plus those appended after the
    /// index, filtered, the last `last` of them, with the titles that name their
    /// labels — exactly what reading the whole log selects. `nil` when the index
    /// would not save reading (the caller then reads the whole log).
    static func indexedSelection(
        _ history: IndexedHistory, selection: EventSelection, start: LogStart, last: Int?, console: Console
    ) throws
        -> (records: [EventRecord], titles: IndexedHistory.Titles)?
    {
        guard case .seq(let from) = start else { return ([], IndexedHistory.Titles()) }  // --from end, not following: nothing
        guard var records = try history.records(matching: selection.query, from: from, through: selection.to, console: console) else {
            return nil
        }
        records = records.filter(selection.selects)
        if let last { records = Array(records.suffix(last)) }
        var needs: [(id: LabelID, seq: UInt64)] = []
        for record in records {
            if let id = record.event.labelID { needs.append((id, record.seq)) }
            // A reorder is shown by its first labels (EventText.summary).
            if case .reordered(let order) = record.event { needs += order.prefix(6).map { ($0, record.seq) } }
        }
        return (records, try history.titles(for: needs))
    }
}
