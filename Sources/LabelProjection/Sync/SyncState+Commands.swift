import EventLog
import Foundation

extension SyncState {
    /// The sync command a device makes for `command` on this (optimistic)
    /// state: the intent by ids, with the version of the title a rename
    /// read and the anchors an add or a move is placed after. `nil` when the
    /// command changes nothing here (nothing to sync).
    ///
    /// - Throws: ``StoreError`` for a command the list refuses here (an
    ///   unknown or removed id, a position out of range, a bad title), as
    ///   ``LabelStore/execute(_:options:)-8dri1`` refuses it.
    public func syncCommand(
        for command: LabelCommand, batchID: UUID = UUID(), actor: String? = nil, note: String? = nil,
        madeAt: EventTimestamp = .now()
    ) throws(StoreError) -> SyncCommand? {
        let events = try list.events(for: command)
        guard !events.isEmpty else { return nil }
        let intent: SyncCommand.Intent
        switch command {
        case .add(let title, let isEnabled, _, let at):
            guard case .added(let id, _, _, let index) = events[0] else { return nil }
            intent = .add(id: id, title: title, isEnabled: isEnabled, after: anchors(before: index, without: nil), index: at ?? index)
        case .rename(let id, let title):
            guard let read = titleVersion(of: id) else { return nil }
            intent = .rename(id: id, title: title, read: read)
        case .setEnabled(let id, let isEnabled):
            intent = .setEnabled(id: id, isEnabled: isEnabled)
        case .toggle(let id):
            guard case .toggled(_, let isEnabled) = events[0] else { return nil }
            intent = .setEnabled(id: id, isEnabled: isEnabled)
        case .remove(let id):
            intent = .remove(id: id)
        case .move(let id, let to):
            intent = .move(id: id, after: anchors(before: to, without: id), index: to)
        case .reverse, .reorder:
            guard case .reordered(let order) = events[0] else { return nil }
            intent = .reorder(order)
        }
        return SyncCommand(intent, batchID: batchID, actor: actor, note: note, madeAt: madeAt)
    }

    /// The ids before position `index` of the list without `moving` (the
    /// nearest first, at most ``SyncCommand/maxAnchors``).
    private func anchors(before index: Int, without moving: LabelID?) -> [LabelID] {
        let from = moving.flatMap { list.position(of: $0) }
        let count = list.count - (from == nil ? 0 : 1)
        var anchors: [LabelID] = []
        var position = min(index, count) - 1
        while position >= 0, anchors.count < SyncCommand.maxAnchors {
            // A position in the list without the label moved, in the list itself.
            anchors.append(list.id(at: from.map { position >= $0 ? position + 1 : position } ?? position))
            position -= 1
        }
        return anchors
    }
}
