import EventLog
import Foundation

/// Pulling the server list into the mirror, and pushing the outbox.
extension SyncSession {
    /// Reads per round trip while pulling.
    static let pullChunk = 4_096

    /// One round: pulls what is new, then pushes the pending commands in
    /// order, in groups of up to 1,024 — each command decided
    /// against the server list as it is when the group is appended, the
    /// group's records appended at once with one batch id — and returns what
    /// it did. On a failure (the server unreachable, say) it throws; the
    /// commands not yet done stay pending with the attempt noted for them,
    /// and the next round settles it first.
    ///
    /// - Throws: ``StoreError``: `storage` for what the server, the mirror or
    ///   the outbox throws (`historyDiverged` when the server's record at the
    ///   mirror's last seq is not the mirror's); `inconsistentEvent` for a
    ///   pulled record that does not fold; `closed`.
    ///
    /// - Parameter resolution: What to take a push for that a crash left open
    ///   and that cannot be settled — its row was removed by a cut that kept no
    ///   batch ids (``OpenPushResolution``); without it, such a round fails
    ///   with `archived`. Ignored when there is no such push.
    @discardableResult
    public func sync(resolvingOpenPush resolution: OpenPushResolution? = nil) throws(StoreError) -> Report {
        try state.withLock { (s) throws(StoreError) -> Report in
            guard s.mirror != nil else { throw StoreError(.closed, "the sync session is closed") }
            guard serverLog != nil else {
                throw StoreError(.invalidCommand, "the sync session of \(mirrorPath) was opened without a server list to sync with")
            }
            // However the round ends, the optimistic state is the server's as pulled, with what is still pending.
            defer { refreshOptimistic(over: s.server) }
            let start = try catchUp(&s, resolving: resolution)
            let mirror = start.mirror
            var pulled = start.pulled
            var done = start.done
            if let settled = try settleOpenAttempt(mirror: mirror, &s) {
                pulled += settled.pulled
                done += settled.done
            }
            while !outbox.pending.isEmpty {
                let group = try pushGroup(Array(outbox.pending.prefix(Self.pushGroup)), into: mirror, &s)
                pulled += group.pulled
                done += group.done
            }
            return Report(
                pulled: pulled, done: done, lastSeq: mirror.lastSeq, pending: outbox.pending.count,
                provenHead: s.prover.flatMap { $0.proven.count > mirrorStart(mirror).count ? $0.proven.head : nil },
                setAsideMirror: start.setAside)
        }
    }

    /// Starts the round: sets an overtaken mirror aside and starts a new one
    /// (``restartIfOvertaken(_:resolving:)``), begins proving, and pulls;
    /// returns the mirror, where the old one went, the commands a resolution
    /// settled, and the records pulled. When the pull finds the list cut past
    /// the mirror only now (a session that read the list's base before the
    /// cut: `sync --follow`, a synced store), it does it once more from the
    /// base the failed read found.
    private func catchUp(
        _ s: inout State, resolving resolution: OpenPushResolution?
    ) throws(StoreError) -> (mirror: LogWriter, setAside: String?, done: [Done], pulled: Int) {
        var again = false
        while true {
            let (setAside, done) = try restartIfOvertaken(&s, resolving: resolution)
            guard let mirror = s.mirror else { throw StoreError(.closed, "the sync session is closed") }
            try beginProving(mirror: mirror, &s)
            do {
                return (mirror, setAside, done, try pull(into: mirror, &s))
            } catch {
                guard !again, setAside == nil, case .storage(let cause) = error.code, cause.code == .seqGap,
                    mirror.lastSeq < serverLog?.base?.lastCutSeq ?? 0
                else { throw error }
                again = true
            }
        }
    }

    /// The most commands pushed in one append.
    static let pushGroup = 1_024

