/// Writing a record's JSON form straight into bytes, for `labelreplay export`
/// (from the borrowed view) and `log --json`/`trace --json` (from an
/// ``EventRecord``): the same bytes `JSONEncoder` (sorted keys, slashes
/// unescaped) writes for the record, without an encoder's containers, and
/// from a view without making the record or its strings.
extension JSONLine {
    /// Appends the JSON object of `view` (no line feed) to `out`: the fields in
    /// sorted order, strings escaped as `JSONEncoder` escapes them (`\"`, `\\`,
    /// `\b \t \n \f \r`, other control characters as `\u00xx`, everything else
    /// as is).
    package static func write(_ view: EventRecordView, to out: inout [UInt8]) {
        write(seq: view.seq, timestamp: view.timestamp, actor: view.actor, note: view.note, event: view.event, to: &out)
    }

    /// Appends the JSON object of `record` (no line feed) to `out`: the bytes
    /// `JSONEncoder` writes for it, as ``write(_:to:)-(EventRecordView,_)`` writes a view's.
    package static func write(_ record: EventRecord, to out: inout [UInt8]) {
        write(seq: record.seq, timestamp: record.timestamp, actor: record.actor, note: record.note, event: record.event, to: &out)
    }

    private static func write<Text: JSONLineText, Order>(
        seq: UInt64, timestamp: EventTimestamp, actor: Text?, note: Text?, event: LabelEventOf<Text, Order>, to out: inout [UInt8]
    ) {
        var first = true
        if let actor {
            key("actor", first: &first, to: &out)
            string(actor, to: &out)
        }
        if case .rejected(_, let command, _) = event {
            key("command", first: &first, to: &out)
            string(command, to: &out)
        }
        if case .moved(_, let from, _) = event {
            key("from", first: &first, to: &out)
            number(from, to: &out)
        }
        if let id = event.labelID {
            key("id", first: &first, to: &out)
            labelID(id, to: &out)
        }
        switch event {
        case .added(_, _, _, let index), .removed(_, let index, _, _):
            key("index", first: &first, to: &out)
            number(index, to: &out)
        default: break
        }
        switch event {
        case .added(_, _, let isEnabled, _), .toggled(_, let isEnabled), .removed(_, _, _, let isEnabled):
            key("isEnabled", first: &first, to: &out)
            bool(isEnabled, to: &out)
        default: break
        }
        key("kind", first: &first, to: &out)
        out.append(0x22)
        out.append(contentsOf: event.kind.rawValue.utf8)
        out.append(0x22)
        if let note {
            key("note", first: &first, to: &out)
            string(note, to: &out)
        }
        if case .renamed(_, let oldTitle, _) = event {
            key("oldTitle", first: &first, to: &out)
            string(oldTitle, to: &out)
        }
        if case .reordered(let order) = event {
            key("order", first: &first, to: &out)
            labelIDs(order, to: &out)
        }
        if case .rejected(_, _, let reason) = event {
            key("reason", first: &first, to: &out)
            string(reason, to: &out)
        }
        key("seq", first: &first, to: &out)
        number(seq, to: &out)
        key("time", first: &first, to: &out)
        time(timestamp, to: &out)
        switch event {
        case .added(_, let title, _, _), .renamed(_, _, let title), .removed(_, _, let title, _):
            key("title", first: &first, to: &out)
            string(title, to: &out)
        default: break
        }
        if case .moved(_, _, let to) = event {
            key("to", first: &first, to: &out)
            number(to, to: &out)
        }
        close(first, to: &out)
    }
}
