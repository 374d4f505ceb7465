import EventLog
import Foundation

/// Group commit: every write queued while the previous group was being
/// appended is committed together, with one append and so one sync.
///
/// Under the store's lock, a committer takes the queued requests in order and
/// validates each against the state the ones before it leave (the earlier
/// requests' events are folded into the projection on trial and rolled back,
/// so nothing of the group is visible yet). It appends every accepted
/// request's entries in one all-or-nothing append, which returns once they are
/// as durable as the log's ``Durability`` promises; only then are the records
/// applied, notifications queued and the requests completed, in seq order.
/// Readers wait on the lock while a group is appended, so a read never shows a
/// write that is not yet durable; a refused request refuses only itself.
extension LabelStore {
    /// What one request of a group comes to before the append.
    private enum Plan {
        /// The entries to append (none: the write changes nothing).
        case accepted([LogEntry])
        /// Refused; `audit` is the rejection's audit entry, when one is recorded.
        case refused(StoreError, audit: LogEntry?)

        var entries: [LogEntry] {
            switch self {
            case .accepted(let entries): entries
            case .refused(_, let audit): audit.map { [$0] } ?? []
            }
        }
    }

    /// Commits every queued request as one group (the caller holds the lock);
    /// returns a snapshot that became due, to write once the lock is released.
    func commitQueued(_ s: inout State) -> PendingSnapshot? {
        let group = writeQueue.takeAll()
        guard !group.isEmpty else { return nil }
        let before = s.list.lastSeq
        let outcomes = commit(group, &s)
        for (request, outcome) in zip(group, outcomes) { request.complete(outcome) }
        return s.list.lastSeq > before ? snapshotDue(&s) : nil
    }

    /// Validates, appends and applies `group`; returns each request's outcome, in order.
    private func commit(_ group: [WriteRequest], _ s: inout State) -> [WriteRequest.Outcome] {
        if s.closed { return group.map { _ in .failure(.closedStore) } }
        if let broken = s.broken { return group.map { _ in .failure(broken) } }
        // Read the clock under the lock, so timestamps follow seq order (given a monotonic clock).
        let now = options.clock()
        if let exclusive = storage as? any ExclusiveAppendStorage, exclusive.prefersExclusiveAppends {
            return commitExclusively(group, through: exclusive, now: now, &s)
        }
        var attempt = 0
        while true {
            let plans = validate(group, now: now, &s)
            let entries = plans.flatMap(\.entries)
            if entries.isEmpty { return plans.map(Self.outcomeWithoutAppend) }
            let records: [EventRecord]
            do throws(EventLogError) {
                records = try storage.append(entries, expectedLastSeq: s.list.lastSeq)
            } catch {
                if error.code == .seqConflict, attempt < options.conflictRetries {
                    // Another writer appended: fold its records, then validate the group again.
                    attempt += 1
                    if attempt > 2 { Self.pauseAfterConflict(attempt) }
                    do throws(StoreError) { try catchUp(&s) } catch { return group.map { _ in .failure(error) } }
                    continue
                }
                return failed(group, plans, error, &s)
            }
            return applied(group, plans, records, &s)
        }
    }

    /// Commits `group` holding the storage's append lock (pessimistic mode):
    /// catches up to the seq the lock guards, validates, appends; no conflict.
    private func commitExclusively(
        _ group: [WriteRequest], through storage: any ExclusiveAppendStorage, now: EventTimestamp, _ s: inout State
    ) -> [WriteRequest.Outcome] {
        var plans: [Plan] = []
        var caughtUp: StoreError?
        let records: [EventRecord]
        do throws(EventLogError) {
            records = try storage.appendExclusively { head in
                if head > s.list.lastSeq {
                    do throws(StoreError) { try catchUp(&s) } catch {
                        caughtUp = error
                        return []
                    }
                }
                plans = validate(group, now: now, &s)
                return plans.flatMap(\.entries)
            }
        } catch {
            if let caughtUp { return group.map { _ in .failure(caughtUp) } }
            return failed(group, plans.isEmpty ? validate(group, now: now, &s) : plans, error, &s)
        }
        if let caughtUp { return group.map { _ in .failure(caughtUp) } }
        if records.isEmpty { return plans.map(Self.outcomeWithoutAppend) }
        return applied(group, plans, records, &s)
    }

    /// The outcomes when the append of `plans` failed with `error`.
    private func failed(_ group: [WriteRequest], _ plans: [Plan], _ error: EventLogError, _ s: inout State) -> [WriteRequest.Outcome] {
        if group.count > 1, error.code != .poisoned, error.code != .closed, error.code != .seqConflict, error.code != .timedOut,
            error.code != .connectionFailed
        {
            // One request may be what the log refuses (an actor over its limit, …):
            // commit each alone, so the others are not refused with it.
            return group.flatMap { commit([$0], &s) }
        }
        return plans.map { plan in Self.outcome(of: plan, failure: StoreError.storage(error)) }
    }

