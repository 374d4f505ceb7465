import EventLog

/// Waiting for the models to catch up with records written elsewhere.
extension ObservableLabels {
    /// Waits until the model has applied every record through `seq` — by the
    /// main-actor delivery it follows the store with, without a ``reload()`` —
    /// and returns `true`; or returns `false` if the calling task is cancelled
    /// first. When it returns `true`, every ``ObservableView`` made from the
    /// model shows the same record too (a record is applied to the list model
    /// and its views in one main-actor job, and the caller resumes in a later one).
    ///
    /// Use it after writes made elsewhere (another thread, a task, a store
    /// following a server list): `await labels.caughtUp(to: store.lastSeq)`.
    /// A seq the store has not applied yet is waited for as well (the
    /// model applies it when the store does); cancel the task to stop
    /// waiting. After your own write on the main actor, ``update()`` applies
    /// it at once instead.
    ///
    /// - Complexity: O(1) to register; waiters are resumed as records are applied.
    @discardableResult
    public func caughtUp(to seq: UInt64) async -> Bool {
        if appliedSeq >= seq { return true }
        let id = nextCatchUpWaiter
        nextCatchUpWaiter += 1
        return await withTaskCancellationHandler {
            await withCheckedContinuation(isolation: MainActor.shared) { (continuation: CheckedContinuation<Bool, Never>) in
                if appliedSeq >= seq || Task.isCancelled {
                    continuation.resume(returning: appliedSeq >= seq)
                } else {
                    catchUpWaiters.append(CatchUpWaiter(seq: seq, id: id, continuation: continuation))
                }
            }
        } onCancel: {
            Task { @MainActor [weak self] in self?.endCatchUpWait(id) }
        }
    }

    /// One task waiting in ``caughtUp(to:)``.
    struct CatchUpWaiter {
        let seq: UInt64
        let id: UInt64
        let continuation: CheckedContinuation<Bool, Never>
    }

    /// Resumes the waiters whose seq the model has now applied (call after ``appliedSeq`` moves).
    func resumeCaughtUpWaiters() {
        guard !catchUpWaiters.isEmpty else { return }
        let applied = appliedSeq
        var waiting: [CatchUpWaiter] = []
        for waiter in catchUpWaiters {
            if waiter.seq <= applied { waiter.continuation.resume(returning: true) } else { waiting.append(waiter) }
        }
        catchUpWaiters = waiting
    }

    /// Ends the wait `id` (its task was cancelled): it returns `false`, unless already resumed.
    private func endCatchUpWait(_ id: UInt64) {
        guard let index = catchUpWaiters.firstIndex(where: { $0.id == id }) else { return }
        let waiter = catchUpWaiters.remove(at: index)
        waiter.continuation.resume(returning: appliedSeq >= waiter.seq)
    }
}
