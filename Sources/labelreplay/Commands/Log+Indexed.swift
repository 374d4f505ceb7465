import EventLog

extension Log {
    /// `log` through the history index (not following): reads only the records
    /// `history` names for `selection` plus those appended after the index,
    /// and prints exactly what reading the whole log prints — the same events,
    /// each label named by its title at the event's seq.
    static func printIndexed(
        _ history: IndexedHistory, selection: EventSelection, start: LogStart, last: Int?, printer: LogPrinter, console: Console
    ) throws {
        guard case .seq(let from) = start else { return }  // --from end without --follow: nothing to print
        var kept = LastEvents(capacity: last)
        try history.forEachRecord(matching: selection.query, from: from, through: selection.to) { record in
            guard selection.selects(record) else { return true }
            let title = { (id: LabelID) in try history.title(of: id, atOrBefore: record.seq) }
            if kept.isKeeping {
                try kept.append(record, title: title)
            } else {
                try printer.print(record) { (try? title($0)) ?? nil }
            }
            return !console.outputFailed
        }
        for (record, titles) in kept.take() { try printer.print(record) { titles[$0] } }
    }
}
