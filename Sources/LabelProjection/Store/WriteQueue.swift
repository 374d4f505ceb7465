/// The writes submitted to a store and not yet taken by a committer, in
/// submission order (which becomes seq order), and who commits them.
///
/// Two kinds of committer take the queue, each under the store's state lock:
/// - **async writes**: a job on the store's commit queue, scheduled by the
///   first async submission after the last job took the queue;
/// - **synchronous writes**: one writer thread at a time leads. A writer that
///   submits while another leads waits on its own request, not on the store's
///   lock (``WriteRequest/waitForTurn()``); the leader, once its group is
///   committed, hands the lead to the first synchronous writer still queued
///   (``handOffCommit()``). So a writer whose request a group completed
///   returns without touching the store's lock, and one writer cannot keep
///   re-taking the lock while the others starve behind it (the LevelDB
///   writer-queue hand-off).
///
/// Thread safety: behind a lock (`Locked`). Lock order: a committer holds the store's
/// state lock, then this queue's lock, then a request's.
final class WriteQueue: Sendable {
    private struct Contents {
        var requests: [WriteRequest] = []
        /// A commit job was scheduled and has not taken the queue yet: an async
        /// request queued meanwhile will be in its group, so needs no job of its own.
        var commitScheduled = false
        /// A synchronous writer leads (commits, or was handed the lead and is
        /// waking to commit): other synchronous writers wait on their requests.
        var synchronousLeader = false
    }

    private let contents = Locked(Contents())

    /// Queues a synchronous writer's `request`; returns `true` when the caller
    /// leads (commits the queue, then calls ``handOffCommit()``), `false` when
    /// another synchronous writer leads and the caller is to wait for its turn.
    func submitSynchronous(_ request: WriteRequest) -> Bool {
        contents.withLock { contents in
            guard request.markPending(nil) else { preconditionFailure("a synchronous write is never withdrawn before it is queued") }
            contents.requests.append(request)
            if contents.synchronousLeader { return false }
            contents.synchronousLeader = true
            return true
        }
    }

    /// The leading synchronous writer has committed: the lead passes to the
    /// first synchronous writer still queued (woken to commit), or is given up.
    func handOffCommit() {
        contents.withLock { contents in
            if let next = contents.requests.first(where: \.isSynchronousPending) {
                next.promote()
            } else {
                contents.synchronousLeader = false
            }
        }
    }

    /// Queues `request`, to resume `continuation` when done (async callers);
    /// returns `true` when the caller must schedule a commit job, `false` when
    /// one scheduled earlier has not yet taken the queue (and so will take
    /// this request) or the request was cancelled first (and not queued).
    func submit(_ request: WriteRequest, continuation: CheckedContinuation<WriteRequest.Outcome, Never>) -> Bool {
        contents.withLock { contents in
            guard request.markPending(continuation) else { return false }
            contents.requests.append(request)
            if contents.commitScheduled { return false }
            contents.commitScheduled = true
            return true
        }
    }

    /// Takes every queued request, in submission order. A commit job scheduled
    /// earlier has nothing left to wait for: the next async submission schedules another.
    func takeAll() -> [WriteRequest] {
        contents.withLock { contents in
            defer {
                contents.requests = []
                contents.commitScheduled = false
            }
            return contents.requests
        }
    }

    /// Withdraws `request` if no committer took it yet, completing it with
    /// `outcome`; a request not queued yet is completed so it never will be.
    /// Does nothing once a committer took it.
    func withdraw(_ request: WriteRequest, completingWith outcome: WriteRequest.Outcome) {
        let queued = contents.withLock { contents -> Bool in
            guard let index = contents.requests.firstIndex(where: { $0 === request }) else {
                _ = request.completeIfNew(outcome)
                return false
            }
            contents.requests.remove(at: index)
            return true
        }
        if queued { request.complete(outcome) }
    }
}
