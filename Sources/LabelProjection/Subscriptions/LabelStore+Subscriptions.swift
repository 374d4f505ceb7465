import EventLog

extension LabelStore {
    /// Calls `handler` for every future record that changes `dependency`
    /// (see ``Dependency`` for exactly which), with old and new values, on the
    /// writer's thread: the same as ``subscribe(to:on:_:)`` with
    /// ``DeliveryTarget/writer``.
    ///
    /// Delivery guarantees (those of ``subscribe(to:on:_:)``, for this target):
    /// - after the store applied the record: reading the store in the handler
    ///   shows this change (or a later one);
    /// - in seq order, one at a time (never two handlers concurrently, of this
    ///   or any other writer-thread subscriber), each notification once,
    ///   outside the store's lock, on the thread of whichever writer drains
    ///   the delivery queue — usually the writer of that record, before its
    ///   write returns;
    /// - the handler may call the store, including writing; such a write's
    ///   notifications are delivered after the current handler returns.
    ///
    /// Keep the returned ``Subscription``: releasing it cancels.
    ///
    /// - Complexity: O(1), except that the first subscriber to a ``Dependency/view(_:)``
    ///   query builds the maintained view, O(n) matches over the n labels (every write
    ///   then updates it, see ``FilteredView/apply(_:in:)``, until its last subscriber
    ///   goes).
    public func subscribe(to dependency: Dependency, _ handler: @escaping @Sendable (ChangeNotification) -> Void) -> Subscription {
        subscribe(to: dependency, on: .writer, handler)
    }

    /// Calls `handler` for every future record that changes `dependency`
    /// (see ``Dependency`` for exactly which), with old and new values, where
    /// `target` says: ``DeliveryTarget/writer`` (the writer's thread, as
    /// ``subscribe(to:_:)``), ``DeliveryTarget/mainActor`` (a `@MainActor`
    /// handler), ``DeliveryTarget/actor(_:)`` (a handler isolated to that actor)
    /// or ``DeliveryTarget/queue(_:)`` (a dispatch queue).
    ///
    /// ```swift
    /// let subscription = store.subscribe(to: .membership, on: .mainActor) { change in
    ///     rows = store.labels                     // on the main actor
    /// }
    /// ```
    ///
    /// Delivery guarantees, for every target, per subscriber:
    /// - **Order**: notifications arrive in seq order, one at a time (a call
    ///   never overlaps another call of the same handler, even on a concurrent
    ///   queue), each once. Nothing is dropped: a target that falls behind
    ///   buffers the notifications it has not run yet, one
    ///   ``ChangeNotification`` each, without bound and without slowing writers.
    /// - **After the write**: a notification is handed on only after the store
    ///   applied (and, per its durability, made durable) the record, so reading
    ///   the store in the handler shows this change or a later one. For a target
    ///   other than ``DeliveryTarget/writer`` the handler runs later, on the
    ///   target, so the store may have moved on by then: the notification
    ///   carries the record's old and new values.
    /// - **Re-entrancy**: the handler may read and write the store. A write's
    ///   notifications are queued behind the current one and never delivered
    ///   inside it; writers never wait for a target, so a main-actor handler that
    ///   writes, or a writer on the main actor with main-actor subscribers, does
    ///   not deadlock. A ``DeliveryTarget/mainActor`` handler never runs inside
    ///   the write that caused it, even when that write was made on the main actor.
    /// - **Cancellation**: after ``Subscription/cancel()`` returns, no call of
    ///   the handler starts (one already running on another thread finishes);
    ///   notifications already handed to the target and not yet run are
    ///   discarded. Cancelling on the target itself (on the main actor for
    ///   ``DeliveryTarget/mainActor``, or from inside the handler) is exact.
    ///   Releasing the ``Subscription`` cancels.
    /// - **End**: closing or releasing the store ends the subscription: no
    ///   notification for a later record; those already handed to a target
    ///   (all for records applied before the close) still run, then the
    ///   subscription lets go of the handler. The handler does not keep the
    ///   store alive unless it captures it.
    ///
    /// Subscribers do not wait for each other across targets: a main-actor
    /// subscriber may run a notification after a writer-thread subscriber has
    /// already seen later ones.
    ///
    /// - Complexity: O(1), except that the first subscriber to a ``Dependency/view(_:)``
    ///   query builds the maintained view, O(n) matches over the n labels. Delivery to a
    ///   target other than the writer's thread costs the writer a lock and an append
    ///   per notification, and a scheduled run (a `Task` or a dispatch block) per at most
    ///   128 notifications.
    public func subscribe<Handler>(
        to dependency: Dependency, on target: DeliveryTarget<Handler>, _ handler: Handler
    ) -> Subscription {
        let box = SubscriberBox(id: nextSubscriberID(), dependency: dependency, sink: target.makeSink(handler))
        let token = subscription(for: box)
        if !register(box) { token.cancel() }  // a closed store hands back a cancelled subscription
        return token
    }

