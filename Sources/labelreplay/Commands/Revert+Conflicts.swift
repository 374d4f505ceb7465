import EventLog
import LabelProjection

/// What `revert` checks before undoing an event: whether a later event
/// changed the same property again, as `git revert` conflicts only on the
/// lines a later commit touched too (docs/CLI.md, "revert").
///
/// | event at SEQ | revert appends | refused when a later event |
/// |---|---|---|
/// | added | the removal | removed the label (it may have been added again since) |
/// | renamed | the rename back | renamed, removed or re-added the label |
/// | toggled | the toggle back | toggled, removed or re-added the label |
/// | moved | the move back, next to its old neighbour | moved, removed or re-added the label, or reordered the list |
/// | removed | the label again, next to its old neighbour | added the label again |
/// | reordered | the order before | added, removed, moved or reordered any label |
///
/// The refusal names the last such event, the one to revert first.
struct RevertConflicts {
    /// The later events about the label, in seq order.
    private(set) var ofLabel: [(seq: UInt64, kind: LabelEvent.Kind)] = []
    /// The last later event that changed the list's membership or order (any label's).
    private(set) var lastListChange: (seq: UInt64, kind: LabelEvent.Kind)?

    /// The events after `seq` (about `id`, and those changing the list), read from `store`'s log.
    init(after seq: UInt64, about id: LabelID?, in store: LabelStore) throws {
        var cursor = RecordCursor(storage: store.storage, from: seq + 1)
        while let record = try cursor.next() {
            let event = record.event
            if let id, event.labelID == id, event.kind != .rejected { ofLabel.append((record.seq, event.kind)) }
            switch event.kind {
            case .added, .removed, .moved, .reordered: lastListChange = (record.seq, event.kind)
            case .renamed, .toggled, .rejected: break
            }
        }
    }

    /// The last later event about the label of one of `kinds`, or a reorder when `reorders` (whichever is later).
    private func last(of kinds: Set<LabelEvent.Kind>, orReorder reorders: Bool = false) -> (seq: UInt64, kind: LabelEvent.Kind)? {
        let own = ofLabel.last { kinds.contains($0.kind) }
        guard reorders, let change = lastListChange, change.kind == .reordered else { return own }
        return own.map { $0.seq > change.seq ? $0 : change } ?? change
    }

    /// The seq of the last later removal of the label, if any.
    private var lastRemoval: UInt64? { ofLabel.last { $0.kind == .removed }?.seq }

    /// Why undoing `record` would undo or contradict a later event, or `nil`
    /// if it would not. `name` names the label; `at` starts the message.
    func conflict(undoing record: EventRecord, name: String, at: String) -> String? {
        switch record.event {
        case .added:
            guard let removal = lastRemoval else { return nil }
            if let added = ofLabel.last(where: { $0.kind == .added }), added.seq > removal {
                return
                    "\(at): label \(name) was removed at seq \(removal) and added again at seq \(added.seq); revert seq \(added.seq) to remove it"
            }
            return "\(at): label \(name) was already removed at seq \(removal)"
        case .renamed:
            return touched(last(of: [.renamed, .removed, .added]), name: name, at: at, property: "its title was changed again")
        case .toggled:
            return touched(last(of: [.toggled, .removed, .added]), name: name, at: at, property: "its state (on/off) was changed again")
        case .moved:
            return touched(last(of: [.moved, .removed, .added], orReorder: true), name: name, at: at, property: "it was moved again")
        case .removed:
            guard let added = ofLabel.last(where: { $0.kind == .added }) else { return nil }
            if let removal = lastRemoval, removal > added.seq {
                return
                    "\(at): label \(name) was added again at seq \(added.seq) and removed again at seq \(removal); revert seq \(removal) instead"
            }
            return "\(at): label \(name) was added again at seq \(added.seq); it is in the list"
        case .reordered:
            guard let change = lastListChange else { return nil }
            return
                "\(at): the list's order or membership changed again at seq \(change.seq) (\(change.kind)); revert seq \(change.seq) first"
        case .rejected:
            return "\(at): it is an audit record of a refused edit; it changed nothing"
        }
    }

    /// The message for `event`, the last later event that changed the property an undo would restore.
    private func touched(_ event: (seq: UInt64, kind: LabelEvent.Kind)?, name: String, at: String, property: String) -> String? {
        guard let event else { return nil }
        switch event.kind {
        case .removed:
            return "\(at): label \(name) was removed at seq \(event.seq); nothing is left to undo it on"
        case .added:
            let removal = ofLabel.last { $0.kind == .removed && $0.seq < event.seq }?.seq
            return
                "\(at): label \(name) was removed\(removal.map { " at seq \($0)" } ?? "") and added again at seq \(event.seq), which set it anew; revert seq \(event.seq) first"
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
