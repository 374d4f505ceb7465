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
        return try selected(from: [history], selection: selection, from: from, last: last, console: console)
    }

    /// The selection read from `parts` (the parts of one history, oldest
    /// first, each through its index): their matching records from seq `from`,
    /// filtered, the last `last` of them, and the titles that name their labels,
    /// looked for from the newest part back. `nil` when a part's index would not
    /// save reading.
    private static func selected(
        from parts: [IndexedHistory], selection: EventSelection, from: UInt64, last: Int?, console: Console
    ) throws -> (records: [EventRecord], titles: IndexedHistory.Titles)? {
        var records: [EventRecord] = []
        for part in parts {
            guard let found = try part.records(matching: selection.query, from: from, through: selection.to, console: console) else {
                return nil
            }
            records += found
        }
        records = records.filter(selection.selects)
        if let last { records = Array(records.suffix(last)) }
        // A record that states its label's title (an add, a rename, a removal) names the label itself: no read for it.
        var titles = IndexedHistory.Titles()
        var statesOwnTitle: [UInt64: LabelID] = [:]
        for record in records {
            titles.note(record)
            if let (id, _) = Replay.statedTitle(record.event) { statesOwnTitle[record.seq] = id }
        }
        var needs = records.flatMap { record in
            EventText.labelsShown(by: record.event).filter { statesOwnTitle[record.seq] != $0 }.map { (id: $0, seq: record.seq) }
        }
        for part in parts.reversed() where !needs.isEmpty {
            titles.absorb(try part.titles(for: needs))
            needs = needs.filter { titles.title(of: $0.id, atOrBefore: $0.seq) == nil }
        }
        return (records, titles)
    }

    /// ``indexedSelection(_:selection:start:last:console:)`` for a read that
    /// reaches archived seqs: the archives holding the seqs from the start on
    /// (each checked against its base first, ``LogHistory/archives(from:)``),
    /// each through its own index, then the log through its own; titles are
    /// looked for from the newest part back. `nil` when a part has no usable
    /// index, or its index would not save reading (the caller reads everything),
    /// and when the start is not `explicit` (no `--from`) and records before
    /// the log's were dropped or their archive is not there: the caller's read
    /// says so and goes on from the log's first record, as for any selection.
    static func indexedSelectionAcrossArchives(
        _ path: String, selection: EventSelection, start: LogStart, explicit: Bool, last: Int?, console: Console
    ) throws -> (records: [EventRecord], titles: IndexedHistory.Titles)? {
        guard case .seq(let from) = start, !LogLocation.isServer(path) else { return nil }
        let history = try LogHistory(logPath: path)
        var parts: [IndexedHistory] = []
        let found: Result<[HistoryArchive], EventLogError> = Result { () throws(EventLogError) in
            try history.archives(from: max(from, 1))
        }
        if case .failure(let error) = found, error.code == .archived, !explicit { return nil }
        let archives = try found.get()
        for archive in archives {
            guard let part = try IndexedHistory.open(archive.path, console: console) else { return nil }
            parts.append(part)
        }
        guard let live = try IndexedHistory.open(path, console: console) else { return nil }
        parts.append(live)
        return try selected(from: parts, selection: selection, from: from, last: last, console: console)
    }
}
