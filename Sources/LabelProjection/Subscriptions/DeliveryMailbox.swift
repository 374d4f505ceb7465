import EventLog

/// One subscriber's FIFO between the store's ``DeliveryQueue`` and the
/// subscriber's ``DeliveryTarget`` (the main actor, an actor, a queue).
///
/// The drainer of the delivery queue ``post(_:)``s each record's
/// notifications here together (in seq order, since the delivery queue is)
/// and, when no run is scheduled, schedules one on the target; it never waits
/// for the target. A run (``run(_:)``, on the target) takes the notifications
/// in order and calls the handler for each, ending only at a record's end:
/// after about ``batch`` calls it stops at the next change of seq and, if more
/// remain, schedules the next run itself. So every subscriber sharing the
/// mailbox (a list model and its views) handles a record in the same run —
/// one main-actor job — and a frame drawn between jobs never sees the list
/// and a view at different records. At most one run is scheduled or running at a time (the
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

    /// The handler calls after which a run ends at the next record boundary
    /// and schedules the next run (a record's notifications are never split).
    static let batch = 128

    private let state = Locked(State())
    /// Schedules one ``run(_:)`` of the mailbox on the target.
    private let schedule: @Sendable (DeliveryMailbox) -> Void

    /// A mailbox whose runs `schedule` puts on the target (it is passed the
    /// mailbox, so the closure need not capture it).
    init(schedule: @escaping @Sendable (DeliveryMailbox) -> Void) {
        self.schedule = schedule
    }

    /// Queues `notifications` — every notification of one record for this
    /// mailbox's subscribers, in subscription order — at once (call in seq
    /// order, with no store lock held), and schedules a run if none is. Does
    /// nothing once cancelled.
    func post(_ notifications: [ChangeNotification]) {
        guard !notifications.isEmpty else { return }
        let start = state.withLock { s -> Bool in
            guard !s.cancelled else { return false }
            s.items.append(contentsOf: notifications)
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

    /// One run, on the target: calls `handler` for the queued notifications,
    /// in order, checking for cancellation before each, until ``batch`` calls
    /// were made and the next notification is of another record; then either
    /// ends (nothing left, or cancelled) or schedules the next run.
    func run(_ handler: (ChangeNotification) -> Void) {
        var calls = 0
        var lastSeq: UInt64 = 0
        while true {
            let step = state.withLock { s -> RunStep in
                guard !s.cancelled, s.head < s.items.count else {
                    s.scheduled = false
                    return .finished
                }
                if calls >= Self.batch, s.items[s.head].seq != lastSeq { return .yield }
                return s.pop().map(RunStep.handle) ?? .finished
            }
            switch step {
            case .handle(let next):
                handler(next)
                calls += 1
                lastSeq = next.seq
            case .finished:
                return
            case .yield:
                schedule(self)
                return
            }
        }
    }

    /// What a run does next.
    private enum RunStep {
        /// Hand this notification to the handler.
        case handle(ChangeNotification)
        /// Nothing left (or cancelled): the run ends and `scheduled` is cleared.
        case finished
        /// A full batch ended at a record boundary and more remain: the next run is scheduled.
        case yield
    }
}
