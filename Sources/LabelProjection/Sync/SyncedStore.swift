import EventLog
import Foundation

/// A ``LabelStore`` on a device, synced with a server list (docs/SYNC.md):
/// the app uses ``store`` as any store — reads, writes, subscriptions,
/// observable models — and it shows the device's optimistic list, the
/// server's as last pulled with the edits made here on top.
///
/// - Writes: a write of ``store`` is kept in the device's outbox, durable,
///   before it returns (the app may say "saved"), and its change is
///   published at once, as any store's. It works offline.
/// - Syncing: ``sync(resolvingOpenPush:)`` runs one round (``SyncSession/sync(resolvingOpenPush:)``), then makes
///   ``store``'s list the new optimistic list: what other devices changed,
///   and what the server refused of this one's edits, reach the store's
///   subscribers as ordinary changes, only what differs. Each refusal is
///   also handed to ``onRefusal(_:)``'s handlers. ``startSyncing(every:maxBackoff:)``
///   syncs in the background: after each edit, on the server's
///   notifications, and every interval, backing off while the server cannot
///   be reached.
/// - ``status``: what a UI shows — edits pending, the last seq synced, when,
///   the last error and the last refusal.
/// - Thread safety: `Sendable`; syncs take turns; edits never wait for a
///   sync's round trips.
public final class SyncedStore: Sendable {
    /// What a UI shows about syncing.
    public struct Status: Sendable, Hashable {
        /// Edits made on this device and not yet on the server.
        public var pending: Int
        /// The server's last seq as last pulled.
        public var lastSyncedSeq: UInt64
        /// When the last round that reached the server ended, if one did.
        public var lastSyncedAt: EventTimestamp?
        /// Why the last round failed, if it did (cleared by a round that succeeds).
        public var lastError: String?
        /// The last edit the server refused, if any.
        public var lastRefusal: Refusal?
        /// The server's newest head this device proved against its records
        /// (docs/SYNC.md, "Proving the server's history"), if one was.
        public var provenHead: HistoryHead?
    }

    /// An edit of this device the server refused, recorded there as a `rejected` record.
    public struct Refusal: Sendable, Hashable {
        /// The edit.
        public var command: SyncCommand
        /// Why.
        public var refusal: SyncRefusal
        /// The seq of its `rejected` record on the server.
        public var seq: UInt64
    }

    /// The store the app uses: the device's optimistic list.
    public let store: LabelStore
    /// The device's sync session: its mirror, outbox and server list.
    public let session: SyncSession
    private let working: SyncWorkingLog
    private let statusState: Locked<Status>
    private let refusalHandlers = Locked<[@Sendable (Refusal) -> Void]>([])
    private let background = Locked<BackgroundSync?>(nil)
    /// One round at a time, corrections included.
    private let rounds = Locked<Void>(())

    private init(session: SyncSession, working: SyncWorkingLog, store: LabelStore) {
        self.session = session
        self.working = working
        self.store = store
        statusState = Locked(
            Status(pending: session.outbox.pending.count, lastSyncedSeq: session.serverState.list.lastSeq, lastSyncedAt: nil))
    }

    /// Opens the device's mirror at `mirrorPath` (created if missing) and its
    /// outbox, to sync with `server` (`nil`: offline until a later open), and
    /// a store over the optimistic list with `options`.
    ///
    /// - Throws: ``StoreError``: what ``SyncSession/open(mirrorPath:server:)`` and the store's open throw.
    public static func open(
        mirrorPath: String, server: (any IdempotentAppendStorage)?, options: LabelStore.Options = LabelStore.Options()
    ) throws(StoreError) -> SyncedStore {
        let session = try SyncSession.open(mirrorPath: mirrorPath, server: server)
        do {
            let working = try SyncWorkingLog(session: session)
            return SyncedStore(session: session, working: working, store: try LabelStore(storage: working, options: options))
        } catch {
            session.close()
            throw error
        }
    }

    /// What a UI shows now.
    public var status: Status {
        var status = statusState.withLock { $0 }
        status.pending = session.outbox.pending.count
        return status
    }

    /// Calls `handler` with each edit of this device the server refuses
    /// (on the thread that ran the sync, after the store published the
    /// correction).
    public func onRefusal(_ handler: @escaping @Sendable (Refusal) -> Void) {
        refusalHandlers.withLock { $0.append(handler) }
    }

