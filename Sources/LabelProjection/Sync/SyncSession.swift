import EventLog
import Foundation

/// One device's sync with a server list (docs/SYNC.md): its mirror — a file
/// log holding the server list's records 1…M exactly — its outbox beside it
/// (`MIRROR.outbox`, ``SyncOutbox``), and the server.
///
/// - Edits: ``make(_:actor:note:)`` turns a ``LabelCommand`` into a
///   ``SyncCommand`` on the optimistic list (the mirror with the outbox
///   applied on top) and returns once it is durable in the outbox.
/// - Syncing: ``sync(resolvingOpenPush:)`` pulls what is new, then pushes each pending
///   command in order, decided against the server list's state as it is then
///   (``SyncRebase``): its events or its refusal record are appended with its
///   batch id after the seq the outbox noted, and it leaves the outbox once
///   the mirror holds them. A conflicting append (another device was first)
///   pulls and decides again; a lost reply or a crash is settled by the
///   batch id on the server's row after that seq, so nothing is applied
///   twice.
/// - Thread safety: `Sendable`. Syncs take turns (a sync holds the session's
///   lock while it talks to the server); edits take another lock and never
///   wait for a sync's round trips: an edit made while a sync runs is kept
///   and pushed by the next one.
public final class SyncSession: Sendable {
    /// What one ``sync(resolvingOpenPush:)`` did.
    public struct Report: Sendable, Hashable {
        /// Records pulled into the mirror (the device's own included).
        public var pulled: Int
        /// The commands that left the outbox, in order, with what became of each.
        public var done: [Done]
        /// The mirror's last seq: the server's, as last seen.
        public var lastSeq: UInt64
        /// Commands still pending.
        public var pending: Int
        /// The server's newest head this device has proven (``SyncSession/provenHead``), after the round.
        public var provenHead: HistoryHead?
        /// Where the round set the mirror aside, when a cut of the server list had
        /// overtaken it and the round started a new one from the list's base
        /// (docs/SYNC.md, "When the server's history was cut"); `nil` otherwise.
        public var setAsideMirror: String? = nil
    }

    /// A command that left the outbox, and its outcome.
    public struct Done: Sendable, Hashable {
        /// The command.
        public var command: SyncCommand
        /// What the server did with it.
        public var outcome: SyncLedger.Outcome
    }

    struct State {
        var mirror: LogWriter?
        var server: SyncState
        var ledger = SyncLedger()
        /// The proof of the server's history so far (`nil`: nothing hashed yet this session).
        var prover: SyncHeadProver?
    }

    /// The mirror's path.
    public let mirrorPath: String
    /// The server list; `nil` for a session opened offline (edits only).
    public let serverLog: (any IdempotentAppendStorage)?
    /// The outbox.
    public let outbox: SyncOutbox
    let state: Locked<State>
    /// The optimistic state (the server's as last pulled, with the pending
    /// commands on top), kept up to date by edits and set again at the end of
    /// each sync; `nil` until first needed. Taken after ``state``'s lock, never before.
    let optimisticState = Locked<SyncState?>(nil)

    private init(mirror: LogWriter, server: SyncState, outbox: SyncOutbox, serverLog: (any IdempotentAppendStorage)?) {
        mirrorPath = mirror.path
        self.outbox = outbox
        self.serverLog = serverLog
        state = Locked(State(mirror: mirror, server: server))
    }

    /// Opens the mirror at `mirrorPath` (created if missing) and its outbox,
    /// to sync with `server` (`nil`: offline, to make edits; ``sync(resolvingOpenPush:)`` then
    /// throws).
    ///
    /// - Throws: ``StoreError``: `storage` for what opening the mirror or the
    ///   outbox throws (a second session on them: `logInUse`); `inconsistentEvent`
    ///   for a mirror whose records do not fold.
    public static func open(mirrorPath: String, server: (any IdempotentAppendStorage)?) throws(StoreError) -> SyncSession {
        try open(mirrorPath: mirrorPath, server: server, prover: nil)
    }

