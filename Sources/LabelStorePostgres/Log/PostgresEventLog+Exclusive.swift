#if Postgres
import EventLog
import Foundation

/// Pessimistic mode: a group of writes committed holding the list's write
/// lock (a transaction advisory lock keyed by the schema and the list, taken
/// under a `lock_timeout`), on a connection of its own (reads to catch up go
/// through the session connection). The lock orders pessimistic writers;
/// an optimistic append takes no lock, and one that takes the next seq first
/// makes the turn start again (the records' key refuses the second insert).
extension PostgresEventLog: ExclusiveAppendStorage {
    /// Takes the list's write lock (waiting at most ``Options-swift.struct/lockTimeout``),
    /// calls `decide` with the list's last seq, appends what it returns after
    /// that seq with the same statement as ``append(_:expectedLastSeq:)``, and
    /// commits, which releases the lock. When an optimistic append took that
    /// seq meanwhile, nothing is committed and `decide` is called again with
    /// the new last seq.
    ///
    /// - Durability: returns after `COMMIT` returned. If the connection is lost
    ///   during the commit, the outcome is settled as for any append: the
    ///   session that sent it is ended, then the batch id is looked for.
    /// - Throws: `EventLogError`: `timedOut` when the lock was not granted in
    ///   time; `connectionFailed` when no server that accepts writes was
    ///   reached within ``Options-swift.struct/reconnectTimeout`` before the
    ///   append was sent (a restart or a failover is waited for that long), or
    ///   when the connection was lost after it was sent (nothing was
    ///   committed: the transaction was not, or the batch was looked for after
    ///   its session ended); `outcomeUnknown` when that could not be found out;
    ///   `invalidEvent`; `serverError`; `closed`.
    public func appendExclusively(_ decide: (_ lastSeq: UInt64) -> [LogEntry]) throws(EventLogError) -> [EventRecord] {
        if isReadOnly { throw Self.readOnly(location, version: Int64(schemaVersion), doing: "append to the list") }
        let batch = UUID()
        let now = options.clock()
        let lockMilliseconds = max(1, options.lockTimeout.wholeMilliseconds)
        var sent: (backend: PostgresBackend, seqs: ClosedRange<UInt64>)?
        let deadline = ContinuousClock.now.advanced(by: options.reconnectTimeout)
        var delay = Duration.milliseconds(20)
        while true {
            switch try lockedTurn(batch: batch, now: now, lockMilliseconds: lockMilliseconds, sent: &sent, decide) {
            case .success(let records):
                return records
            case .failure(let error) where error.code == .seqConflict:
                continue
            case .failure(let error):
                // The commit may have happened, or happen yet, if the connection was lost after the append was sent.
                if let sent, error.code == .connectionFailed {
                    var tries = SentBatch(id: batch, count: sent.seqs.count)
                    tries.sent(at: sent.seqs.lowerBound)
                    return try recordsOrFailure(of: tries, sentOn: sent.backend, seqs: sent.seqs, failure: error)
                }
                // Nothing sent but the lock: a server that accepts writes is waited for (a restart, a failover).
                guard sent == nil, error.code == .connectionFailed, ContinuousClock.now < deadline else { throw error }
                Thread.sleep(forTimeInterval: delay.timeInterval * Double.random(in: 0.5...1.0))
                delay = min(delay * 2, .seconds(1))
            }
        }
    }

