import EventLog
import Synchronization

/// A live callback subscription. Keep it while you want notifications.
///
/// Cancelling (``cancel()``, or releasing the last reference, which cancels)
/// unregisters the subscriber; after `cancel()` returns no new delivery to it
/// starts, though one already running on another thread may finish.
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

    /// Whether ``cancel()`` was called (or the store was closed).
    public var isCancelled: Bool { onCancel.withLock { $0 == nil } }

    deinit { cancel() }
}

/// One registered subscriber: its dependency and where its notifications go.
///
/// Thread safety: immutable except `cancelled`, an atomic flag set once and
/// checked before every delivery.
final class SubscriberBox: Sendable {
    /// Where notifications go.
    enum Sink: Sendable {
        case callback(@Sendable (ChangeNotification) -> Void)
        case stream(StreamBuffer)
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

    /// Marks the subscriber cancelled; queued notifications to it are dropped.
    func markCancelled() { cancelled.store(true, ordering: .releasing) }

    /// Hands `notification` to the callback or stream, unless cancelled.
    /// Never call this while holding a store lock.
    func deliver(_ notification: ChangeNotification) {
        guard !isCancelled else { return }
        switch sink {
        case .callback(let handler): handler(notification)
        case .stream(let buffer): buffer.offer(notification)
        }
    }

    /// Cancels and, for a stream, finishes it (its consumer still receives what
    /// it is owed, then the stream ends). Never call this while holding a store lock.
    func finish() {
        markCancelled()
        if case .stream(let buffer) = sink { buffer.finish() }
    }

    /// The stream buffer, for a stream subscriber.
    var streamBuffer: StreamBuffer? {
        if case .stream(let buffer) = sink { return buffer }
        return nil
    }
}
