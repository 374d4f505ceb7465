import Dispatch
import EventLog

/// The `async` API: the same writes, open and close, suspending the calling
/// task instead of blocking its thread.
///
/// A write is queued and committed on the store's own serial commit queue (a
/// Dispatch queue, not the cooperative pool), grouped with every other write
/// queued meanwhile (see ``LabelStore``'s threading notes): the sync never runs
/// on a task's thread, so writes from many tasks neither tie up the
/// cooperative pool nor pay a sync each. The guarantees are the synchronous API's: when the call
/// returns, the records are as durable as ``Options/durability`` promises and
/// the projection shows them; errors are the same ``StoreError``s.
///
/// **Cancellation.** A write whose task is cancelled before a committer took
/// it is withdrawn: it throws ``StoreError/Code/cancelled`` and appends
/// nothing. Once taken (validation and the append are under way) it is not
/// interrupted: it returns its records, durable, even if the task was
/// cancelled meanwhile. So after ``StoreError/Kind/cancelled`` nothing was
/// written, and after a return everything was.
///
/// **Delivery.** After the write, notifications are delivered on the caller's
/// executor (as a synchronous writer delivers on its thread) unless another
/// thread is delivering, which then delivers them in order.
extension LabelStore {
    /// Like ``execute(_:options:)-8dri1``, suspending instead of blocking; see the
    /// extension's notes on cancellation.
    ///
    /// - Throws: ``StoreError``: what ``execute(_:options:)-8dri1`` throws, or
    ///   ``StoreError/Code/cancelled`` when the task was cancelled before the
    ///   write was committed (nothing appended).
    /// - Complexity: As ``execute(_:options:)-8dri1``; the sync is shared with the writes
    ///   committed in the same group.
    @discardableResult
    public func execute(_ command: LabelCommand, options: WriteOptions = WriteOptions()) async throws(StoreError) -> [EventRecord] {
        try await write(Self.request(batch: [command], options: options))
    }

    /// Like ``execute(batch:options:)-33sz3`` (all or nothing), suspending instead of blocking.
    ///
    /// - Throws: ``StoreError``: what ``execute(batch:options:)-33sz3`` throws, or
    ///   ``StoreError/Code/cancelled`` when the task was cancelled before the
    ///   batch was committed (nothing appended).
    /// - Complexity: As ``execute(batch:options:)-33sz3``.
    @discardableResult
    public func execute(batch commands: [LabelCommand], options: WriteOptions = WriteOptions()) async throws(StoreError) -> [EventRecord] {
        try await write(Self.request(batch: commands, options: options))
    }

    /// Like ``append(entries:)-89n1d`` (all or nothing), suspending instead of blocking.
    ///
    /// - Throws: ``StoreError``: what ``append(entries:)-89n1d`` throws, or
    ///   ``StoreError/Code/cancelled`` when the task was cancelled before the
    ///   entries were committed (nothing appended).
    /// - Complexity: As ``append(entries:)-89n1d``.
    @discardableResult
    public func append(entries: [LogEntry]) async throws(StoreError) -> [EventRecord] {
        try await write(Self.request(entries: entries))
    }

    /// Like ``add(_:isEnabled:id:at:options:)-7dxb4``, suspending instead of blocking.
    ///
    /// - Throws: ``StoreError``: what the synchronous `add` throws, or ``StoreError/Code/cancelled``.
    /// - Complexity: As the synchronous `add`.
    @discardableResult
    public func add(
        _ title: String, isEnabled: Bool = true, id: LabelID? = nil, at position: Int? = nil,
        options: WriteOptions = WriteOptions()
    ) async throws(StoreError) -> LabelID {
        let id = id ?? LabelID()
        try await execute(.add(title: title, isEnabled: isEnabled, id: id, at: position), options: options)
        return id
    }

    /// Like ``rename(_:to:options:)-7lfit``, suspending instead of blocking.
    ///
    /// - Throws: ``StoreError``: what the synchronous `rename` throws, or ``StoreError/Code/cancelled``.
    /// - Complexity: As the synchronous `rename`.
    @discardableResult
    public func rename(_ id: LabelID, to title: String, options: WriteOptions = WriteOptions()) async throws(StoreError) -> [EventRecord] {
        try await execute(.rename(id: id, title: title), options: options)
    }

    /// Like ``setEnabled(_:_:options:)-93syx``, suspending instead of blocking.
    ///
    /// - Throws: ``StoreError``: what the synchronous `setEnabled` throws, or ``StoreError/Code/cancelled``.
    /// - Complexity: As the synchronous `setEnabled`.
    @discardableResult
    public func setEnabled(_ id: LabelID, _ isEnabled: Bool, options: WriteOptions = WriteOptions()) async throws(StoreError)
        -> [EventRecord]
    {
        try await execute(.setEnabled(id: id, isEnabled: isEnabled), options: options)
    }

