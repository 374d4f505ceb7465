import EventLog
import LabelProjection

/// What `revert` checks before undoing an event: whether a later event
/// changed the same property again and left it changed, as `git revert`
/// conflicts only where a later commit changed the same lines
/// (docs/CLI.md, "Reverting an event").
///
/// | event at SEQ | revert appends | refused when the property is not as SEQ left it, because a later event |
/// |---|---|---|
/// | added | the removal | removed the label (it is not in the list) |
/// | renamed | the rename back | renamed, removed or re-added the label (the title is not SEQ's) |
/// | toggled | the toggle back | toggled, removed or re-added the label (the state is not SEQ's) |
/// | moved | the move back, next to its old neighbour | moved, removed or re-added the label, or reordered the list (and it is not back where SEQ put it) |
/// | removed | the label again, next to its old neighbour | added the label again (it is in the list) |
/// | reordered | the order before | added, removed, moved or reordered a label (the order is not SEQ's) |
///
/// The refusal names the last such event: the one to revert first.
struct RevertConflicts {
    /// The later events about the label, in seq order.
    private(set) var ofLabel: [(seq: UInt64, kind: LabelEvent.Kind)] = []
    /// The last later event that changed the list's membership or order (any label's).
    private(set) var lastListChange: (seq: UInt64, kind: LabelEvent.Kind)?

    /// The events after `seq` (about `id`, and those changing the list), read
    /// from `store`'s history (its archives first when `seq` is archived).
    init(after seq: UInt64, about id: LabelID?, in store: LabelStore) throws {
        var ofLabel: [(seq: UInt64, kind: LabelEvent.Kind)] = []
        var lastListChange: (seq: UInt64, kind: LabelEvent.Kind)?
        try store.history().forEachRecord(from: seq + 1) { record in
            let event = record.event
            if let id, event.labelID == id, event.kind != .rejected { ofLabel.append((record.seq, event.kind)) }
            switch event.kind {
            case .added, .removed, .moved, .reordered: lastListChange = (record.seq, event.kind)
            case .renamed, .toggled, .rejected: break
            }
            return true
        }
        self.ofLabel = ofLabel
        self.lastListChange = lastListChange
    }

    /// The last later event about the label of one of `kinds`, or a reorder when `reorders` (whichever is later).
    func last(of kinds: Set<LabelEvent.Kind>, orReorder reorders: Bool = false) -> (seq: UInt64, kind: LabelEvent.Kind)? {
        let own = ofLabel.last { kinds.contains($0.kind) }
        guard reorders, let change = lastListChange, change.kind == .reordered else { return own }
        return own.map { $0.seq > change.seq ? $0 : change } ?? change
    }

    /// Why undoing `record` is refused, given whether the property it changed is
    /// still as it left it (`unchanged`); `nil` when it is not refused. `name`
    /// names the label; `at` starts the message.
    func conflict(undoing record: EventRecord, unchanged: Bool, name: String, at: String) -> String? {
        if case .rejected = record.event { return "\(at): it is an audit record of a refused edit; it changed nothing" }
        guard !unchanged else { return nil }
        switch record.event {
        case .added:
            let removal = last(of: [.removed]).map { " at seq \($0.seq)" } ?? ""
            return "\(at): label \(name) was already removed\(removal); it is not in the list"
        case .renamed:
            return touched(last(of: [.renamed, .removed, .added]), name: name, at: at, property: "its title was changed again")
        case .toggled:
            return touched(last(of: [.toggled, .removed, .added]), name: name, at: at, property: "its state (on/off) was changed again")
        case .moved:
            // Only a later event that moved this label counts: others' moves shift its neighbours, not its move.
            guard let touch = last(of: [.moved, .removed, .added], orReorder: true) else { return nil }
            return touched(touch, name: name, at: at, property: "it was moved again")
        case .removed:
            let added = last(of: [.added]).map { " at seq \($0.seq)" } ?? ""
            return "\(at): label \(name) was added again\(added); it is in the list"
        case .reordered:
            guard let change = lastListChange else { return "\(at): the list's order is not the one it made" }
            return
                "\(at): the list's order or membership changed again at seq \(change.seq) (\(change.kind)); revert seq \(change.seq) first"
        case .rejected:
            return nil
        }
    }

    /// The message for `event`, the last later event that changed the property an undo would restore.
    private func touched(_ event: (seq: UInt64, kind: LabelEvent.Kind)?, name: String, at: String, property: String) -> String {
        guard let event else { return "\(at): label \(name) is not as the event left it" }
        switch event.kind {
        case .removed:
            return "\(at): label \(name) was removed at seq \(event.seq); nothing is left to undo it on"
        case .added:
            return
                "\(at): label \(name) was removed and added again at seq \(event.seq), which set it anew; revert seq \(event.seq) first"
        case .reordered:
            return "\(at): the list was reordered at seq \(event.seq), which moved every label; revert seq \(event.seq) first"
        default:
            return "\(at): \(property) at seq \(event.seq) (\(event.kind)); revert seq \(event.seq) first"
        }
    }
}

extension Revert {
    /// Where label `id` goes back to, as a position of `now` without it: right after
    /// the label that preceded it in `before` (at the start if it was first), else
    /// right before the label that followed it, else its old position, cut to the list.
    /// Also says which, e.g. `right after 3f2a9c1e "Grid"`.
    static func neighbourPosition(of id: LabelID, before: LabelList, now: LabelList) -> (position: Int, anchor: String) {
        let current = now.position(of: id)
        let count = now.count - (current == nil ? 0 : 1)
        guard let old = before.position(of: id) else { return (count, "at the end of the list") }
        /// `other`'s position in `now` once `id` is taken out.
        func withoutSelf(_ other: LabelID) -> Int? {
            guard let p = now.position(of: other) else { return nil }
            return current.map { p > $0 ? p - 1 : p } ?? p
        }
        func name(_ other: LabelID) -> String { EventText.shortID(other) + (now.label(other).map { " \"\($0.title)\"" } ?? "") }
        if old == 0 { return (0, "at the start of the list") }
        let previous = before.id(at: old - 1)
        if let p = withoutSelf(previous) { return (p + 1, "right after \(name(previous))") }
        if old + 1 < before.count {
            let following = before.id(at: old + 1)
            if let n = withoutSelf(following) { return (n, "right before \(name(following))") }
        }
        return (min(old, count), "at position \(min(old, count))")
    }
}