    /// Appends the server's records after the mirror's last seq to the
    /// mirror as they are (the same seqs, times, actors, notes and events, so
    /// the same payloads) and folds them; returns how many. First checks that the
    /// server still holds the mirror's last record as it is. The mirror is
    /// synced once, at the end: records a crash loses from it are the
    /// server's, and the next pull fetches them again (nothing in the outbox
    /// depends on the mirror holding them).
    func pull(into mirror: LogWriter, _ s: inout State) throws(StoreError) -> Int {
        guard let serverLog else { return 0 }
        var count = 0
        do {
            let last = mirror.lastSeq
            let serverBase = serverLog.base?.lastCutSeq ?? 0
            if last < serverBase {
                throw EventLogError(
                    .archived,
                    "the server list's records after seq \(last) through seq \(serverBase) were cut off (archived or dropped) since this mirror last synced, so it cannot catch up; remove the mirror (keep \(SyncOutbox.path(forLogAt: mirrorPath)): its edits are pushed from the new one) and sync again to start a mirror from the list's base",
                    path: mirrorPath, lastGoodSeq: last)
            }
            // The mirror's last record, if the mirror and the server both hold it (a new based mirror holds
            // none yet; a list cut right through the mirror's last seq holds it no longer).
            if last > max(mirror.base?.lastCutSeq ?? 0, serverBase) {
                let theirs = try serverLog.read(from: last, maxCount: 1).first
                let ours = try mirror.read(from: last, maxCount: 1).first
                guard let theirs, theirs == ours else {
                    throw EventLogError(
                        .historyDiverged,
                        "the server list's record at seq \(last) is not the mirror's: the server's history was rewritten, or this mirror is of another list; nothing was pulled or pushed",
                        path: mirrorPath, lastGoodSeq: last - 1)
                }
            }
            // The pages are read ahead on a second thread (the server's round trips and the checks of the rows:
            // nothing else, so the server is asked again as soon as a page is in) while this one decodes, writes,
            // folds and, while heads are to be proven, hashes (the payloads as the server holds them) and proves each.
            let hashing = s.prover != nil
            let reader = SyncPageReader(serverLog, from: mirror.lastSeq + 1, pageSize: Self.pullChunk)
            defer { reader.stop() }
            while true {
                let (page, leaves) = try reader.next().records(of: serverLog, hashing: hashing)
                guard !page.isEmpty else { break }
                // The server's records as they are (seqs, times, actors, notes): the mirror's frames hold the same payloads.
                try mirror.append(records: page, expectedLastSeq: page[0].seq - 1)
                for record in page { try fold(record, &s) }
                if var prover = s.prover {
                    defer { s.prover = prover }
                    do throws(EventLogError) {
                        try prover.add(page, leaves: leaves, mirrorPath: mirrorPath)
                    } catch {
                        throw StoreError.storage(error)
                    }
                }
                count += page.count
            }
            if count > 0 { try mirror.sync() }
        } catch let error as StoreError {
            throw error
        } catch let error as EventLogError {
            throw .storage(error)
        } catch {
            throw .storage(EventLogError(.ioError, "pulling failed: \(error)", path: mirrorPath))
        }
        return count
    }

    fileprivate func fold(_ record: EventRecord, _ s: inout State) throws(StoreError) {
        do { try s.server.fold(record) } catch { throw .inconsistent(error) }
    }

    /// Settles the push the outbox noted and a crash or a lost reply left
    /// open: if the server's row after its seq holds its group id, it
    /// committed — its commands are done as planned; if not, nothing of it
    /// was written, and its commands are decided again.
    private func settleOpenAttempt(mirror: LogWriter, _ s: inout State) throws(StoreError) -> (done: [Done], pulled: Int)? {
        guard let attempt = outbox.openAttempt, let serverLog else { return nil }
        let found: UUID?
        do throws(EventLogError) { found = try serverLog.batchID(atSeq: attempt.afterSeq + 1) } catch { throw .storage(error) }
        guard found == attempt.group else { return nil }
        let pulled = try pull(into: mirror, &s)
        return (try finish(attempt.plan, &s), pulled)
    }

    /// Pushes `commands` (the first pending ones) as one append after the
    /// mirror's last seq, deciding each on the server's state as the ones
    /// before it leave it; after a conflict (another device was first) pulls
    /// and decides them again.
    private func pushGroup(_ commands: [SyncCommand], into mirror: LogWriter, _ s: inout State) throws(StoreError) -> (
        done: [Done], pulled: Int
    ) {
        var pulled = 0
        while true {
            let after = mirror.lastSeq
            var work = s.server
            var ledger = s.ledger
            var plan: [SyncLedger.Entry] = []
            var entries: [LogEntry] = []
            for command in commands {
                let decision = SyncRebase.decide(command, on: work, resolving: ledger.resolve)
                let firstSeq = after + UInt64(entries.count) + 1
                let entry = SyncLedger.entry(for: command, decision, firstSeq: firstSeq, state: work)
                for event in SyncRebase.events(for: decision, of: command) {
                    let record = EventRecord(seq: work.list.lastSeq + 1, timestamp: command.madeAt, event: event)
                    // Decided on this very state: it folds.
                    do throws(ProjectionError) { try work.fold(record) } catch { throw .inconsistent(error) }
                    entries.append(LogEntry(event, timestamp: command.madeAt, actor: command.actor, note: command.note))
                }
                ledger.record(entry)
                plan.append(entry)
            }
            if entries.isEmpty { return (try finish(plan, &s), pulled) }  // all satisfied: nothing to send
            let attempt = SyncOutbox.Attempt(group: UUID(), afterSeq: after, plan: plan)
            guard let serverLog else { throw StoreError(.invalidCommand, "no server list to push to") }
            do throws(EventLogError) {
                try outbox.noteAttempt(attempt)
                _ = try serverLog.append(entries, expectedLastSeq: after, batchID: attempt.group)
            } catch  where error.code == .seqConflict {
                pulled += try pull(into: mirror, &s)  // another device was first: decide again on the list as it is
                continue
            } catch {
                throw .storage(error)
            }
            pulled += try pull(into: mirror, &s)
            return (try finish(plan, &s), pulled)
        }
    }

    /// Records `plan` in the ledger and marks its commands done.
    func finish(_ plan: [SyncLedger.Entry], _ s: inout State) throws(StoreError) -> [Done] {
        let commands = Dictionary(uniqueKeysWithValues: outbox.pending.map { ($0.batchID, $0) })
        do throws(EventLogError) { try outbox.markDone(plan) } catch { throw .storage(error) }
        for entry in plan { s.ledger.record(entry) }
        return plan.compactMap { entry in commands[entry.batchID].map { Done(command: $0, outcome: entry.outcome) } }
    }
}
