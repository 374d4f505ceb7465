import Dispatch
import EventLog

/// One write waiting to be committed: how to make its entries from the state
/// it will apply to, and where its outcome goes.
///
/// A request is *pending* (in a ``WriteQueue``) until a committer takes it,
/// then *done* once its group was appended (or refused). An async request may
/// instead be *cancelled* while pending. Every request is completed exactly
/// once: by the committer that took it, or by cancellation while pending.
///
/// A synchronous writer that is not committing itself waits on its request
/// (``waitForTurn()``), never on the store's lock: it is woken once, when a
/// committer completes the request or when the committing writer hands it
/// the lead (``promote()``), whichever comes first.
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

    private struct State {
        var phase = Phase.new
        /// The waiting thread of a synchronous writer has been woken (it is woken once).
        var woken = false
        /// The committing synchronous writer handed this one the lead.
        var promoted = false
    }

    let options: WriteOptions
    let audit: Audit?
    let makeEntries: MakeEntries
    private let state = Locked(State())
    /// Wakes a synchronous writer waiting in ``waitForTurn()``.
    private let wakeup = DispatchSemaphore(value: 0)

    init(options: WriteOptions, audit: Audit?, makeEntries: @escaping MakeEntries) {
        self.options = options
        self.audit = audit
        self.makeEntries = makeEntries
    }

    /// The outcome, once done.
    var outcome: Outcome? {
        state.withLock { state in
            if case .done(let outcome) = state.phase { return outcome }
            return nil
        }
    }

    /// Whether the request is queued for a synchronous writer (no continuation).
    var isSynchronousPending: Bool {
        state.withLock { state in
            if case .pending(nil) = state.phase { return true }
            return false
        }
    }

    /// Marks the request pending (with the continuation of an async caller);
    /// returns `false` if it was already completed (withdrawn before it was
    /// queued), after resuming `continuation` with that outcome.
    func markPending(_ continuation: CheckedContinuation<Outcome, Never>?) -> Bool {
        let earlier = state.withLock { state -> Outcome? in
            switch state.phase {
            case .new:
                state.phase = .pending(continuation)
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
    func completeIfNew(_ outcome: Outcome) -> Bool {
        state.withLock { state in
            guard case .new = state.phase else { return false }
            state.phase = .done(outcome)
            return true
        }
    }

    /// Completes the request: records the outcome and resumes an async caller
    /// or wakes a synchronous one. Later calls are ignored.
    func complete(_ outcome: Outcome) {
        let (continuation, wake) = state.withLock { state -> (CheckedContinuation<Outcome, Never>?, Bool) in
            switch state.phase {
            case .done: return (nil, false)
            case .new:
                state.phase = .done(outcome)
                return (nil, false)
            case .pending(let continuation):
                state.phase = .done(outcome)
                let wake = continuation == nil && !state.woken
                state.woken = state.woken || wake
                return (continuation, wake)
            }
        }
        continuation?.resume(returning: outcome)
        if wake { wakeup.signal() }
    }

    /// Hands a pending synchronous writer the lead: it wakes and commits the
    /// queue (see ``WriteQueue/handOffCommit()``). Called under the queue's lock.
    func promote() {
        let wake = state.withLock { state -> Bool in
            state.promoted = true
            defer { state.woken = true }
            return !state.woken
        }
        if wake { wakeup.signal() }
    }

    /// Blocks a synchronous writer until its request is done or it is handed
    /// the lead; returns `true` when it must commit (it was promoted — even
    /// if a committer completed the request meanwhile, it holds the lead and
    /// must pass it on).
    func waitForTurn() -> Bool {
        wakeup.wait()
        return state.withLock { $0.promoted }
    }
}