    /// ``open(mirrorPath:server:)``, going on from `prover`, what a session
    /// on the same mirror proved and hashed before (``prover``), so a process
    /// that opens a session for each round (`sync --follow`) does not hash
    /// the mirror again each time.
    package static func open(
        mirrorPath: String, server: (any IdempotentAppendStorage)?, prover: SyncHeadProver?
    ) throws(StoreError) -> SyncSession {
        let session = try openSession(mirrorPath: mirrorPath, server: server)
        if let prover { session.state.withLock { $0.prover = prover } }
        return session
    }

    private static func openSession(mirrorPath: String, server: (any IdempotentAppendStorage)?) throws(StoreError) -> SyncSession {
        let (mirror, state) = try openMirror(at: mirrorPath, server: server)
        do {
            let outbox = try SyncOutbox.open(path: SyncOutbox.path(forLogAt: mirrorPath))
            return SyncSession(mirror: mirror, server: state, outbox: outbox, serverLog: server)
        } catch {
            mirror.close()
            throw .storage(error)
        }
    }

    /// Opens the mirror at `mirrorPath` (created if missing: a based log when
    /// the server list was cut) and folds it.
    static func openMirror(at mirrorPath: String, server: (any IdempotentAppendStorage)?) throws(StoreError) -> (LogWriter, SyncState) {
        var state: SyncState
        let mirror: LogWriter
        do {
            // The mirror is the server's records, pulled again if a crash loses some: a pull syncs it once, at its end.
            var options = LogWriter.Options(durability: .noSync, createIfMissing: true)
            options.writesSyncMirror = true
            // A new mirror of a list that was cut starts where the list does: a based log of its history.
            if !options.fileSystem.exists(mirrorPath), let start = server?.historyStart, let base = start.base {
                var header = LogHeader(logID: start.logID, createdAt: base.cutAt, base: base, previousChecksum: start.chainValue)
                header.version = LogFormat.basedVersion
                options.creationHeader = header
            }
            // A based mirror folds on from its base's list (none yet for a new file: it is read once created).
            state = SyncState(base: try LabelList.origin(ofLogAt: mirrorPath))
            mirror = try LogWriter.open(path: mirrorPath, options: options) { record in
                try state.fold(record)
            }
            if state.list.lastSeq == 0, mirror.base != nil {
                state = SyncState(base: try LabelList.origin(of: mirror.header, path: mirrorPath))
            }
        } catch let error as StoreError {
            throw error
        } catch let error as EventLogError {
            throw .storage(error)
        } catch let error as ProjectionError {
            throw .inconsistent(error)
        } catch {
            throw .storage(EventLogError(.ioError, "the mirror could not be opened: \(error)", path: mirrorPath))
        }
        return (mirror, state)
    }

    /// The optimistic state of the mirror at `mirrorPath` — its records
    /// folded (from its base, if based), its outbox's pending commands on
    /// top — and how many are pending, read without the locks a session
    /// holds: for tools that show a device's list while its app runs.
    ///
    /// - Throws: ``StoreError``: `storage` for what reading the mirror or the
    ///   outbox throws (no outbox: `fileNotFound`); `inconsistentEvent` for a
    ///   mirror that does not fold.
    public static func optimisticState(mirrorPath: String) throws(StoreError) -> (state: SyncState, pending: [SyncCommand]) {
        let pending: [SyncCommand]
        do throws(EventLogError) {
            pending = try SyncOutbox.read(path: SyncOutbox.path(forLogAt: mirrorPath)).pending
        } catch {
            throw .storage(error)
        }
        var state = SyncState(base: try LabelList.origin(ofLogAt: mirrorPath))  // empty for a log from seq 1
        do {
            let reader = try LogReader(path: mirrorPath)
            while let record = try reader.next() { try state.fold(record) }
        } catch let error as EventLogError {
            throw .storage(error)
        } catch let error as ProjectionError {
            throw .inconsistent(error)
        } catch {
            throw .storage(EventLogError(.ioError, "the mirror could not be read: \(error)", path: mirrorPath))
        }
        for command in pending { state.applyPending(command) }
        return (state, pending)
    }

