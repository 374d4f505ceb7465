import EventLog

/// The events that turn one list into another: how a synced store's list,
/// after a sync, becomes the device's new optimistic list (the server's, with
/// the edits still pending on top), told to its subscribers as ordinary
/// changes — only what differs.
enum SyncCorrections {
    /// Events that, folded in order into `old`, give `new`'s live labels —
    /// the same ids, titles (byte for byte), `isEnabled` and order: removals,
    /// then renames and toggles, then additions (at the end), then one
    /// reorder if the order still differs.
    static func events(from old: LabelList, to new: LabelList) -> [LabelEvent] {
        var events: [LabelEvent] = []
        var order = old.ids
        // Removed: live before, not now.
        var position = 0
        while position < order.count {
            let id = order[position]
            if new.contains(id) {
                position += 1
                continue
            }
            let label = old.label(id)!
            events.append(.removed(id: id, index: position, title: label.title, isEnabled: label.isEnabled))
            order.remove(at: position)
        }
        // Changed: live in both.
        for id in order {
            let before = old.label(id)!
            let after = new.label(id)!
            if !String.sameBytes(before.title, after.title) {
                events.append(.renamed(id: id, oldTitle: before.title, newTitle: after.title))
            }
            if before.isEnabled != after.isEnabled { events.append(.toggled(id: id, isEnabled: after.isEnabled)) }
        }
        // Added: live now, not before.
        let kept = Set(order)
        for label in new.labels where !kept.contains(label.id) {
            events.append(.added(id: label.id, title: label.title, isEnabled: label.isEnabled, index: order.count))
            order.append(label.id)
        }
        if order != new.ids { events.append(.reordered(order: new.ids)) }
        return events
    }
}
