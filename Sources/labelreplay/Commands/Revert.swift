import EventLog
import LabelProjection

/// `revert LOG SEQ`: appends the event that undoes record SEQ. History is never rewritten.
enum Revert: Command {
    static let spec = CommandSpec(
        name: "revert",
        abstract: "Append the event that undoes the event at a seq (history is never rewritten).",
        discussion: """
            The undo of added is a removal, of renamed the rename back, of toggled the toggle back, of moved the move \
            back, of removed the label added again (same id, title and state), of reordered the previous order. A \
            label moved back or added back goes next to the label it followed before SEQ (at the start if it was \
            first; else before the label it preceded; else at its old position).

            Like git revert, it is refused (exit 1) only when a later event changed the same thing and left it \
            changed: a rename when the title is no longer the one SEQ set (renamed again, or the label removed or \
            added back); a toggle when the state is not; a move when the label was moved again, removed or added \
            back, or the list reordered, and is not back where SEQ put it; an addition when the label is no longer \
            in the list; a removal when it is back; a reorder when the order is not the one SEQ made. A later toggle \
            does not block reverting a rename, nor others' moves a move, and so on. The message names the last such \
            seq: revert it first, and SEQ after it. Audit records have nothing to undo. The new record's note \
            defaults to "revert of seq N".
            """,
        arguments: [
            .positional("log", "The label log file."),
            .positional("seq", "The seq of the event to undo.")
        ] + Writing.envelope,
        examples: ["revert labels.labellog 16 --actor support"])

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let seq = try arguments.seq("seq") ?? 0
        let path = try arguments.logPath()
        return try Writing.perform(arguments, console: console) { store, options in
            let last = store.lastSeq
            guard seq >= 1, seq <= last else { throw Failure("\(path): there is no seq \(seq): the log ends at seq \(last)") }
            // Through the history: an archived seq is read from its archive (checked first), or
            // refused naming it; never another seq's record.
            guard let record = try store.history().record(at: seq) else {
                throw Failure("\(path): seq \(seq) could not be read")
            }
            switch try undoing(record, in: store, path: path) {
            case .unchanged(let reason):
                return ([], reason)
            case .event(let undo):
                let entry = LogEntry(undo, actor: options.actor, note: options.note ?? "revert of seq \(seq)")
                return (try store.append(entries: [entry]), "")
            }
        }
    }

    /// What reverting an event comes to.
    enum Undo {
        /// Append this event.
        case event(LabelEvent)
        /// Nothing to append: the state is already what the undo would make it (why).
        case unchanged(String)
    }

    /// Whether the property `record` changed is still as it left it: the title or state
    /// it set, the place it moved the label to (right after the same label, or first),
    /// the label present (added) or absent (removed), the order it made.
    static func unchanged(_ record: EventRecord, in store: LabelStore) throws -> Bool {
        let list = store.snapshot
        switch record.event {
        case .added(let id, _, _, _): return list.contains(id)
        case .renamed(let id, _, let newTitle): return String.sameBytes(list.label(id)?.title, newTitle)
        case .toggled(let id, let isEnabled): return list.label(id)?.isEnabled == isEnabled
        case .removed(let id, _, _, _): return !list.contains(id)
        case .moved(let id, _, _):
            guard let position = list.position(of: id) else { return false }
            let after = try store.state(atSeq: record.seq)
            guard let then = after.position(of: id) else { return false }
            return then == 0 ? position == 0 : position > 0 && list.id(at: position - 1) == after.id(at: then - 1)
        case .reordered: return list.ids == (try store.state(atSeq: record.seq).ids)
        case .rejected: return true
        }
    }

    /// The event that undoes `record`, given the store's current state, or why there is none.
    static func undoing(_ record: EventRecord, in store: LabelStore, path: String) throws -> Undo {
        let seq = record.seq
        let list = store.snapshot
        let at = "\(path): cannot revert seq \(seq) (\(record.event.kind))"
        let id = record.event.labelID
        let name = id.map { Writing.rawName($0, in: store) } ?? ""
        let conflicts = try RevertConflicts(after: seq, about: id, in: store)
        if let conflict = conflicts.conflict(undoing: record, unchanged: try unchanged(record, in: store), name: name, at: at) {
            throw Failure(conflict)
        }
        /// The label `id`, live (no conflict means no later removal).
        func live(_ id: LabelID) throws -> Label {
            guard let label = list.label(id) else { throw Failure("\(at): label \(name) is not in the list") }
            return label
        }

        switch record.event {
        case .added(let id, _, _, _):
            let label = try live(id)
            return .event(.removed(id: id, index: list.position(of: id)!, title: label.title, isEnabled: label.isEnabled))
        case .renamed(let id, let oldTitle, _):
            return .event(.renamed(id: id, oldTitle: try live(id).title, newTitle: oldTitle))
        case .toggled(let id, let isEnabled):
            _ = try live(id)
            return .event(.toggled(id: id, isEnabled: !isEnabled))
        case .removed(let id, _, let title, let isEnabled):
            let place = neighbourPosition(of: id, before: try store.state(atSeq: seq - 1), now: list)
            return .event(.added(id: id, title: title, isEnabled: isEnabled, index: place.position))
        case .moved(let id, _, _):
            guard let position = list.position(of: id) else { throw Failure("\(at): label \(name) is not in the list") }
            let place = neighbourPosition(of: id, before: try store.state(atSeq: seq - 1), now: list)
            guard place.position != position else {
                return .unchanged("label \(name) is already \(place.anchor), where it was before seq \(seq)")
            }
            return .event(.moved(id: id, from: position, to: place.position))
        case .reordered:
            return .event(.reordered(order: try store.state(atSeq: seq - 1).ids))
        case .rejected:
            preconditionFailure("an audit record is refused as a conflict")
        }
    }
}