    /// One locked turn on the lock connection (connected first, to a server
    /// that accepts writes): the lock, `decide`, the append and its commit.
    /// `sent` is set once the append is sent.
    private func lockedTurn(
        batch: UUID, now: EventTimestamp, lockMilliseconds: Int64, sent: inout (backend: PostgresBackend, seqs: ClosedRange<UInt64>)?,
        _ decide: (_ lastSeq: UInt64) -> [LogEntry]
    ) throws(EventLogError) -> Result<[EventRecord], EventLogError> {
        try lockSession.withLock { (slot) throws(EventLogError) -> Result<[EventRecord], EventLogError> in
            if closed.load(ordering: .acquiring) {
                throw EventLogError(.closed, "\(location): the log was closed", path: location.description)
            }
            if slot?.isUsable != true || slot?.isReadOnlyServer == true {
                slot?.close()
                slot = nil
                do throws(EventLogError) {
                    slot = try Self.connect(location, options, writable: true)
                } catch {
                    return .failure(error)
                }
            }
            let connection = slot!
            do throws(PostgresStepFailure) {
                // BEGIN, the lock timeout, the list's lock and then its end in one round trip.
                let opened = connection.pipeline([
                    .init(name: "begin", sql: "BEGIN", parameters: [], endsSegment: false),
                    .init(
                        name: "lock-timeout", sql: statements.setLockTimeout, parameters: [.text(String(lockMilliseconds))],
                        endsSegment: false),
                    .init(
                        name: "lock-list", sql: statements.lockList,
                        parameters: [.text(PostgresStatements.lockKey(schema: location.schema, list: location.list))],
                        endsSegment: false),
                    .init(name: "lock-head", sql: statements.lockHead, parameters: [.text(location.list)], endsSegment: true)
                ])
                let locked = try run { () throws(PostgresFailure) in
                    for step in opened.dropLast() { _ = try Self.result(of: step) }
                    return try Self.result(of: opened[3])
                }
                guard locked.rowCount == 1, let value = locked.integer(0, 0), value >= 0, let crcValue = locked.integer(0, 1),
                    let id = locked.uuid(0, 2)
                else {
                    throw PostgresStepFailure.log(
                        EventLogError(
                            .listNotFound, "\(location): the list '\(location.list)' no longer exists", path: location.description))
                }
                try checkSameList(id)
                let head = UInt64(value)
                try checkNotBehind(head: head, on: connection)
                let headCRC = UInt32(truncatingIfNeeded: crcValue)
                noteLastSeq(head)
                let entries = decide(head)
                if entries.isEmpty {
                    _ = try run { () throws(PostgresFailure) in try connection.execute("ROLLBACK") }
                    return .success([])
                }
                let prepared: EncodedBatch
                do throws(EventLogError) {
                    prepared = try encode(entries, after: head, previous: headCRC, now: now)
                } catch {
                    throw PostgresStepFailure.log(error)
                }
                sent = (connection.backend, (head + 1)...(head + UInt64(entries.count)))
                // The append and its COMMIT in one round trip, then the notification in a transaction of its own.
                let newHead = head + UInt64(entries.count)
                var steps: [PostgresConnection.PipelineStatement] = [
                    appendStatement(prepared, batch: batch, endsSegment: false),
                    .init(name: "commit", sql: "COMMIT", parameters: [], endsSegment: true)
                ]
                if options.notify { steps.append(afterAppend(head: newHead)) }
                let outcomes = connection.pipeline(steps, readingFirst: 2)
                let result = try run { () throws(PostgresFailure) in try Self.result(of: outcomes[0]) }
                _ = try run { () throws(PostgresFailure) in try Self.result(of: outcomes[1]) }
                if result.isNull(0, 0) {
                    // Nothing written: an optimistic append moved the list on after the end was read
                    // (committing the list's next records, or its committed length past them).
                    sent = nil
                    throw PostgresStepFailure.log(
                        EventLogError(
                            .seqConflict, "\(location): an append without the lock went past seq \(head) first",
                            path: location.description))
                }
                guard result.integer(0, 0) == Int64(newHead), result.integer(0, 1) == Int64(entries.count) else {
                    throw PostgresStepFailure.log(
                        EventLogError(
                            .serverError, "\(location): the locked append after seq \(head) did not move the head",
                            path: location.description))
                }
                noteChain(seq: newHead, crc: prepared.lastCRC)
                noteVerified(seq: newHead, crc: prepared.lastCRC)
                seenChain.withLock { $0.note(from: head + 1, crcs: prepared.chain) }
                noteLastSeq(newHead)
                noteLockedTurn(head: head, newHead: newHead)
                return .success(prepared.records)
            } catch {
                if case .server(let failure) = error, failure.isUniqueViolation {
                    // An optimistic append (which takes no lock) took the next seq first: nothing of
                    // this turn is committed; the next turn decides again from the new end.
                    _ = try? connection.execute("ROLLBACK")
                    sent = nil
                    return .failure(
                        EventLogError(
                            .seqConflict, "\(location): an append without the lock took the next seq first",
                            path: location.description))
                }
                if case .server(let failure) = error, failure.isServerGone || failure.isReadOnlyTransaction {
                    // Lost, or a server that no longer accepts writes: the next turn connects to one that does.
                    slot?.close()
                    slot = nil
                } else {
                    _ = try? connection.execute("ROLLBACK")
                }
                return .failure(Self.mapped(error, location: location, doing: "append to the list holding its lock"))
            }
        }
    }
}
#endif
