import EventLog
import Foundation

/// Pulling the server list into the mirror, and pushing the outbox.
extension SyncSession {
    /// Reads per round trip while pulling.
    static let pullChunk = 4_096

    /// One round: pulls what is new, pushes every pending command in order
    /// (each decided against the server list as it is when it is appended),
    /// and returns what it did. On a failure (the server unreachable, say)
    /// it throws; the commands not yet done stay pending with what was noted
    /// about them, and the next round settles them first.
    ///
    /// - Throws: ``StoreError``: `storage` for what the server, the mirror or
    ///   the outbox throws (`historyDiverged` when the server's record at the
    ///   mirror's last seq is not the mirror's); `inconsistentEvent` for a
    ///   pulled record that does not fold; `closed`.
    @discardableResult
    public func sync() throws(StoreError) -> Report {
        try state.withLock { (s) throws(StoreError) -> Report in
            guard let mirror = s.mirror else { throw StoreError(.closed, "the sync session is closed") }
            var pulled = try pull(into: mirror, &s)
            var done: [Done] = []
            for command in outbox.pending {
                let (outcome, more) = try push(command, into: mirror, &s)
                pulled += more
                done.append(Done(command: command, outcome: outcome))
            }
            return Report(pulled: pulled, done: done, lastSeq: mirror.lastSeq, pending: outbox.pending.count)
        }
    }

    /// Appends the server's records after the mirror's last seq to the
    /// mirror (the same seqs, times, actors, notes and events, so the same
    /// payloads) and folds them; returns how many. First checks that the
    /// server still holds the mirror's last record as it is.
    func pull(into mirror: LogWriter, _ s: inout State) throws(StoreError) -> Int {
        var count = 0
        do {
            let last = mirror.lastSeq
            if last > 0 {
                let theirs = try serverLog.read(from: last, maxCount: 1).first
                let ours = try mirror.read(from: last, maxCount: 1).first
                guard let theirs, theirs == ours else {
                    throw EventLogError(
                        .historyDiverged,
                        "the server list's record at seq \(last) is not the mirror's: the server's history was rewritten, or this mirror is of another list; nothing was pulled or pushed",
                        path: mirrorPath, lastGoodSeq: last - 1)
                }
            }
            while true {
                let records = try serverLog.read(from: mirror.lastSeq + 1, maxCount: Self.pullChunk)
                if records.isEmpty { break }
                let entries = records.map { LogEntry($0.event, timestamp: $0.timestamp, actor: $0.actor, note: $0.note) }
                let written = try mirror.append(entries, expectedLastSeq: records[0].seq - 1)
                for record in written { try fold(record, &s) }
                count += written.count
            }
        } catch let error as StoreError {
            throw error
        } catch let error as EventLogError {
            throw .storage(error)
        } catch {
            throw .storage(EventLogError(.ioError, "pulling failed: \(error)", path: mirrorPath))
        }
        return count
    }

    private func fold(_ record: EventRecord, _ s: inout State) throws(StoreError) {
        do { try s.server.fold(record) } catch { throw .inconsistent(error) }
    }

    /// Pushes one pending command until the server list holds its records or
    /// its refusal (or the rule finds it satisfied); returns its outcome and
    /// the records pulled meanwhile.
    private func push(_ command: SyncCommand, into mirror: LogWriter, _ s: inout State) throws(StoreError) -> (SyncLedger.Outcome, Int) {
        var pulled = 0
        while true {
            // Sent before (a crash, a lost reply)? The row after the seq it was sent after says.
            if let after = outbox.attempt(of: command.batchID) {
                let found: UUID?
                do { found = try serverLog.batchID(atSeq: after + 1) } catch { throw .storage(error) }
                if found == command.batchID {
                    pulled += try pull(into: mirror, &s)
                    let outcome = try settled(command, at: after + 1, mirror: mirror, &s)
                    try finish(command, outcome)
                    return (outcome, pulled)
                }
            }
            let decision = SyncRebase.decide(command, on: s.server, resolving: s.ledger.resolve)
            let events = SyncRebase.events(for: decision, of: command)
            let expected = mirror.lastSeq
            if events.isEmpty {
                s.ledger.record(command, decision, firstSeq: expected + 1, state: s.server)
                try finish(command, .satisfied)
                return (.satisfied, pulled)
            }
            do {
                try outbox.noteAttempt(command.batchID, afterSeq: expected)
                let entries = events.map { LogEntry($0, timestamp: command.madeAt, actor: command.actor, note: command.note) }
                _ = try serverLog.append(entries, expectedLastSeq: expected, batchID: command.batchID)
            } catch let error where error.code == .seqConflict {
                pulled += try pull(into: mirror, &s)  // another device was first: decide again on the list as it is
                continue
            } catch {
                throw .storage(error)
            }
            pulled += try pull(into: mirror, &s)
            s.ledger.record(command, decision, firstSeq: expected + 1, state: s.server)
            let outcome: SyncLedger.Outcome
            if case .refused(let refusal) = decision {
                outcome = .refused(refusal, seq: expected + 1)
            } else {
                outcome = .applied(firstSeq: expected + 1)
            }
            try finish(command, outcome)
            return (outcome, pulled)
        }
    }

    /// The outcome of `command`, which an earlier try appended at `seq` (now
    /// in the mirror), recorded in the ledger as it was decided then.
    private func settled(_ command: SyncCommand, at seq: UInt64, mirror: LogWriter, _ s: inout State) throws(StoreError)
        -> SyncLedger.Outcome
    {
        let record: EventRecord?
        do { record = try mirror.read(from: seq, maxCount: 1).first } catch { throw .storage(error) }
        guard let record else {
            throw .storage(
                EventLogError(.seqGap, "the server holds batch \(command.batchID) at seq \(seq), but it was not pulled", path: mirrorPath))
        }
        let decision: SyncDecision
        if case .rejected(_, _, let reason) = record.event {
            let refusal = SyncRefusal(reason == SyncRefusal(.titleChanged).message ? .titleChanged : .labelRemoved)
            decision = .refused(refusal)
        } else {
            decision = .apply([record.event])
        }
        s.ledger.record(command, decision, firstSeq: seq, state: s.server)
        if case .refused(let refusal) = decision { return .refused(refusal, seq: seq) }
        return .applied(firstSeq: seq)
    }

    private func finish(_ command: SyncCommand, _ outcome: SyncLedger.Outcome) throws(StoreError) {
        do throws(EventLogError) { try outbox.markDone(command.batchID, outcome) } catch { throw .storage(error) }
    }
}
