import EventLog
import Synchronization

/// A live callback subscription. Keep it while you want notifications.
///
/// Cancelling (``cancel()``, or releasing the last reference, which cancels)
/// unregisters the subscriber; after `cancel()` returns no new call of its
/// handler starts, though one already running on another thread may finish.
/// For a subscriber with a ``DeliveryTarget`` other than
/// ``DeliveryTarget/writer``, the notifications already handed to the target
/// and not yet run are discarded: the run scheduled on the target finds the
/// subscription cancelled and calls nothing. So cancelling *on the target*
/// (e.g. on the main actor, for ``DeliveryTarget/mainActor``, or in the
/// handler itself) is exact: no call at all follows it.
///
/// Closing or releasing the store also ends the subscription (with no call
/// to ``cancel()``, so ``isCancelled`` stays `false`): no notification for a
/// later record, and every notification for a record applied before the
/// close is still delivered — also those still waiting in the store's
/// delivery queue behind another subscriber's slow handler — whatever the
/// target.
///
/// Thread safety: `cancel()` may be called from any thread, any number of
/// times, including from inside the subscriber's own callback.
public final class Subscription: Sendable {
    /// What the subscriber depends on.
    public let dependency: Dependency
    private let onCancel: Locked<(@Sendable () -> Void)?>

    init(dependency: Dependency, onCancel: @escaping @Sendable () -> Void) {
        self.dependency = dependency
        self.onCancel = Locked(onCancel)
    }

    /// Stops deliveries and unregisters the subscriber. Idempotent.
    public func cancel() {
        let action = onCancel.withLock { action in
            defer { action = nil }
            return action
        }
        action?()
    }

    /// Whether ``cancel()`` was called (or the subscription was refused because the store was closed).
    public var isCancelled: Bool { onCancel.withLock { $0 == nil } }

    deinit { cancel() }
}

/// One registered subscriber: its dependency and where its notifications go.
///
/// Thread safety: immutable except `cancelled`, an atomic flag set once and
/// checked before every delivery (and the mailbox or stream buffer, each
/// behind its own lock).
final class SubscriberBox: Sendable {
    /// Where notifications go.
    enum Sink: Sendable {
        /// A handler called on the thread that drains the delivery queue (``DeliveryTarget/writer``).
        case callback(@Sendable (ChangeNotification) -> Void)
        /// An async stream's buffer.
        case stream(StreamBuffer)
        /// A handler run elsewhere (the main actor, an actor, a queue), fed through its mailbox.
        case target(DeliveryMailbox)
    }

    let id: UInt64
    let dependency: Dependency
    let sink: Sink
    private let cancelled = Atomic<Bool>(false)

    init(id: UInt64, dependency: Dependency, sink: Sink) {
        self.id = id
        self.dependency = dependency
        self.sink = sink
    }

    var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    /// Marks the subscriber cancelled; notifications still in the delivery queue for it are dropped.
    func markCancelled() { cancelled.store(true, ordering: .releasing) }

    /// Hands `notification` to the callback, stream or mailbox, unless cancelled.
    /// Never call this while holding a store lock.
    func deliver(_ notification: ChangeNotification) {
        guard !isCancelled else { return }
        switch sink {
        case .callback(let handler): handler(notification)
        case .stream(let buffer): buffer.offer(notification)
        case .target(let mailbox): mailbox.post([notification])
        }
    }

    /// Cancels and, for a stream, finishes it (its consumer still receives what
    /// it is owed, then the stream ends); a mailbox still runs what it holds.
    /// For a subscriber that was never registered, or that has nothing in the
    /// delivery queue. Never call this while holding a store lock.
    func finish() {
        markCancelled()
        if case .stream(let buffer) = sink { buffer.finish() }
    }

    /// The end of a subscription the store closed (or let go of), reached in
    /// the delivery queue's order: every notification queued for it before
    /// was handed over, so a stream ends after them (catching up from the log
    /// for what it dropped), and a mailbox runs them. Not a cancellation: a
    /// notification queued earlier is never dropped. Never call this while
    /// holding a store lock.
    func end() {
        if case .stream(let buffer) = sink { buffer.finish() }
    }

    /// The mailbox, for a subscriber with a target other than the writer's thread.
    var mailbox: DeliveryMailbox? {
        if case .target(let mailbox) = sink { return mailbox }
        return nil
    }

    /// The stream buffer, for a stream subscriber.
    var streamBuffer: StreamBuffer? {
        if case .stream(let buffer) = sink { return buffer }
        return nil
    }
}
