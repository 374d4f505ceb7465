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
        // The event's fields, taken apart once (matching the event for each field copies it each time).
        var id: LabelID?, title: Text?, oldTitle: Text?, command: Text?, reason: Text?
        var isEnabled: Bool?, index: Int?, from: Int?, to: Int?, order: Order?
        switch event {
        case .added(let label, let text, let enabled, let at):
            (id, title, isEnabled, index) = (label, text, enabled, at)
        case .renamed(let label, let old, let new):
            (id, oldTitle, title) = (label, old, new)
        case .toggled(let label, let enabled):
            (id, isEnabled) = (label, enabled)
        case .removed(let label, let at, let text, let enabled):
            (id, index, title, isEnabled) = (label, at, text, enabled)
        case .moved(let label, let start, let end):
            (id, from, to) = (label, start, end)
        case .reordered(let ids):
            order = ids
        case .rejected(let label, let what, let why):
            (id, command, reason) = (label, what, why)
        }
        var first = true
        if let actor {
            key("actor", first: &first, to: &out)
            string(actor, to: &out)
        }
        if let command {
            key("command", first: &first, to: &out)
            string(command, to: &out)
        }
        if let from {
            key("from", first: &first, to: &out)
            number(from, to: &out)
        }
        if let id {
            key("id", first: &first, to: &out)
            labelID(id, to: &out)
        }
        if let index {
            key("index", first: &first, to: &out)
            number(index, to: &out)
        }
        if let isEnabled {
            key("isEnabled", first: &first, to: &out)
            bool(isEnabled, to: &out)
        }
        key("kind", first: &first, to: &out)
        out.append(0x22)
        out.append(contentsOf: event.kind.rawValue.utf8)
        out.append(0x22)
        if let note {
            key("note", first: &first, to: &out)
            string(note, to: &out)
        }
        if let oldTitle {
            key("oldTitle", first: &first, to: &out)
            string(oldTitle, to: &out)
        }
        if let order {
            key("order", first: &first, to: &out)
            labelIDs(order, to: &out)
        }
        if let reason {
            key("reason", first: &first, to: &out)
            string(reason, to: &out)
        }
        key("seq", first: &first, to: &out)
        number(seq, to: &out)
        key("time", first: &first, to: &out)
        time(timestamp, to: &out)
        if let title {
            key("title", first: &first, to: &out)
            string(title, to: &out)
        }
        if let to {
            key("to", first: &first, to: &out)
            number(to, to: &out)
        }
        close(first, to: &out)
    }
}