    /// Like ``subscribe(to:_:)``, but first replays the history from `seq`
    /// (notifications for records `seq...lastSeq` that changed `dependency`,
    /// computed by folding the log), then continues live with no gap and no
    /// duplicate across the switch. `seq` must be in `1...lastSeq + 1`. The
    /// same as ``subscribe(to:from:on:_:)`` with ``DeliveryTarget/writer``.
    ///
    /// - Throws: ``StoreError/Code/closed`` after ``close()-553o2``;
    ///   ``StoreError/Code/seqOutOfRange(seq:lastSeq:)`` when `seq` is outside
    ///   `1...lastSeq + 1`; ``StoreError/Code/storage(_:)`` when the log cannot be read;
    ///   ``StoreError/Code/inconsistentEvent(_:)`` if a stored record does not fold. No
    ///   subscription is made then.
    /// - Complexity: O(r) in the records folded before this returns: those up to `seq - 1`
    ///   from the newest trusted snapshot at or before it (file logs) or from seq 1, then
    ///   `seq...lastSeq`, each O(log n) (a `reordered` O(n)). Most of it runs outside the
    ///   store's lock; the history's notifications are usually delivered on this thread
    ///   before it returns.
    public func subscribe(
        to dependency: Dependency, from seq: UInt64,
        _ handler: @escaping @Sendable (ChangeNotification) -> Void
    ) throws(StoreError) -> Subscription {
        try subscribe(to: dependency, from: seq, on: .writer, handler)
    }

    /// Like ``subscribe(to:on:_:)``, but first replays the history from `seq`
    /// (notifications for records `seq...lastSeq` that changed `dependency`,
    /// computed by folding the log), then continues live with no gap and no
    /// duplicate across the switch, all on `target` with the guarantees of
    /// ``subscribe(to:on:_:)``. `seq` must be in `1...lastSeq + 1`.
    ///
    /// - Throws: ``StoreError/Code/closed`` after ``close()-553o2``;
    ///   ``StoreError/Code/seqOutOfRange(seq:lastSeq:)`` when `seq` is outside
    ///   `1...lastSeq + 1`; ``StoreError/Code/storage(_:)`` when the log cannot be read;
    ///   ``StoreError/Code/inconsistentEvent(_:)`` if a stored record does not fold. No
    ///   subscription is made then.
    /// - Complexity: as ``subscribe(to:from:_:)``; the history's notifications are
    ///   usually handed to the target before this returns (for
    ///   ``DeliveryTarget/writer``, delivered on this thread), and a target that
    ///   is not the writer's thread then buffers them until it runs them.
    public func subscribe<Handler>(
        to dependency: Dependency, from seq: UInt64, on target: DeliveryTarget<Handler>, _ handler: Handler
    ) throws(StoreError) -> Subscription {
        let box = SubscriberBox(id: nextSubscriberID(), dependency: dependency, sink: target.makeSink(handler))
        try register(box, from: seq)
        return subscription(for: box)
    }