    /// Like ``toggle(_:options:)-5oetm``, suspending instead of blocking.
    ///
    /// - Throws: ``StoreError``: what the synchronous `toggle` throws, or ``StoreError/Code/cancelled``.
    /// - Complexity: As the synchronous `toggle`.
    @discardableResult
    public func toggle(_ id: LabelID, options: WriteOptions = WriteOptions()) async throws(StoreError) -> [EventRecord] {
        try await execute(.toggle(id: id), options: options)
    }

    /// Like ``remove(_:options:)-5ene0``, suspending instead of blocking.
    ///
    /// - Throws: ``StoreError``: what the synchronous `remove` throws, or ``StoreError/Code/cancelled``.
    /// - Complexity: As the synchronous `remove`.
    @discardableResult
    public func remove(_ id: LabelID, options: WriteOptions = WriteOptions()) async throws(StoreError) -> [EventRecord] {
        try await execute(.remove(id: id), options: options)
    }

    /// Like ``move(_:to:options:)-1uq46``, suspending instead of blocking.
    ///
    /// - Throws: ``StoreError``: what the synchronous `move` throws, or ``StoreError/Code/cancelled``.
    /// - Complexity: As the synchronous `move`.
    @discardableResult
    public func move(_ id: LabelID, to position: Int, options: WriteOptions = WriteOptions()) async throws(StoreError) -> [EventRecord] {
        try await execute(.move(id: id, to: position), options: options)
    }

    /// Like ``reverse(options:)-4uto0``, suspending instead of blocking.
    ///
    /// - Throws: ``StoreError``: what the synchronous `reverse` throws, or ``StoreError/Code/cancelled``.
    /// - Complexity: As the synchronous `reverse`.
    @discardableResult
    public func reverse(options: WriteOptions = WriteOptions()) async throws(StoreError) -> [EventRecord] {
        try await execute(.reverse, options: options)
    }

    /// Like ``reorder(_:options:)-69c5j``, suspending instead of blocking.
    ///
    /// - Throws: ``StoreError``: what the synchronous `reorder` throws, or ``StoreError/Code/cancelled``.
    /// - Complexity: As the synchronous `reorder`.
    @discardableResult
    public func reorder(_ ids: [LabelID], options: WriteOptions = WriteOptions()) async throws(StoreError) -> [EventRecord] {
        try await execute(.reorder(ids), options: options)
    }

    /// Like ``open(path:options:)-51jse``: opens and folds the log on a thread of
    /// its own, suspending the caller meanwhile. Opening is not cancellable
    /// once started: a cancelled task still gets the open store (or the error).
    ///
    /// - Throws: ``StoreError``: what ``open(path:options:)-51jse`` throws.
    /// - Complexity: As ``open(path:options:)-51jse``.
    public static func open(path: String, options: Options = Options()) async throws(StoreError) -> LabelStore {
        let result = await Self.offTaskThread { () -> Result<LabelStore, StoreError> in
            do throws(StoreError) { return .success(try open(path: path, options: options)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Like ``close()-553o2``, on a thread of its own (closing may write a snapshot
    /// and syncs the log), suspending the caller meanwhile. Not cancellable.
    /// A group a committer is appending when the close begins completes first;
    /// writes still queued then, and later ones, throw ``StoreError/Code/closed``
    /// (appending nothing).
    public func close() async {
        await Self.offTaskThread { self.close() }
    }

    // MARK: - Plumbing

    /// Queues `request`, has the commit queue commit it (unless a committer
    /// takes it first; one commit job serves every request queued before it
    /// runs), and suspends until it is done or withdrawn.
    func write(_ request: WriteRequest) async throws(StoreError) -> [EventRecord] {
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<WriteRequest.Outcome, Never>) in
                if writeQueue.submit(request, continuation: continuation) {
                    commitQueue.async { self.commitOnCommitThread() }
                }
            }
        } onCancel: {
            writeQueue.withdraw(request, completingWith: .failure(.cancelledWrite("write")))
        }
        delivery.drain()
        return try outcome.get()
    }

    /// Commits whatever is queued (a job of the commit queue).
    private func commitOnCommitThread() {
        let checkpoint = state.withLock { s in commitQueued(&s) }
        if let checkpoint { writeAutomaticSnapshot(checkpoint) }
    }

    /// Runs `work` on a Dispatch thread (not the cooperative pool) and suspends until it returns.
    private static func offTaskThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async { continuation.resume(returning: work()) }
        }
    }
}