    /// Applies the appended `records` and returns each request's outcome, in order.
    private func applied(_ group: [WriteRequest], _ plans: [Plan], _ records: [EventRecord], _ s: inout State) -> [WriteRequest.Outcome] {
        noteOwnAppend(records, &s)
        for record in records {
            do throws(StoreError) { try applyStored(record, &s) } catch { return group.map { _ in .failure(error) } }
        }
        var next = records[...]
        return plans.map { plan in
            let mine = next.prefix(plan.entries.count)
            next = next.dropFirst(plan.entries.count)
            switch plan {
            case .accepted: return .success(Array(mine))
            case .refused(var error, _):
                error.auditSeq = mine.first?.seq
                return .failure(error)
            }
        }
    }

    /// A jittered pause after the `attempt`th conflict in a row (from the third):
    /// up to 1 ms × 2^(attempt-3), at most 50 ms, so writers racing for one
    /// shared list spread out instead of colliding again at once.
    static func pauseAfterConflict(_ attempt: Int) {
        let ceiling = min(0.050, 0.001 * Double(1 << min(attempt - 3, 10)))
        Thread.sleep(forTimeInterval: Double.random(in: (ceiling / 2)...ceiling))
    }

    /// Each request's plan, validated against the state the requests before it
    /// leave. The list is unchanged on return: the events of all but the last
    /// request are folded on trial and rolled back.
    private func validate(_ group: [WriteRequest], now: EventTimestamp, _ s: inout State) -> [Plan] {
        if group.count == 1 { return [plan(for: group[0], now: now, &s.list)] }
        // Each request's failure is its plan: the rollback's closure does not throw.
        return s.list.withRollback { (list) -> [Plan] in
            var plans: [Plan] = []
            plans.reserveCapacity(group.count)
            for (i, request) in group.enumerated() {
                var plan = plan(for: request, now: now, &list)
                if i < group.count - 1, !plan.entries.isEmpty {
                    let entries = plan.entries
                    do throws(StoreError) {
                        try list.withSavepoint { (list) throws(StoreError) in
                            for entry in entries {
                                do throws(ProjectionError) {
                                    try list.replay(entry.record(seq: list.lastSeq + 1, now: now))
                                } catch {
                                    throw StoreError.inconsistent(error)
                                }
                            }
                        }
                    } catch {
                        plan = .refused(error, audit: nil)
                    }
                }
                plans.append(plan)
            }
            return plans
        }
    }

    /// One request's plan in state `list` (which it leaves as it found it).
    private func plan(for request: WriteRequest, now: EventTimestamp, _ list: inout LabelList) -> Plan {
        do throws(StoreError) {
            try request.options.validate()
        } catch {
            return .refused(error, audit: nil)  // the audit record would carry the same actor or note
        }
        do throws(StoreError) {
            return .accepted(try request.makeEntries(&list, now))
        } catch {
            return .refused(error, audit: auditEntry(for: error, request: request, now: now))
        }
    }

    /// The `rejected` audit entry for a refusal, when ``Options/recordRejections`` asks for one.
    private func auditEntry(for error: StoreError, request: WriteRequest, now: EventTimestamp) -> LogEntry? {
        guard options.recordRejections, error.isRejection, let audit = request.audit else { return nil }
        var command = WriteText.escapingNUL(audit.command)
        if let index = error.batchIndex { command += " (command \(index) failed)" }
        let event = LabelEvent.rejected(
            id: audit.id ?? error.id, command: command.clipped(toUTF8: LogLimits.maxReasonBytes),
            reason: WriteText.escapingNUL(error.message).clipped(toUTF8: LogLimits.maxReasonBytes))
        let options = request.options
        return LogEntry(event, timestamp: options.timestamp ?? now, actor: options.actor, note: options.note)
    }

    /// A plan's outcome when the group appended nothing.
    private static func outcomeWithoutAppend(_ plan: Plan) -> WriteRequest.Outcome {
        switch plan {
        case .accepted: .success([])
        case .refused(let error, _): .failure(error)
        }
    }

    /// A plan's outcome when the group's append failed with `failure`.
    private static func outcome(of plan: Plan, failure: StoreError) -> WriteRequest.Outcome {
        switch plan {
        case .accepted(let entries): return entries.isEmpty ? .success([]) : .failure(failure)
        case .refused(var error, let audit):
            if audit != nil { error.message += " (The audit record could not be written: \(failure.message))" }
            return .failure(error)
        }
    }
}
