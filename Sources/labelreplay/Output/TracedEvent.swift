import EventLog
import LabelProjection

/// One event of `trace --json`.
struct TracedEvent: Encodable {
    let seq: UInt64
    /// The record, in its JSON form (as `log --json`).
    let record: EventRecord
    /// The subscribers told, in the order membership, title, isEnabled, view, enabledCount.
    let notified: [TracedNotification]
    /// Which of `membership`, `view` (when traced) and `enabledCount` were not told.
    let notNotified: [String]
    /// The list's length after the event.
    let count: Int
    /// The number of enabled labels after the event.
    let enabledCount: Int
}

/// One notification in `trace --json`; only the fields of its dependency are present.
struct TracedNotification: Encodable {
    /// `membership`, `title`, `isEnabled`, `view` or `enabledCount`.
    let dependency: String
    var id: LabelID?
    var oldTitle: String?
    var newTitle: String?
    var oldIsEnabled: Bool?
    var newIsEnabled: Bool?
    var query: ViewQuery?
    var changes: [TracedViewChange]?
    /// The view's rows (ids) after the event.
    var rows: [LabelID]?
    var oldCount: Int?
    var newCount: Int?

    init(dependency: String) { self.dependency = dependency }
}

/// One view row change in `trace --json`: `inserted`/`removed`/`updated` with `at`, `moved` with `from` and `to`.
struct TracedViewChange: Encodable {
    let change: String
    let id: LabelID
    var at: Int?
    var from: Int?
    var to: Int?

    init(_ change: ViewChange) {
        id = change.id
        switch change {
        case .inserted(_, let at):
            self.change = "inserted"
            self.at = at
        case .removed(_, let at):
            self.change = "removed"
            self.at = at
        case .updated(_, let at):
            self.change = "updated"
            self.at = at
        case .moved(_, let from, let to):
            self.change = "moved"
            self.from = from
            self.to = to
        }
    }
}

extension TracedEvent: JSONWritable {
    func writeJSON(to out: inout [UInt8]) {
        var first = true
        JSONLine.key("count", first: &first, to: &out)
        JSONLine.number(count, to: &out)
        JSONLine.key("enabledCount", first: &first, to: &out)
        JSONLine.number(enabledCount, to: &out)
        JSONLine.key("notNotified", first: &first, to: &out)
        JSONLine.strings(notNotified, to: &out)
        JSONLine.key("notified", first: &first, to: &out)
        JSONLine.array(notified, to: &out)
        JSONLine.key("record", first: &first, to: &out)
        JSONLine.write(record, to: &out)
        JSONLine.key("seq", first: &first, to: &out)
        JSONLine.number(seq, to: &out)
        JSONLine.close(first, to: &out)
    }
}

extension TracedNotification: JSONWritable {
    func writeJSON(to out: inout [UInt8]) {
        var first = true
        if let changes {
            JSONLine.key("changes", first: &first, to: &out)
            JSONLine.array(changes, to: &out)
        }
        JSONLine.key("dependency", first: &first, to: &out)
        JSONLine.string(dependency, to: &out)
        if let id {
            JSONLine.key("id", first: &first, to: &out)
            JSONLine.labelID(id, to: &out)
        }
        if let newCount {
            JSONLine.key("newCount", first: &first, to: &out)
            JSONLine.number(newCount, to: &out)
        }
        if let newIsEnabled {
            JSONLine.key("newIsEnabled", first: &first, to: &out)
            JSONLine.bool(newIsEnabled, to: &out)
        }
        if let newTitle {
            JSONLine.key("newTitle", first: &first, to: &out)
            JSONLine.string(newTitle, to: &out)
        }
        if let oldCount {
            JSONLine.key("oldCount", first: &first, to: &out)
            JSONLine.number(oldCount, to: &out)
        }
        if let oldIsEnabled {
            JSONLine.key("oldIsEnabled", first: &first, to: &out)
            JSONLine.bool(oldIsEnabled, to: &out)
        }
        if let oldTitle {
            JSONLine.key("oldTitle", first: &first, to: &out)
            JSONLine.string(oldTitle, to: &out)
        }
        if let query {
            JSONLine.key("query", first: &first, to: &out)
            query.writeJSON(to: &out)
        }
        if let rows {
            JSONLine.key("rows", first: &first, to: &out)
            JSONLine.labelIDs(rows, to: &out)
        }
        JSONLine.close(first, to: &out)
    }
}

extension TracedViewChange: JSONWritable {
    func writeJSON(to out: inout [UInt8]) {
        var first = true
        if let at {
            JSONLine.key("at", first: &first, to: &out)
            JSONLine.number(at, to: &out)
        }
        JSONLine.key("change", first: &first, to: &out)
        JSONLine.string(change, to: &out)
        if let from {
            JSONLine.key("from", first: &first, to: &out)
            JSONLine.number(from, to: &out)
        }
        JSONLine.key("id", first: &first, to: &out)
        JSONLine.labelID(id, to: &out)
        if let to {
            JSONLine.key("to", first: &first, to: &out)
            JSONLine.number(to, to: &out)
        }
        JSONLine.close(first, to: &out)
    }
}