    /// One round: pulls, pushes the pending edits, and makes ``store``'s list
    /// the new optimistic list, publishing what changed.
    ///
    /// - Parameter resolution: What to take a push for that a crash left open
    ///   and that a cut made it impossible to settle
    ///   (``SyncSession/sync(resolvingOpenPush:)``); `nil`: such a round fails.
    /// - Throws: ``StoreError``: what ``SyncSession/sync(resolvingOpenPush:)`` throws (recorded
    ///   in ``status`` too); what folding the correction throws.
    @discardableResult
    public func sync(resolvingOpenPush resolution: SyncSession.OpenPushResolution? = nil) throws(StoreError) -> SyncSession.Report {
        try rounds.withLock { (_) throws(StoreError) -> SyncSession.Report in
            let report: SyncSession.Report
            do throws(StoreError) {
                report = try session.sync(resolvingOpenPush: resolution)
            } catch {
                statusState.withLock { $0.lastError = error.message }
                throw error
            }
            working.correct()
            try store.refresh()
            var refusals: [Refusal] = []
            for done in report.done {
                if case .refused(let refusal, let seq) = done.outcome {
                    refusals.append(Refusal(command: done.command, refusal: refusal, seq: seq))
                }
            }
            statusState.withLock { status in
                status.lastSyncedSeq = report.lastSeq
                status.lastSyncedAt = .now()
                status.lastError = nil
                if let proven = report.provenHead { status.provenHead = proven }
                if let last = refusals.last { status.lastRefusal = last }
            }
            let handlers = refusalHandlers.withLock { $0 }
            for refusal in refusals { for handler in handlers { handler(refusal) } }
            return report
        }
    }

    /// Syncs in the background until ``stopSyncing()`` or ``close()``: a
    /// round at once, then whenever an edit is pending, when the server
    /// notifies new records, and at least every `interval`; after a failed
    /// round it waits twice as long as after the one before, up to
    /// `maxBackoff`, then every `interval` again once one succeeds.
    public func startSyncing(every interval: Duration = .seconds(5), maxBackoff: Duration = .seconds(60)) {
        let worker = BackgroundSync(store: self, interval: interval, maxBackoff: maxBackoff)
        let started = background.withLock { running -> Bool in
            guard running == nil else { return false }
            running = worker
            return true
        }
        if started { worker.start() }
    }

    /// Stops background syncing; returns once no round runs.
    public func stopSyncing() {
        background.withLock { running -> BackgroundSync? in
            defer { running = nil }
            return running
        }?.stop()
    }

    /// Stops syncing and closes the store, the mirror and the outbox.
    public func close() {
        stopSyncing()
        store.close()
        session.close()
    }
}

/// The background thread of ``SyncedStore/startSyncing(every:maxBackoff:)``.
private final class BackgroundSync: Sendable {
    private weak let store: SyncedStore?
    private let interval: Duration
    private let maxBackoff: Duration
    private let stopped = Locked<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    init(store: SyncedStore, interval: Duration, maxBackoff: Duration) {
        self.store = store
        self.interval = interval
        self.maxBackoff = maxBackoff
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "SyncedStore background sync"
        thread.start()
    }

    func stop() {
        stopped.withLock { $0 = true }
        finished.wait()
    }

    private func run() {
        defer { finished.signal() }
        var wait = interval
        while !stopped.withLock({ $0 }), let store {
            var succeeded = false
            do {
                try store.sync()
                succeeded = true
            } catch {}
            wait = succeeded ? interval : min(wait * 2, maxBackoff)
            // Until the next round: a pending edit or the server's news start it early.
            let deadline = ContinuousClock.now + wait
            let lastSeq = store.session.serverState.list.lastSeq
            while !stopped.withLock({ $0 }), ContinuousClock.now < deadline {
                if succeeded, !store.session.outbox.pending.isEmpty { break }
                if succeeded, let server = store.session.serverLog,
                    (try? server.waitForAppends(after: lastSeq, timeout: .milliseconds(100))) == true
                {
                    break
                }
                if !succeeded || store.session.serverLog == nil { Thread.sleep(forTimeInterval: 0.1) }
            }
        }
    }
}
