import EventLog
import LabelProjection

/// `revert LOG SEQ`: appends the event that undoes record SEQ. History is never rewritten.
enum Revert: Command {
    static let spec = CommandSpec(
        name: "revert",
        abstract: "Append the event that undoes the event at a seq (history is never rewritten).",
        discussion: """
            The undo of added is a removal, of renamed the rename back, of toggled the toggle back, of removed the \
            label added again (same id, title and state, at its old position or the end if the list is shorter now), \
            of moved the move back, of reordered the previous order.

            It is refused (exit 1) when undoing would also undo or contradict something later: the label was changed \
            again (its version is a later seq), removed, or added back; for moves and reorders, the list's order or \
            membership changed again. Revert the later change first. Audit records and events that changed nothing \
            have nothing to undo. The new record's note defaults to "revert of seq N".
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
            guard let record = try store.storage.read(from: seq, maxCount: 1).first else {
                throw Failure("\(path): seq \(seq) could not be read")
            }
            let undo = try undoing(record, in: store, path: path)
            let entry = LogEntry(undo, actor: options.actor, note: options.note ?? "revert of seq \(seq)")
            return (try store.append(entries: [entry]), "")
        }
    }

    /// The event that undoes `record`, given the store's current state, or why there is none.
    static func undoing(_ record: EventRecord, in store: LabelStore, path: String) throws -> LabelEvent {
        let seq = record.seq
        let list = store.snapshot
        let at = "\(path): cannot revert seq \(seq) (\(record.event.kind))"

        /// The live label `id`, unchanged since `seq`.
        func unchangedLabel(_ id: LabelID) throws -> Label {
            guard let label = list.label(id) else {
                let removed = list.removal(of: id).map { " at seq \($0)" } ?? ""
                throw Failure("\(at): label \(id) was removed\(removed); nothing is left to undo it on")
            }
            guard label.version == seq else {
                if label.version < seq { throw Failure("\(at): the event changed nothing") }
                throw Failure("\(at): label \(id) was changed again at seq \(label.version); revert seq \(label.version) first")
            }
            return label
        }
        /// Fails unless the list's order and membership are still as `seq` left them.
        func unchangedOrder() throws {
            guard list.listVersion == seq else {
                if list.listVersion < seq { throw Failure("\(at): the event changed nothing") }
                throw Failure(
                    "\(at): the list's order or membership changed again at seq \(list.listVersion); revert seq \(list.listVersion) first")
            }
        }

        switch record.event {
        case .added(let id, _, _, _):
            let label = try unchangedLabel(id)
            return .removed(id: id, index: list.position(of: id)!, title: label.title, isEnabled: label.isEnabled)
        case .renamed(let id, let oldTitle, let newTitle):
            _ = try unchangedLabel(id)
            return .renamed(id: id, oldTitle: newTitle, newTitle: oldTitle)
        case .toggled(let id, let isEnabled):
            _ = try unchangedLabel(id)
            return .toggled(id: id, isEnabled: !isEnabled)
        case .removed(let id, let index, let title, let isEnabled):
            if list.contains(id) { throw Failure("\(at): label \(id) was added again at seq \(list.labelVersion(id) ?? 0)") }
            if let removal = list.removal(of: id), removal != seq {
                throw Failure("\(at): label \(id) was added again and removed again at seq \(removal); revert seq \(removal) instead")
            }
            return .added(id: id, title: title, isEnabled: isEnabled, index: min(index, list.count))
        case .moved(let id, let from, _):
            try unchangedOrder()
            guard let position = list.position(of: id) else { throw Failure("\(at): label \(id) is not in the list") }
            return .moved(id: id, from: position, to: from)
        case .reordered:
            try unchangedOrder()
            return .reordered(order: try store.state(atSeq: seq - 1).ids)
        case .rejected:
            throw Failure("\(at): it is an audit record of a refused edit; it changed nothing")
        }
    }
}
