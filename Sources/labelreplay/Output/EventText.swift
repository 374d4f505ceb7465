import EventLog
import LabelProjection

/// The human-readable form of events and labels, shared by `log`, `trace`,
/// `diff`, the write commands and `demo`. Every untrusted text is escaped.
enum EventText {
    /// The first 8 hex digits of an id (lowercase, as its description starts): enough to name it on the command line.
    static func shortID(_ id: LabelID) -> String {
        let hex: StaticString = "0123456789abcdef"
        return withUnsafeBytes(of: id.uuid.uuid) { bytes in
            String(unsafeUninitializedCapacity: 8) { digits in
                for i in 0..<4 {
                    digits[2 * i] = hex.utf8Start[Int(bytes[i] >> 4)]
                    digits[2 * i + 1] = hex.utf8Start[Int(bytes[i] & 0x0F)]
                }
                return 8
            }
        }
    }

    /// `3f2a9c1e "Amber"`, or just the short id when the title is unknown.
    static func name(_ id: LabelID, title: String?) -> String {
        shortID(id) + (title.map { " " + Escape.quoted($0) } ?? "")
    }

    /// `on` or `off`.
    static func onOff(_ isEnabled: Bool) -> String { isEnabled ? "on" : "off" }

    /// `"Amber" (on)`.
    static func titled(_ label: Label) -> String { "\(Escape.quoted(label.title)) (\(onOff(label.isEnabled)))" }

    /// `view "Ring"`, `view "Ring" enabled-only`, `view enabled-only` or `view (all)`.
    static func viewName(_ query: ViewQuery) -> String {
        var parts = ["view"]
        if !query.text.isEmpty { parts.append(Escape.quoted(query.text)) }
        if query.enabledOnly { parts.append("enabled-only") }
        return parts.count == 1 ? "view (all)" : parts.joined(separator: " ")
    }

    /// The header of ``row(_:title:)`` tables.
    static let header = ["seq", "time", "actor", "kind", "label", "change"]

    /// One line of `log`: seq, time, actor, kind, label and the change (old → new), then the note.
    /// `title` names labels as they are after the event.
    /// With `style`, old and new values in the change are coloured.
    static func row(_ record: EventRecord, style: Style = .plain, title: (LabelID) -> String?) -> [String] {
        let (label, change) = describe(record.event, style: style, title: title)
        let note = record.note.map { "  # " + Escape.text($0) } ?? ""
        return [
            String(record.seq), record.timestamp.iso8601, record.actor.map(Escape.text) ?? "-",
            record.event.kind.rawValue, label, change + note
        ]
    }

    /// The label cell and the change cell of an event.
    static func describe(_ event: LabelEvent, style: Style = .plain, title: (LabelID) -> String?) -> (label: String, change: String) {
        func change(_ old: String, _ new: String) -> String { "\(style.paint(old, .old)) → \(style.paint(new, .new))" }
        switch event {
        case .added(let id, let name, let isEnabled, let index):
            return (self.name(id, title: name), "new \(onOff(isEnabled)) at position \(index)")
        case .renamed(let id, let old, let new):
            return (self.name(id, title: new), change(Escape.quoted(old), Escape.quoted(new)))
        case .toggled(let id, let isEnabled):
            return (self.name(id, title: title(id)), change(onOff(!isEnabled), onOff(isEnabled)))
        case .removed(let id, let index, let name, let isEnabled):
            return (self.name(id, title: name), "gone (was \(onOff(isEnabled)) at position \(index))")
        case .moved(let id, let from, let to):
            return (self.name(id, title: title(id)), "position " + change(String(from), String(to)))
        case .reordered(let order):
            return ("", "order: " + summary(order, title: title))
        case .rejected(let id, let command, let reason):
            return (id.map { self.name($0, title: title($0)) } ?? "", "refused \(Escape.quoted(command)): \(Escape.text(reason))")
        }
    }

    /// How many labels a reorder's line names by title (``summary(_:title:limit:)``).
    static let summaryLimit = 6

    /// The labels whose titles the line of `event` shows: the label it is
    /// about, or a reorder's first ``summaryLimit``. What a reader that looks
    /// titles up (through an index, on a server) must find for it.
    static func labelsShown(by event: LabelEvent) -> [LabelID] {
        if case .reordered(let order) = event { return Array(order.prefix(summaryLimit)) }
        return event.labelID.map { [$0] } ?? []
    }

    /// Up to six labels by title, `"A" · "B" · … (+12 more)`.
    static func summary(_ ids: [LabelID], title: (LabelID) -> String?, limit: Int = summaryLimit) -> String {
        var parts = ids.prefix(limit).map { id in title(id).map(Escape.quoted) ?? shortID(id) }
        if ids.count > limit { parts.append("… (+\(ids.count - limit) more)") }
        return parts.isEmpty ? "(empty)" : parts.joined(separator: " · ")
    }

    /// A list on one line: `[0] "Copper" (off) · [1] "Cobalt" (off)`, or `(empty)`.
    static func inline(_ labels: [Label], positions: [Int]? = nil) -> String {
        guard !labels.isEmpty else { return "(empty)" }
        return labels.enumerated().map { i, label in "[\(positions?[i] ?? i)] \(titled(label))" }.joined(separator: " · ")
    }
}