    /// A lossless stream of the notifications for `dependency`, from now on,
    /// in seq order (each record's notification once).
    ///
    /// Buffering is bounded: the stream holds at most
    /// ``Options/streamBufferLimit`` notifications (default 10,000) for a
    /// consumer that does not keep up. Past that it drops its buffer and,
    /// when the consumer next reads, catches up by folding the log (from a
    /// snapshot where there is one) after the last notification it received,
    /// in batches of at most the limit, then continues live. So a slow
    /// consumer loses nothing, never slows writers, and costs bounded memory;
    /// it pays a fold of the log when it falls that far behind. A stream that
    /// cannot read the log while catching up ends early.
    ///
    /// The stream ends when the store is closed or released, after the
    /// consumer has received what it is owed: every notification up to the
    /// store's last seq, caught up from the log if the stream fell behind
    /// (a stream keeps what it needs to read the log, not the store); cancelling the consuming task
    /// (or dropping the stream) unregisters it and affects no other subscriber.
    ///
    /// - Complexity: O(1), except that the first subscriber to a ``Dependency/view(_:)``
    ///   query builds the maintained view, O(n) matches over the n labels.
    public func changes(for dependency: Dependency) -> AsyncStream<ChangeNotification> {
        let (stream, box) = makeStream(for: dependency)
        register(box)  // a closed store finishes the stream at once
        return stream
    }

    /// Like ``changes(for:)``, but first delivers the history from `seq`
    /// (notifications for records `seq...lastSeq` that changed `dependency`),
    /// then continues live with no gap and no duplicate; `seq` must be in
    /// `1...lastSeq + 1`. The history is folded from the log lazily, as the
    /// consumer reads, so it is bounded like a lagging stream. Seqs before a
    /// cut log's first are read from the archives holding them (``history()``,
    /// each checked first); when one is missing the stream ends early.
    ///
    /// - Throws: ``StoreError/Code/closed`` after ``close()-553o2``;
    ///   ``StoreError/Code/seqOutOfRange(seq:lastSeq:)`` when `seq` is outside
    ///   `1...lastSeq + 1`. Failures to read the log later, while the history is folded,
    ///   are not thrown: the stream ends early.
    /// - Complexity: O(1) here (O(n) to build a ``Dependency/view(_:)`` query's view that
    ///   no one maintains yet). The consumer then pays the fold of the history as it reads:
    ///   from the newest trusted snapshot at or before `seq - 1` (file logs) or from seq 1.
    public func changes(for dependency: Dependency, from seq: UInt64) throws(StoreError) -> AsyncStream<ChangeNotification> {
        let (stream, box) = makeStream(for: dependency)
        do throws(StoreError) {
            try state.withLock { (s) throws(StoreError) in
                if s.closed { throw StoreError(.closed, "The store is closed.") }
                let last = s.list.lastSeq
                guard seq >= 1, seq <= last + 1 else {
                    throw StoreError(
                        .seqOutOfRange(seq: seq, lastSeq: last),
                        "Cannot subscribe from seq \(seq): the log's seqs are 1...\(last), so the start must be in 1...\(last + 1).",
                        seq: seq)
                }
                if seq == last + 1 { box.streamBuffer?.startLive(after: last) } else { box.streamBuffer?.startCatchingUp(after: seq - 1) }
                if !box.isCancelled { s.hub.insert(box, list: s.list) }
            }
        } catch {
            box.finish()
            throw error
        }
        return stream
    }

    /// The number of registered subscribers (callbacks and streams, of every dependency).
    public var subscriberCount: Int { state.withLock { $0.hub.count } }

    // MARK: - Registration

    func nextSubscriberID() -> UInt64 {
        subscriberIDs.wrappingAdd(1, ordering: .relaxed).newValue
    }

    /// The token for `box`. It holds the store, the box and the mailbox weakly:
    /// cancelling after the store (or the box, once unregistered) is gone still
    /// discards what a target's mailbox holds — unless `cancelsMailbox` is
    /// `false` (a mailbox other subscriptions share, see ``subscribe(to:sharing:cancelsMailbox:)``).
    func subscription(for box: SubscriberBox, cancelsMailbox: Bool = true) -> Subscription {
        let id = box.id
        let dependency = box.dependency
        let mailbox = cancelsMailbox ? box.mailbox : nil
        return Subscription(dependency: dependency) { [weak self, weak box, weak mailbox] in
            box?.markCancelled()
            mailbox?.cancel()
            self?.unsubscribe(id: id, dependency: dependency)
        }
    }

