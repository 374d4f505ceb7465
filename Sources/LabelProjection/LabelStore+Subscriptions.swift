import EventLog

extension LabelStore {
    /// Calls `handler` for every future record that changes `dependency`
    /// (see ``Dependency`` for exactly which), with old and new values.
    ///
    /// Delivery guarantees:
    /// - after the store applied the record: reading the store in the handler
    ///   shows this change (or a later one);
    /// - in seq order, one at a time (never two handlers concurrently),
    ///   outside the store's lock, on the thread of whichever writer drains
    ///   the delivery queue — usually the writer of that record;
    /// - the handler may call the store, including writing; such a write's
    ///   notifications are delivered after the current handler returns.
    ///
    /// Keep the returned ``Subscription``: releasing it cancels.
    public func subscribe(to dependency: Dependency, _ handler: @escaping @Sendable (ChangeNotification) -> Void) -> Subscription {
        let box = SubscriberBox(id: nextSubscriberID(), dependency: dependency, sink: .callback(handler))
        let token = subscription(for: box)
        if !register(box) { token.cancel() }  // a closed store hands back a cancelled subscription
        return token
    }

    /// Like ``subscribe(to:_:)``, but first replays the history from `seq`
    /// (notifications for records `seq...lastSeq` that changed `dependency`,
    /// computed by folding the log), then continues live with no gap and no
    /// duplicate across the switch. `seq` must be in `1...lastSeq + 1`.
    public func subscribe(to dependency: Dependency, from seq: UInt64,
                          _ handler: @escaping @Sendable (ChangeNotification) -> Void) throws(StoreError) -> Subscription {
        let box = SubscriberBox(id: nextSubscriberID(), dependency: dependency, sink: .callback(handler))
        try register(box, from: seq)
        return subscription(for: box)
    }

    /// A lossless stream of the notifications for `dependency`, from now on,
    /// with the same ordering as ``subscribe(to:_:)``.
    ///
    /// Buffering is unbounded: a slow consumer never loses a notification and
    /// never slows writers, at the cost of memory while it lags. The stream
    /// ends when the store is closed or released; cancelling the consuming
    /// task (or dropping the stream) unregisters it.
    public func changes(for dependency: Dependency) -> AsyncStream<ChangeNotification> {
        let (stream, box) = makeStream(for: dependency)
        register(box)  // a closed store finishes the stream at once
        return stream
    }

    /// Like ``changes(for:)``, but replays history from `seq` first (see
    /// ``subscribe(to:from:_:)``); `seq` must be in `1...lastSeq + 1`.
    public func changes(for dependency: Dependency, from seq: UInt64) throws(StoreError) -> AsyncStream<ChangeNotification> {
        let (stream, box) = makeStream(for: dependency)
        do throws(StoreError) {
            try register(box, from: seq)
        } catch {
            box.finish()
            throw error
        }
        return stream
    }

    /// The number of registered subscribers (callbacks and streams, of every dependency).
    public var subscriberCount: Int { state.withLock { $0.hub.count } }

    // MARK: - Registration

    private func nextSubscriberID() -> UInt64 {
        subscriberIDs.wrappingAdd(1, ordering: .relaxed).newValue
    }

    private func subscription(for box: SubscriberBox) -> Subscription {
        let id = box.id
        let dependency = box.dependency
        return Subscription(dependency: dependency) { [weak self, weak box] in
            box?.markCancelled()
            self?.unsubscribe(id: id, dependency: dependency)
        }
    }

    private func makeStream(for dependency: Dependency) -> (AsyncStream<ChangeNotification>, SubscriberBox) {
        let (stream, continuation) = AsyncStream.makeStream(of: ChangeNotification.self, bufferingPolicy: .unbounded)
        let box = SubscriberBox(id: nextSubscriberID(), dependency: dependency, sink: .stream(continuation))
        let id = box.id
        continuation.onTermination = { [weak self, weak box] _ in
            box?.markCancelled()
            self?.unsubscribe(id: id, dependency: dependency)
        }
        return (stream, box)
    }

    private func unsubscribe(id: UInt64, dependency: Dependency) {
        // The removed box is released here, after the lock is dropped.
        let removed = state.withLock { $0.hub.remove(id: id, dependency: dependency) }
        removed?.markCancelled()
    }

    /// Registers `box` for live notifications only; returns `false` (and finishes it) if the store is closed.
    @discardableResult
    private func register(_ box: SubscriberBox) -> Bool {
        let registered = state.withLock { s in
            guard !s.closed else { return false }
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
                throw StoreError(.seqOutOfRange(seq: seq, lastSeq: last), "Cannot subscribe from seq \(seq): the log's seqs are 1...\(last), so the start must be in 1...\(last + 1).", seq: seq)
            }
            guard seq == last + 1 else { return (false, last) }
            if !box.isCancelled { s.hub.insert(box, list: s.list) }
            return (true, last)
        }
        if done { return }

        var list = try fold(through: seq - 1)
        var view: FilteredView?
        if case .view(let query) = dependency { view = FilteredView(query: query, list: list) }
        var pending: [DeliveryQueue.Item] = []
        func step(_ record: EventRecord) throws(StoreError) -> Bool {
            let change: LabelChange
            do throws(ProjectionError) { change = try list.apply(record) } catch { throw StoreError.inconsistent(error) }
            let viewChanges = view?.apply(change, in: list) ?? []
            if ChangeNotification.isNotified(dependency, by: change, viewChanges: viewChanges) {
                pending.append(.init(subscriber: box, notification: ChangeNotification(dependency: dependency, change: change, viewChanges: viewChanges)))
            }
            return true
        }
        try Self.forEachRecord(in: storage, from: seq, through: target, step)

        try state.withLock { (s) throws(StoreError) in
            if s.closed { throw StoreError(.closed, "The store is closed.") }
            if list.lastSeq < s.list.lastSeq {
                try Self.forEachRecord(in: storage, from: list.lastSeq + 1, through: s.list.lastSeq, step)
            }
            delivery.enqueue(pending)
            if !box.isCancelled { s.hub.insert(box, list: s.list) }
        }
    }
}
