import EventLog
import Foundation

/// The rule that decides a device's command against the server list's state
/// when it arrives (docs/SYNC.md, "Pushing"): per property, by the rule of
/// its kind, never by an index another device's edits shifted.
///
/// - add: applied, after the nearest of its anchors that is live, else at
///   its index clamped; an id the list already knows is satisfied (the
///   command was applied before).
/// - rename: refused if the label is not live ("label was removed");
///   satisfied if its title already is the one wanted (the same bytes);
///   refused if its title's version is not the one the device read ("title
///   was changed on another device"); else applied.
/// - setEnabled: refused if the label is not live; satisfied if the value is
///   already the one wanted; else applied.
/// - remove: satisfied if the label is not live; else applied.
/// - move: refused if the label is not live; placed as an add is; satisfied
///   if it is there already.
/// - reorder: its live labels take, in its order, the positions they hold;
///   every other label keeps its own; refused if none of its labels is live,
///   satisfied if nothing moves.
///
/// Pure: the same command on the same state decides the same, on every device.
public enum SyncRebase {
    /// Decides `command` on `state`. `resolving` maps the batch id of a
    /// pending command the device read a title from to the version that
    /// command's title has now (on the server: `server(seq:)` once it was
    /// applied there; `nil` if it was refused, so nothing it set is current).
    /// By default a pending version stands for itself (the device's own view).
    public static func decide(
        _ command: SyncCommand, on state: SyncState,
        resolving: (UUID) -> SyncCommand.TitleVersion? = { .pending(batch: $0) }
    ) -> SyncDecision {
        let list = state.list
        switch command.intent {
        case .add(let id, let title, let isEnabled, let after, let index):
            if list.contains(id) || list.removal(of: id) != nil { return .satisfied }
            let at = placement(in: list, moving: nil, after: after, index: index)
            return .apply([.added(id: id, title: title, isEnabled: isEnabled, index: at)])

        case .rename(let id, let title, let read):
            guard let label = list.label(id) else { return .refused(SyncRefusal(.labelRemoved)) }
            // The title wanted is the title there (this rename, resent, or another device's to the same
            // bytes): nothing to write and nothing overwritten, whatever the version.
            if String.sameBytes(label.title, title) { return .satisfied }
            let seen: SyncCommand.TitleVersion?
            switch read {
            case .server: seen = read
            case .pending(let batch): seen = resolving(batch)
            }
            guard let seen, seen == state.titleVersion(of: id) else { return .refused(SyncRefusal(.titleChanged)) }
            return .apply([.renamed(id: id, oldTitle: label.title, newTitle: title)])

        case .setEnabled(let id, let isEnabled):
            guard let label = list.label(id) else { return .refused(SyncRefusal(.labelRemoved)) }
            return label.isEnabled == isEnabled ? .satisfied : .apply([.toggled(id: id, isEnabled: isEnabled)])

        case .remove(let id):
            guard let label = list.label(id), let index = list.position(of: id) else { return .satisfied }
            return .apply([.removed(id: id, index: index, title: label.title, isEnabled: label.isEnabled)])

        case .move(let id, let after, let index):
            guard let from = list.position(of: id) else { return .refused(SyncRefusal(.labelRemoved)) }
            let to = placement(in: list, moving: id, after: after, index: index)
            return to == from ? .satisfied : .apply([.moved(id: id, from: from, to: to)])

        case .reorder(let wanted):
            guard let order = rebased(wanted, on: list.ids, isLive: list.contains) else {
                return .refused(SyncRefusal(.labelRemoved))
            }
            return order == list.ids ? .satisfied : .apply([.reordered(order: order)])
        }
    }

    /// The events the server list appends for `decision` on `command`: its
    /// events, its refusal's `rejected` record, or none when satisfied.
    public static func events(for decision: SyncDecision, of command: SyncCommand) -> [LabelEvent] {
        switch decision {
        case .apply(let events): events
        case .satisfied: []
        case .refused(let refusal): [refusal.record(for: command)]
        }
    }

    /// Where a label goes: the position after the first of `anchors` that is
    /// live (and is not the label moved), counted in the list without the
    /// label moved; else `index` clamped to that list's end.
    static func placement(in list: LabelList, moving: LabelID?, after anchors: [LabelID], index: Int) -> Int {
        let from = moving.flatMap { list.position(of: $0) }
        let count = list.count - (from == nil ? 0 : 1)
        for anchor in anchors where anchor != moving {
            guard let position = list.position(of: anchor) else { continue }
            let shifted = from.map { position > $0 ? position - 1 : position } ?? position
            return shifted + 1
        }
        return min(max(index, 0), count)
    }

    /// `current` with the live labels of `wanted` (each once, in `wanted`'s
    /// order) in the positions they hold in `current`; every other label
    /// where it is. `nil` when no label of `wanted` is live (an empty
    /// `wanted` changes nothing: `current`).
    static func rebased(_ wanted: [LabelID], on current: [LabelID], isLive: (LabelID) -> Bool) -> [LabelID]? {
        var seen = Set<LabelID>()
        let known = wanted.filter { isLive($0) && seen.insert($0).inserted }
        if known.isEmpty { return wanted.isEmpty ? current : nil }
        var order = current
        var next = known.makeIterator()
        for (position, id) in current.enumerated() where seen.contains(id) {
            order[position] = next.next()!
        }
        return order
    }
}