    private func makeStream(for dependency: Dependency) -> (AsyncStream<ChangeNotification>, SubscriberBox) {
        let buffer = StreamBuffer(limit: options.streamBufferLimit)
        let box = SubscriberBox(id: nextSubscriberID(), dependency: dependency, sink: .stream(buffer))
        let id = box.id
        // The stream keeps the log, not the store: once the store is released it
        // still catches up to the store's last seq, then ends.
        let log = self.log
        let handle = StreamHandle(
            buffer: buffer,
            catchUp: { [weak self] after, fold in
                if let self {
                    self.catchUpStream(buffer, dependency: dependency, after: after, fold: fold)
                } else {
                    Self.catchUpDetachedStream(buffer, log: log, dependency: dependency, after: after, fold: fold)
                }
            },
            onEnd: { [weak self, weak box] in
                box?.markCancelled()
                self?.unsubscribe(id: id, dependency: dependency)
            })
        let stream = AsyncStream<ChangeNotification>(unfolding: { await handle.next() }, onCancel: { handle.cancel() })
        return (stream, box)
    }

    private func unsubscribe(id: UInt64, dependency: Dependency) {
        // The removed box is released here, after the lock is dropped.
        let removed = state.withLock { $0.hub.remove(id: id, dependency: dependency) }
        removed?.markCancelled()
    }

    /// Registers `box` for live notifications only; returns `false` (and finishes it) if the store is closed.
    @discardableResult
    func register(_ box: SubscriberBox) -> Bool {
        let registered = state.withLock { s in
            guard !s.closed else { return false }
            box.streamBuffer?.startLive(after: s.list.lastSeq)
            if !box.isCancelled { s.hub.insert(box, list: s.list) }
            return true
        }
        if !registered { box.finish() }
        return registered
    }

    /// Registers `box` after replaying history from `seq`, atomically with
    /// respect to writes: history is computed up to the projection's seq under
    /// the lock, enqueued, and the box registered before the lock is released.
    ///
    /// Most of the history is folded from storage *before* taking the lock (so
    /// writers are not blocked by a long replay); only the tail appended
    /// meanwhile is read under it.
    private func register(_ box: SubscriberBox, from seq: UInt64) throws(StoreError) {
        defer { delivery.drain() }
        let dependency = box.dependency
        // Fast path: live only.
        let (done, target) = try state.withLock { (s) throws(StoreError) -> (Bool, UInt64) in
            if s.closed { throw StoreError(.closed, "The store is closed.") }
            let last = s.list.lastSeq
            guard seq >= 1, seq <= last + 1 else {
                throw StoreError(
                    .seqOutOfRange(seq: seq, lastSeq: last),
                    "Cannot subscribe from seq \(seq): the log's seqs are 1...\(last), so the start must be in 1...\(last + 1).", seq: seq)
            }
            guard seq == last + 1 else { return (false, last) }
            if !box.isCancelled { s.hub.insert(box, list: s.list) }
            return (true, last)
        }
        if done { return }

        var history = NotificationFold(dependency: dependency, list: try fold(through: seq - 1))
        var pending: [DeliveryQueue.Item] = []
        func step(_ record: EventRecord) throws(StoreError) -> Bool {
            if let notification = try history.step(record) { pending.append(.init(subscriber: box, notification: notification)) }
            return true
        }
        try forEachStoredRecord(from: seq, through: target, step)

        try state.withLock { (s) throws(StoreError) in
            if s.closed { throw StoreError(.closed, "The store is closed.") }
            if history.list.lastSeq < s.list.lastSeq {
                try forEachStoredRecord(from: history.list.lastSeq + 1, through: s.list.lastSeq, step)
            }
            delivery.enqueue(pending)
            if !box.isCancelled { s.hub.insert(box, list: s.list) }
        }
    }
}
