import EventLog
import Foundation
import LabelProjection

/// The sync rules of docs/SYNC.md written again, plainly, over an array:
/// the reference the library's ``SyncState``/``SyncRebase`` are checked
/// against. Nothing here calls the library's rules.
struct PlainSyncList: Equatable {
    struct Item: Equatable {
        var id: LabelID
        var title: String
        var isEnabled: Bool
    }

    /// What a command became, by kind.
    enum Outcome: Equatable {
        case applied
        case satisfied
        case refused(SyncRefusal.Reason)
    }

    var live: [Item] = []
    var removed: Set<LabelID> = []
    var titleVersions: [LabelID: SyncCommand.TitleVersion] = [:]
    var lastSeq: UInt64 = 0

    func index(of id: LabelID) -> Int? { live.firstIndex { $0.id == id } }

    /// The intent a device makes for `command` here, or `nil` for a no-op.
    func intent(for command: LabelCommand) -> SyncCommand.Intent? {
        func anchors(_ ids: [LabelID], before end: Int) -> [LabelID] {
            Array(ids[..<min(end, ids.count)].reversed().prefix(SyncCommand.maxAnchors))
        }
        switch command {
        case .add(let title, let isEnabled, let id, let at):
            let index = at ?? live.count
            return .add(id: id!, title: title, isEnabled: isEnabled, after: anchors(live.map(\.id), before: index), index: index)
        case .rename(let id, let title):
            guard let i = index(of: id), live[i].title != title else { return nil }
            return .rename(id: id, title: title, read: titleVersions[id]!)
        case .setEnabled(let id, let isEnabled):
            guard let i = index(of: id), live[i].isEnabled != isEnabled else { return nil }
            return .setEnabled(id: id, isEnabled: isEnabled)
        case .toggle(let id):
            return .setEnabled(id: id, isEnabled: !live[index(of: id)!].isEnabled)
        case .remove(let id):
            return .remove(id: id)
        case .move(let id, let to):
            guard index(of: id) != to else { return nil }
            return .move(id: id, after: anchors(live.map(\.id).filter { $0 != id }, before: to), index: to)
        case .reverse:
            return live.count < 2 ? nil : .reorder(live.map(\.id).reversed())
        case .reorder(let ids):
            return ids == live.map(\.id) ? nil : .reorder(ids)
        }
    }

    /// Decides `command` here and applies it; `version` is the title version
    /// a title it sets gets (`nil`: the server's, the seq of its record);
    /// `resolve` maps a pending read to the version it stands for.
    mutating func push(
        _ command: SyncCommand, pendingVersion: SyncCommand.TitleVersion?,
        resolve: (UUID) -> SyncCommand.TitleVersion?
    ) -> Outcome {
        let outcome = decideAndApply(command.intent, resolve: resolve, nextVersion: pendingVersion ?? .server(seq: lastSeq + 1))
        switch outcome {
        case .applied, .refused: lastSeq += 1  // one record either way: the event, or the refusal
        case .satisfied: break
        }
        return outcome
    }

    private mutating func decideAndApply(
        _ intent: SyncCommand.Intent, resolve: (UUID) -> SyncCommand.TitleVersion?, nextVersion: SyncCommand.TitleVersion
    ) -> Outcome {
        func place(_ rest: [Item], after anchors: [LabelID], index: Int) -> Int {
            for anchor in anchors {
                if let i = rest.firstIndex(where: { $0.id == anchor }) { return i + 1 }
            }
            return Swift.max(0, Swift.min(index, rest.count))
        }
        switch intent {
        case .add(let id, let title, let isEnabled, let after, let at):
            if index(of: id) != nil || removed.contains(id) { return .satisfied }
            live.insert(Item(id: id, title: title, isEnabled: isEnabled), at: place(live, after: after, index: at))
            titleVersions[id] = nextVersion
            return .applied
        case .rename(let id, let title, let read):
            guard let i = index(of: id) else { return .refused(.labelRemoved) }
            if Array(live[i].title.utf8) == Array(title.utf8) { return .satisfied }
            let seen: SyncCommand.TitleVersion?
            if case .pending(let batch) = read { seen = resolve(batch) } else { seen = read }
            if seen == nil || seen != titleVersions[id] { return .refused(.titleChanged) }
            live[i].title = title
            titleVersions[id] = nextVersion
            return .applied
        case .setEnabled(let id, let isEnabled):
            guard let i = index(of: id) else { return .refused(.labelRemoved) }
            if live[i].isEnabled == isEnabled { return .satisfied }
            live[i].isEnabled = isEnabled
            return .applied
        case .remove(let id):
            guard let i = index(of: id) else { return .satisfied }
            live.remove(at: i)
            removed.insert(id)
            return .applied
        case .move(let id, let after, let at):
            guard let from = index(of: id) else { return .refused(.labelRemoved) }
            var rest = live
            let item = rest.remove(at: from)
            let to = place(rest, after: after.filter { $0 != id }, index: at)
            if to == from { return .satisfied }
            rest.insert(item, at: to)
            live = rest
            return .applied
        case .reorder(let wanted):
            var known: [LabelID] = []
            for id in wanted where index(of: id) != nil && !known.contains(id) { known.append(id) }
            if known.isEmpty { return wanted.isEmpty ? .satisfied : .refused(.labelRemoved) }
            let slots = live.indices.filter { known.contains(live[$0].id) }
            var order = live
            for (slot, id) in zip(slots, known) { order[slot] = live[index(of: id)!] }
            if order == live { return .satisfied }
            live = order
            return .applied
        }
    }
}