    /// The server list's state as last pulled (the mirror's).
    public var serverState: SyncState { state.withLock { $0.server } }

    /// The list the device shows: the mirror's with every pending command
    /// applied on top, as the device decides them.
    public var optimistic: SyncState {
        if let kept = optimisticState.withLock({ $0 }) { return kept }
        return state.withLock { s in refreshOptimistic(over: s.server) }
    }

    /// Sets the optimistic state to `server` with every pending command on
    /// top, and returns it (with ``state``'s lock held, or from a sync).
    @discardableResult
    func refreshOptimistic(over server: SyncState) -> SyncState {
        optimisticState.withLock { kept in
            var optimistic = server
            for command in outbox.pending { optimistic.applyPending(command) }
            kept = optimistic
            return optimistic
        }
    }

    /// The records of the optimistic list: the mirror's, then the events of
    /// each pending command as the device decides them, at the seqs after the
    /// mirror's (what the list would be if the server took them now). Reads
    /// the whole mirror: for tools that fold it with their own store.
    ///
    /// - Throws: ``StoreError``: `storage` for a read of the mirror that fails; `closed`.
    public func optimisticRecords() throws(StoreError) -> [EventRecord] {
        try state.withLock { (s) throws(StoreError) -> [EventRecord] in
            guard let mirror = s.mirror else { throw StoreError(.closed, "the sync session is closed") }
            var records: [EventRecord] = []
            do throws(EventLogError) {
                while true {
                    let chunk = try mirror.read(from: UInt64(records.count) + 1, maxCount: 65_536)
                    if chunk.isEmpty { break }
                    records += chunk
                }
            } catch {
                throw .storage(error)
            }
            var optimistic = s.server
            for command in outbox.pending {
                guard case .apply(let events) = optimistic.applyPending(command) else { continue }
                for event in events {
                    records.append(EventRecord(seq: UInt64(records.count) + 1, timestamp: command.madeAt, event: event))
                    records[records.count - 1].actor = command.actor
                    records[records.count - 1].note = command.note
                }
            }
            return records
        }
    }

    /// Makes the device's edit `command` on the optimistic list and keeps it
    /// in the outbox; returns it once it is durable there (then the app may
    /// say it is saved), or `nil` when it changes nothing.
    ///
    /// - Throws: ``StoreError``: the command's refusal on the optimistic list
    ///   (an unknown or removed id, a position out of range, a bad title);
    ///   `storage` when the outbox cannot be written.
    @discardableResult
    public func make(_ command: LabelCommand, actor: String? = nil, note: String? = nil) throws(StoreError) -> SyncCommand? {
        try make(all: [command], actor: actor, note: note).first
    }

    /// Makes the device's edits `commands`, each on the optimistic list the
    /// ones before it leave, and keeps them in the outbox as one entry: all
    /// of them durable when it returns, or, if it throws, none (a crash keeps
    /// all or none too). Commands that change nothing are left out.
    ///
    /// - Throws: What ``make(_:actor:note:)`` throws, for the first command refused.
    @discardableResult
    public func make(all commands: [LabelCommand], actor: String? = nil, note: String? = nil) throws(StoreError) -> [SyncCommand] {
        if optimisticState.withLock({ $0 == nil }) { _ = optimistic }  // built outside its lock (it takes the state's)
        return try optimisticState.withLock { (kept) throws(StoreError) -> [SyncCommand] in
            var optimistic = kept ?? SyncState()
            kept = nil  // one reference: the edits below change it in place; rebuilt when needed if they fail
            var made: [SyncCommand] = []
            for command in commands {
                guard let next = try optimistic.syncCommand(for: command, actor: actor, note: note) else { continue }
                optimistic.applyPending(next)
                made.append(next)
            }
            do throws(EventLogError) { try outbox.append(contentsOf: made) } catch { throw .storage(error) }
            kept = optimistic
            return made
        }
    }

    /// Closes the mirror and the outbox.
    public func close() {
        state.withLock { s in
            s.mirror?.close()
            s.mirror = nil
        }
        outbox.close()
    }
}
