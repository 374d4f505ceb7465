import EventLog

/// The FIFO through which every notification reaches its subscriber.
///
/// Writers enqueue while they hold the store lock, so the queue is in seq
/// order. Delivery happens outside the store lock: after releasing it, a
/// writer calls ``drain()``; if no thread is draining, it becomes the
/// drainer and delivers items one at a time until the queue is empty,
/// otherwise it returns at once and the active drainer delivers its items
/// too. Consequences callers can rely on:
/// - notifications are delivered one at a time, in seq order, never
///   concurrently with each other;
/// - a callback may run on the thread of a later writer;
/// - a write made inside a callback does not deadlock: it enqueues, and its
///   notifications are delivered after the current callback returns;
/// - one record's notifications to the subscribers that share a
///   ``DeliveryMailbox`` are posted to it together, in one step
///   (``DeliveryMailbox/post(_:)``), so a run of the mailbox never sees part
///   of a record: a list model and its views apply a record in one job.
///
/// Thread safety: all state is behind a lock (`Locked`), held only to push or pop.
final class DeliveryQueue: Sendable {
    /// One notification for one subscriber, or the end of its subscription
    /// (`nil`: the store closed or went away; everything queued before it for
    /// that subscriber is delivered first, then its stream ends).
    struct Item: Sendable {
        let subscriber: SubscriberBox
        let notification: ChangeNotification?
    }

    private struct State {
        var items: [Item] = []
        var head = 0
        var draining = false
    }

    private let state = Locked(State())

    /// Appends items (call while holding the store lock, to keep seq order).
    func enqueue(_ items: [Item]) {
        guard !items.isEmpty else { return }
        state.withLock { $0.items.append(contentsOf: items) }
    }

    /// Delivers queued items unless another thread is already doing so.
    /// Call with no lock held.
    func drain() {
        let becameDrainer = state.withLock { s in
            if s.draining || s.head == s.items.count { return false }
            s.draining = true
            return true
        }
        guard becameDrainer else { return }
        while true {
            // Items are released outside the lock: releasing a subscriber can run
            // arbitrary deinit code (e.g. a captured Subscription cancelling itself).
            let (group, released) = nextGroup()
            _ = released
            guard !group.isEmpty else { return }
            deliver(group)
        }
    }

    /// Delivers one record's items (or one end of a subscription): to
    /// callbacks and streams one by one, in order; to each mailbox all of its
    /// subscribers' notifications in one post, in order.
    private func deliver(_ group: ArraySlice<Item>) {
        guard group.count > 1 else {
            let item = group[group.startIndex]
            if let notification = item.notification {
                item.subscriber.deliver(notification)
            } else {
                item.subscriber.end()
            }
            return
        }
        var mailboxes: [(mailbox: DeliveryMailbox, notifications: [ChangeNotification])] = []
        for item in group {
            guard let notification = item.notification else {
                item.subscriber.end()
                continue
            }
            guard case .target(let mailbox) = item.subscriber.sink else {
                item.subscriber.deliver(notification)
                continue
            }
            guard !item.subscriber.isCancelled else { continue }
            if let at = mailboxes.firstIndex(where: { $0.mailbox === mailbox }) {
                mailboxes[at].notifications.append(notification)
            } else {
                mailboxes.append((mailbox, [notification]))
            }
        }
        for (mailbox, notifications) in mailboxes { mailbox.post(notifications) }
    }

    /// Pops the next group: the items of one record (consecutive, since a
    /// record's items are enqueued together) or one end of a subscription;
    /// empty (ending the drain) when the queue is. Hands back storage to
    /// release once the lock is dropped.
    private func nextGroup() -> (ArraySlice<Item>, [Item]) {
        state.withLock { s in
            guard s.head < s.items.count else {
                let released = s.items
                s.items = []
                s.head = 0
                s.draining = false
                return ([], released)
            }
            let start = s.head
            s.head += 1
            if let seq = s.items[start].notification?.seq {
                while s.head < s.items.count, s.items[s.head].notification?.seq == seq { s.head += 1 }
            }
            let group = s.items[start..<s.head]
            var released: [Item] = []
            if s.head >= 1024, s.head * 2 >= s.items.count {
                released = s.items
                s.items = Array(released[s.head...])
                s.head = 0
            }
            return (group, released)
        }
    }
}
