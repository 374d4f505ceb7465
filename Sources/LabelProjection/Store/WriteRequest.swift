import EventLog

/// One write waiting to be committed: how to make its entries from the state
/// it will apply to, and where its outcome goes.
///
/// A request is *pending* (in a ``WriteQueue``) until a committer takes it,
/// then *done* once its group was appended (or refused). An async request may
/// instead be *cancelled* while pending. Every request is completed exactly
/// once: by the committer that took it, or by cancellation while pending.
///
/// Thread safety: the phase is behind a lock (`Locked`); the rest is immutable.
final class WriteRequest: Sendable {
    /// Makes the request's entries from the state the writes before it leave,
    /// at the group's clock reading, or throws why the write is refused. It
    /// may fold trial events into the list but must leave it as it found it.
    typealias MakeEntries = @Sendable (inout LabelList, EventTimestamp) throws(StoreError) -> [LogEntry]

    /// What to record when the write is refused (``LabelStore/Options/recordRejections``):
    /// the label concerned and a description of the command.
    struct Audit: Sendable {
        let id: LabelID?
        let command: String
    }

    typealias Outcome = Result<[EventRecord], StoreError>

    private enum Phase {
        /// Created, not yet in a queue (an async request awaits its continuation).
        case new
        /// In the queue; `continuation` resumes an async caller.
        case pending(CheckedContinuation<Outcome, Never>?)
        case done(Outcome)
    }

    let options: WriteOptions
    let audit: Audit?
    let makeEntries: MakeEntries
    private let phase = Locked(Phase.new)

    init(options: WriteOptions, audit: Audit?, makeEntries: @escaping MakeEntries) {
        self.options = options
        self.audit = audit
        self.makeEntries = makeEntries
    }

    /// The outcome, once done.
    var outcome: Outcome? {
        phase.withLock { phase in
            if case .done(let outcome) = phase { return outcome }
            return nil
        }
    }

    /// Marks the request pending (with the continuation of an async caller);
    /// returns `false` if it was already completed (withdrawn before it was
    /// queued), after resuming `continuation` with that outcome.
    fileprivate func markPending(_ continuation: CheckedContinuation<Outcome, Never>?) -> Bool {
        let earlier = phase.withLock { phase -> Outcome? in
            switch phase {
            case .new:
                phase = .pending(continuation)
                return nil
            case .done(let outcome): return outcome
            case .pending: preconditionFailure("a write request is submitted once")
            }
        }
        guard let earlier else { return true }
        continuation?.resume(returning: earlier)
        return false
    }

    /// Completes a request that was never queued with `outcome`; returns whether it was such a request.
    fileprivate func completeIfNew(_ outcome: Outcome) -> Bool {
        phase.withLock { phase in
            guard case .new = phase else { return false }
            phase = .done(outcome)
            return true
        }
    }

    /// Completes the request: records the outcome and resumes an async caller.
    /// Later calls are ignored.
    func complete(_ outcome: Outcome) {
        let continuation = phase.withLock { phase -> CheckedContinuation<Outcome, Never>?? in
            switch phase {
            case .done: return nil
            case .new:
                phase = .done(outcome)
                return .some(nil)
            case .pending(let continuation):
                phase = .done(outcome)
                return .some(continuation)
            }
        }
        if let continuation, let continuation { continuation.resume(returning: outcome) }
    }
}

/// The writes submitted to a store and not yet taken by a committer, in
/// submission order (which becomes seq order), and whether a commit job is
/// scheduled for them.
///
/// Thread safety: behind a lock (`Locked`). Lock order: a committer holds the store's
/// state lock, then this queue's lock, then a request's.
final class WriteQueue: Sendable {
    private struct Contents {
        var requests: [WriteRequest] = []
        /// A commit job was scheduled and has not taken the queue yet: a
        /// request queued meanwhile will be in its group, so needs no job of its own.
        var commitScheduled = false
    }

    private let contents = Locked(Contents())

    /// Queues `request` for a caller that commits it itself (a synchronous writer).
    /// If the request was cancelled first, it is not queued (and was already completed).
    func submit(_ request: WriteRequest) {
        contents.withLock { contents in
            if request.markPending(nil) { contents.requests.append(request) }
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
