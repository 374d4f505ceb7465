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
///   notifications are delivered after the current callback returns.
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
            let (item, released) = next()
            _ = released
            guard let item else { return }
            if let notification = item.notification {
                item.subscriber.deliver(notification)
            } else {
                item.subscriber.end()
            }
        }
    }

    /// Pops the next item (or ends the drain when the queue is empty), and
    /// hands back storage to release once the lock is dropped.
    private func next() -> (Item?, [Item]) {
        state.withLock { s in
            guard s.head < s.items.count else {
                let released = s.items
                s.items = []
                s.head = 0
                s.draining = false
                return (nil, released)
            }
            let item = s.items[s.head]
            s.head += 1
            var released: [Item] = []
            if s.head >= 1024, s.head * 2 >= s.items.count {
                released = s.items
                s.items = Array(released[s.head...])
                s.head = 0
            }
            return (item, released)
        }
    }
}
