import EventLog

/// One subscriber's FIFO between the store's ``DeliveryQueue`` and the
/// subscriber's ``DeliveryTarget`` (the main actor, an actor, a queue).
///
/// The drainer of the delivery queue ``post(_:)``s each notification here
/// (in seq order, since the delivery queue is) and, when no run is scheduled,
/// schedules one on the target; it never waits for the target. A run
/// (``run(_:)``, on the target) takes the notifications in order and calls the
/// handler for each, at most ``batch`` per run; if more remain it schedules the
/// next run itself. At most one run is scheduled or running at a time (the
/// `scheduled` flag is cleared only by a run that found the FIFO empty, after
/// its last call returned), so the handler runs one call at a time, in seq
/// order, each notification once, whatever the target's executor.
///
/// Buffering is unbounded: a target that falls behind holds one
/// ``ChangeNotification`` per record it has not run yet (nothing is dropped,
/// writers are never slowed).
///
/// ``cancel()`` discards what is queued and makes later posts and runs do
/// nothing; a call already running finishes.
///
/// Thread safety: all state is behind a lock (`Locked`), held only to push,
/// pop or flag — never while the handler or the scheduling closure runs.
final class DeliveryMailbox: Sendable {
    private struct State {
        var items: [ChangeNotification] = []
        var head = 0
        /// A run is scheduled on the target or running.
        var scheduled = false
        var cancelled = false

        var pending: Int { items.count - head }

        /// Pops the next item, keeping the array compact.
        mutating func pop() -> ChangeNotification? {
            guard head < items.count else { return nil }
            let item = items[head]
            head += 1
            if head == items.count {
                items.removeAll(keepingCapacity: items.count <= 1024)
                head = 0
            } else if head >= 1024, head * 2 >= items.count {
                items.removeFirst(head)
                head = 0
            }
            return item
        }
    }

    /// The most handler calls one run makes before it schedules the next run.
    static let batch = 128

    private let state = Locked(State())
    /// Schedules one ``run(_:)`` of the mailbox on the target.
    private let schedule: @Sendable (DeliveryMailbox) -> Void

    /// A mailbox whose runs `schedule` puts on the target (it is passed the
    /// mailbox, so the closure need not capture it).
    init(schedule: @escaping @Sendable (DeliveryMailbox) -> Void) {
        self.schedule = schedule
    }

    /// Queues `notification` (call in seq order, with no store lock held) and
    /// schedules a run if none is. Does nothing once cancelled.
    func post(_ notification: ChangeNotification) {
        let start = state.withLock { s -> Bool in
            guard !s.cancelled else { return false }
            s.items.append(notification)
            guard !s.scheduled else { return false }
            s.scheduled = true
            return true
        }
        if start { schedule(self) }
    }

    /// Discards the queued notifications; later posts and runs do nothing.
    func cancel() {
        state.withLock { s in
            s.cancelled = true
            s.items = []
            s.head = 0
        }
    }

    /// Whether ``cancel()`` was called.
    var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// The number of notifications queued and not yet run (for tests and diagnostics).
    var pendingCount: Int { state.withLock { $0.pending } }

    /// Calls `handler` now, on the caller (which must be the target, e.g. the
    /// main actor for a main-actor mailbox), for every queued notification, in
    /// order. A run already scheduled then finds fewer (or none) and ends as
    /// usual, so each notification is still handled once. Does nothing once
    /// cancelled. The caller must not drain from inside `handler`.
    func drain(_ handler: (ChangeNotification) -> Void) {
        while let next = state.withLock({ s -> ChangeNotification? in s.cancelled ? nil : s.pop() }) {
            handler(next)
        }
    }

    /// One run, on the target: calls `handler` for up to ``batch`` queued
    /// notifications, in order, checking for cancellation before each; then
    /// either ends (nothing left, or cancelled) or schedules the next run.
    func run(_ handler: (ChangeNotification) -> Void) {
        for _ in 0..<Self.batch {
            let next = state.withLock { s -> ChangeNotification? in
                guard !s.cancelled, let item = s.pop() else {
                    s.scheduled = false
                    return nil
                }
                return item
            }
            guard let next else { return }
            handler(next)
        }
        let more = state.withLock { s -> Bool in
            guard !s.cancelled, s.pending > 0 else {
                s.scheduled = false
                return false
            }
            return true
        }
        if more { schedule(self) }
    }
}
