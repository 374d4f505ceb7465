import EventLog

extension Log {
    /// What `log --label` prints (not following) over a server list from seq
    /// 1, read through the server's indexes instead of every record: the
    /// labels' own records (through the label index) and the reorders that
    /// move them (through the index of unlabelled records), each checked row
    /// by row, filtered by the rest of the selection, the last `last` of
    /// them, with the titles that name their labels — what reading the whole
    /// list selects and prints. `nil` when this does not apply (a file, a
    /// selection without labels, a list whose first records were cut off):
    /// the caller reads the whole list.
    static func serverSelection(_ path: String, selection: EventSelection, start: LogStart, last: Int?) throws
        -> (records: [EventRecord], titles: IndexedHistory.Titles)?
    {
        guard LogLocation.isServer(path), let labels = selection.labels else { return nil }
        let storage = try ServerStorage.openForReading(LogLocation.resolve(path)).storage
        guard storage.base == nil else { return nil }
        guard case .seq(let from) = start else { return ([], IndexedHistory.Titles()) }  // --from end, not following: nothing
        let through = min(selection.to ?? .max, try storage.refreshLastSeq())
        guard through >= from else { return ([], IndexedHistory.Titles()) }
        // The labels' records from seq 1: the ones selected, and the titles they state.
        guard let own = try ServerStorage.records(ofLabels: labels, after: 0, through: through, in: storage),
            let reorders = try ServerStorage.reorderRecords(after: max(from, 1) - 1, through: through, in: storage)
        else { return nil }
        var records = own.filter { $0.seq >= from } + reorders.filter { HistoryQuery.event($0.event, concerns: labels) }
        records.sort { $0.seq < $1.seq }
        records = records.filter(selection.selects)
        if let last { records = Array(records.suffix(last)) }
        var titles = IndexedHistory.Titles()
        for record in own { titles.note(record) }
        // A reorder is shown by its first labels: their titles too.
        let others = Set(records.flatMap { EventText.labelsShown(by: $0.event) }).subtracting(labels)
        if !others.isEmpty,
            let named = try ServerStorage.records(
                ofLabels: others, after: 0, through: through, kinds: [.added, .renamed, .removed], in: storage)
        {
            for record in named { titles.note(record) }
        }
        return (records, titles)
    }
}
