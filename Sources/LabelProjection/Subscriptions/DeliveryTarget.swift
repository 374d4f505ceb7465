import Dispatch
import EventLog

/// Where a subscriber's handler runs: ``writer`` (the default, as
/// ``LabelStore/subscribe(to:_:)``), ``mainActor``, ``actor(_:)`` or
/// ``queue(_:)``. Pass it to ``LabelStore/subscribe(to:on:_:)`` or
/// ``LabelStore/subscribe(to:from:on:_:)``.
///
/// `Handler` is the type of handler the target takes, so the compiler checks
/// what the handler may touch:
///
/// | target | handler | runs |
/// |---|---|---|
/// | ``writer`` | `@Sendable (ChangeNotification) -> Void` | on the thread of the writer that drains the store's delivery queue, before that write returns |
/// | ``mainActor`` | `@MainActor @Sendable (ChangeNotification) -> Void` | on the main actor, later |
/// | ``actor(_:)`` | `@Sendable (isolated A, ChangeNotification) -> Void` | isolated to that actor, later |
/// | ``queue(_:)`` | `@Sendable (ChangeNotification) -> Void` | on that dispatch queue, one at a time even if it is concurrent, later |
///
/// ```swift
/// let title = store.subscribe(to: .title(id), on: .mainActor) { change in
///     label.text = change.title?.new       // main-actor code, checked by the compiler
/// }
/// let audit = store.subscribe(to: .everything, on: .actor(auditor)) { auditor, change in
///     auditor.note(change)                  // isolated to `auditor`: no await
/// }
/// ```
///
/// For every target the ordering guarantees of ``LabelStore/subscribe(to:on:_:)``
/// hold per subscriber: notifications arrive in seq order, one at a time, each
/// once, after the store applied the record.
///
/// How the targets other than ``writer`` work: the writer that drains the
/// store's delivery queue hands the notification to the subscriber's own FIFO
/// (which it never waits on) and, if no run of that FIFO is scheduled,
/// schedules one on the target (a `Task` on the main actor or the actor, a
/// `DispatchQueue.async` block). A run calls the handler for queued
/// notifications in order, at most 128 per run (then it schedules the next run,
/// so a long backlog does not monopolize the main actor), and only one run per
/// subscriber is scheduled or running at a time — that is what serializes the
/// handler, also on a concurrent queue.
public struct DeliveryTarget<Handler: Sendable>: Sendable, CustomStringConvertible {
    /// The target's name: `writer`, `mainActor`, `actor(<type>)` or `queue(<label>)`.
    public let description: String
    /// Wraps a handler into where the store's deliveries go.
    let makeSink: @Sendable (Handler) -> SubscriberBox.Sink

    init(description: String, makeSink: @escaping @Sendable (Handler) -> SubscriberBox.Sink) {
        self.description = description
        self.makeSink = makeSink
    }
}

extension DeliveryTarget where Handler == @Sendable (ChangeNotification) -> Void {
    /// The writer's thread, as ``LabelStore/subscribe(to:_:)``: the handler runs
    /// synchronously, outside the store's lock, on the thread of whichever
    /// writer drains the store's delivery queue — usually the writer of that
    /// record, before its write returns, but possibly a later writer's thread.
    public static var writer: DeliveryTarget { DeliveryTarget(description: "writer") { .callback($0) } }

    /// A dispatch queue: the handler runs on `queue`, one call at a time even
    /// when `queue` is concurrent (only one block per subscriber is submitted
    /// or running at a time). Each subscriber has its own FIFO, so two
    /// subscribers on one concurrent queue may run at the same time.
    public static func queue(_ queue: DispatchQueue) -> DeliveryTarget {
        DeliveryTarget(description: "queue(\(queue.label))") { handler in
            .target(DeliveryMailbox { mailbox in queue.async { mailbox.run(handler) } })
        }
    }
}

extension DeliveryTarget where Handler == @MainActor @Sendable (ChangeNotification) -> Void {
    /// The main actor: the handler is `@MainActor`, so it may update UI state
    /// directly. It never runs inside the write that caused it, even when that
    /// write was made on the main actor; it runs on a later turn of the main
    /// actor. (Apps and async mains run main-actor jobs; a command-line tool
    /// with a synchronous `main` must run the main queue, e.g. `dispatchMain()`.)
    public static var mainActor: DeliveryTarget {
        DeliveryTarget(description: "mainActor") { handler in
            .target(DeliveryMailbox { mailbox in Task { @MainActor in mailbox.run { handler($0) } } })
        }
    }
}

extension DeliveryTarget {
    /// An actor: the handler runs isolated to `actor`, which it receives as
    /// its first parameter (so it uses the actor's state without `await`).
    /// The subscription holds `actor` strongly until it ends.
    ///
    /// Each run is a task on the actor's executor — for a default actor, Swift's
    /// cooperative pool, one thread per core. Code that blocks those threads
    /// (a semaphore wait, a synchronous child-process wait inside a task)
    /// delays delivery until they are free; nothing is lost, it runs later.
    public static func actor<A: Actor>(_ actor: A) -> DeliveryTarget
    where Handler == @Sendable (isolated A, ChangeNotification) -> Void {
        DeliveryTarget(description: "actor(\(A.self))") { handler in
            .target(DeliveryMailbox { mailbox in Task { await runIsolated(to: actor, mailbox, handler) } })
        }
    }
}

/// One run of `mailbox` isolated to `actor` (see ``DeliveryTarget/actor(_:)``).
private func runIsolated<A: Actor>(
    to actor: isolated A, _ mailbox: DeliveryMailbox, _ handler: @Sendable (isolated A, ChangeNotification) -> Void
) {
    mailbox.run { handler(actor, $0) }
}
