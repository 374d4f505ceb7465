#if Postgres
import EventLog
import Foundation

/// Appending: one statement per batch, committed before it returns, with an
/// idempotent retry through the batch id (docs/POSTGRES.md, "Appending").
extension PostgresEventLog {
    /// The most times an append is sent again after a serialization failure or a
    /// deadlock (SQLSTATE 40001, 40P01) before the failure is thrown.
    static let transactionRetries = 8

    /// Appends `entries` after `expectedLastSeq` (when given), all or nothing, and
    /// returns once the server committed them.
    ///
    /// Without `expectedLastSeq` the entries go after the list's last seq at
    /// the moment of the append (read again after any conflict).
    ///
    /// - Durability: returns after `COMMIT` returned. When the connection is
    ///   lost during the statement (the commit may or may not have happened),
    ///   the log reconnects and looks for the append's batch id: found, the
    ///   records are returned; not found, the same statement is sent again
    ///   (with the same seqs, so it can never land twice). Before any failure
    ///   is thrown after such a loss, the outcome is settled: the session that
    ///   sent the statement is ended and waited for, then the batch is looked
    ///   up (docs/POSTGRES.md, "Lost replies"); found, the records are returned.
    /// - Throws: `EventLogError`: `seqConflict` when the list's last seq is not
    ///   `expectedLastSeq`; `invalidEvent` for an entry beyond a `LogLimits`
    ///   limit; `connectionFailed` when the server stays unreachable past
    ///   ``Options-swift.struct/reconnectTimeout`` (then nothing of the append
    ///   is committed: it never reached the server, or the session that sent
    ///   it ended without committing it); `outcomeUnknown` when a reply was lost
    ///   and the server could not be asked in time whether the append committed
    ///   (the message names the batch id to look for); `listReplaced`;
    ///   `unsupportedVersion` for a list of an older schema (read only);
    ///   `timedOut`; `serverError`; `closed`. Nothing is appended then, except
    ///   perhaps with `outcomeUnknown`.
    @discardableResult
    public func append(_ entries: [LogEntry], expectedLastSeq: UInt64? = nil) throws(EventLogError) -> [EventRecord] {
        try append(entries, expectedLastSeq: expectedLastSeq, batchID: UUID())
    }

    /// Appends `entries` as ``append(_:expectedLastSeq:)`` does, with the
    /// caller's `batchID` as the append's batch id (stored on its first row):
    /// a caller that lost track of the append finds it with
    /// ``batchID(atSeq:)`` at the seq after `expectedLastSeq`. A batch id
    /// names one append: never send two different appends with one.
    ///
    /// - Durability and errors: as ``append(_:expectedLastSeq:)``.
    @discardableResult
    public func append(_ entries: [LogEntry], expectedLastSeq: UInt64?, batchID: UUID) throws(EventLogError) -> [EventRecord] {
        if isReadOnly { throw Self.readOnly(location, version: Int64(schemaVersion), doing: "append to the list") }
        if entries.isEmpty {
            if let expectedLastSeq {
                let last = try refreshLastSeq()
                if last != expectedLastSeq { throw conflict(expected: expectedLastSeq, found: last) }
            }
            return []
        }
        let now = options.clock()
        let batch = batchID
        var expected = expectedLastSeq ?? lastSeq
        var prepared = try encode(entries, after: expected, previous: try chainValue(at: expected), now: now)
        var uncertain = false  // an earlier try may have committed
        var sentTo = PostgresBackend(pid: 0, server: "")  // the backend that received the last try
        var sentSeqs: ClosedRange<UInt64>?
        var tries = SentBatch(id: batch, count: entries.count)  // every seq it was sent at
        var transactionRetries = 0
        var chainRetries = 0
        var conflicted = false
        while true {
            let outcome: AppendOutcome
            do {
                outcome = try withSession(retrying: true, writing: true, doing: "append to the list") {
                    (connection) throws(PostgresStepFailure) -> AppendOutcome in
                    if uncertain, let found = try self.findReplicatedBatch(tries, connection) { return .found(found) }
                    do {
                        let statement = self.appendStatement(prepared, batch: batch, endsSegment: true)
                        sentTo = connection.backend
                        sentSeqs = (expected + 1)...(expected + UInt64(entries.count))
                        tries.sent(at: expected + 1)
                        if self.faults.dropAfterSendingAppends.load(ordering: .relaxed) > 0 {
                            self.faults.dropAfterSendingAppends.subtract(1, ordering: .relaxed)
                            try connection.sendAndDrop(
                                prepared: statement.name, statement.sql, statement.parameters,
                                wait: .milliseconds(self.faults.dropAfterMilliseconds.load(ordering: .relaxed)))
                        }
                        // Acknowledged once the append's segment ended; the head read and the
                        // notification are read later, unless a conflict needs the head now.
                        let outcomes = connection.pipeline(
                            [statement, self.afterAppend(head: expected + UInt64(entries.count))], readingFirst: 1)
                        // The end as the pipeline's next transaction saw it, after the winner's commit:
                        // what a losing append goes on from.
                        func lost() throws(PostgresStepFailure) -> AppendOutcome {
                            let next = connection.finishPipeline().first
                            // After a lost connection the winner may be this append's own earlier
                            // try, committed late (its rows held the key while this one waited).
                            if uncertain, let found = try self.findReplicatedBatch(tries, connection) { return .found(found) }
                            guard case .done(let after)? = next, after.rowCount == 1, let id = after.uuid(0, 0) else {
                                return .conflict(seen: nil)
                            }
                            try self.checkSameList(id)
                            let seen = after.integer(0, 1).map { UInt64(max(0, $0)) }
                            if let seen, let crc = after.integer(0, 2) { self.noteChain(seq: seen, crc: UInt32(truncatingIfNeeded: crc)) }
                            return .conflict(seen: seen.flatMap { $0 > expected ? $0 : nil })
                        }
                        let result: PostgresResult
                        do throws(PostgresFailure) {
                            result = try Self.result(of: outcomes[0])
                        } catch {
                            // Another append took seq `expected + 1` first (or this one's earlier try did).
                            if error.isUniqueViolation { return try lost() }
                            throw error
                        }
                        guard let head = result.integer(0, 0) else { return try lost() }
                        let inserted = result.integer(0, 1) ?? -1
                        guard inserted == Int64(entries.count), head == Int64(expected) + Int64(entries.count) else {
                            throw PostgresStepFailure.log(
                                EventLogError(
                                    .serverError,
                                    "\(location): the append of seqs \(expected + 1)…\(expected + UInt64(entries.count)) inserted \(inserted) rows and moved the head to \(head)",
                                    path: location.description))
                        }
                        return .appended
                    } catch let failure as PostgresFailure {
                        if failure.isServerGone { uncertain = true }
                        throw .server(failure)
                    } catch let failure as PostgresStepFailure {
                        throw failure
                    } catch {
                        preconditionFailure("unexpected error \(error)")
                    }
                } retryIf: { failure in
                    if case .server(let failure) = failure, failure.isRetryableTransactionFailure,
                        transactionRetries < Self.transactionRetries
                    {
                        transactionRetries += 1
                        self.statistics.transactionRetries.add(1, ordering: .relaxed)
                        return true
                    }
                    return false
                }
            } catch {
                // An earlier try's reply was lost: it may have committed, or commit yet. Find out first.
                guard uncertain, let seqs = sentSeqs else { throw error }
                return try recordsOrFailure(of: tries, sentOn: sentTo, seqs: seqs, failure: error)
            }
            switch outcome {
            case .appended:
                if !conflicted { noteCleanAppend() }
                noteChain(seq: expected + UInt64(entries.count), crc: prepared.lastCRC)
                noteVerified(seq: expected + UInt64(entries.count), crc: prepared.lastCRC)
                seenChain.withLock { $0.note(from: expected + 1, crcs: prepared.chain) }
                noteLastSeq(expected + UInt64(entries.count))
                return prepared.records
            case .found(let range):
                return try records(ofCommitted: batch, at: range)
            case .conflict(let seen):
                statistics.conflicts.add(1, ordering: .relaxed)
                if !conflicted {
                    conflicted = true
                    noteConflictedAppend()
                }
                let last: UInt64
                if let seen {
                    last = seen
                    noteLastSeq(seen)
                } else {
                    last = try refreshLastSeq()
                }
                if last == expected {
                    // The end is where this append expected it, with another chain value than the
                    // one this object knew: the end's value is now known; try once more.
                    chainRetries += 1
                    if chainRetries > 2 {
                        throw EventLogError(
                            .corruptRecord,
                            "\(location): list '\(location.list)': an append after seq \(last), where the list ends, wrote nothing three times: the chain value read for seq \(last) does not match its row's",
                            path: location.description, lastGoodSeq: last > 0 ? last - 1 : 0)
                    }
                } else if let expectedLastSeq {
                    throw conflict(expected: expectedLastSeq, found: last)
                }
                expected = last
                prepared = try encode(entries, after: expected, previous: try chainValue(at: expected), now: now)
            }
        }
    }

    /// An append's batch id, its size, and the first seqs its tries were sent
    /// at: where its records are if one of them committed.
    struct SentBatch {
        let id: UUID
        let count: Int
        private(set) var firstSeqs: [UInt64] = []

        init(id: UUID, count: Int) {
            self.id = id
            self.count = count
        }

        /// Notes a try sent with its first record at `seq`.
        mutating func sent(at seq: UInt64) {
            if !firstSeqs.contains(seq) { firstSeqs.append(seq) }
        }
    }

    /// What one try of an append came to.
    enum AppendOutcome {
        case appended
        /// The head was not at the expected seq: nothing was written. `seen` is
        /// the head, when the statement saw where it was.
        case conflict(seen: UInt64?)
        /// The batch was already committed, at these seqs.
        case found(ClosedRange<UInt64>)
    }

    /// ``PostgresStatements/afterAppend`` for an append that moves the head to `head`.
    func afterAppend(head: UInt64) -> PostgresConnection.PipelineStatement {
        .init(
            name: "after-append", sql: statements.afterAppend,
            parameters: [.text(location.list), .text(channel), .int8(Int64(head)), .bool(options.notify)], endsSegment: true)
    }

    /// The result of a statement of a pipeline, or its failure.
    static func result(of outcome: PostgresConnection.PipelineOutcome) throws(PostgresFailure) -> PostgresResult {
        switch outcome {
        case .done(let result): return result
        case .failed(let failure): throw failure
        case .skipped:
            throw PostgresFailure(sqlState: nil, message: "the statement was skipped after an earlier one failed", connectionLost: false)
        }
    }

    /// The records the server holds for `batch`, which an earlier try of an append
    /// committed at `seqs` (its answer lost with the connection).
    func records(ofCommitted batch: UUID, at seqs: ClosedRange<UInt64>) throws(EventLogError) -> [EventRecord] {
        statistics.batchesFound.add(1, ordering: .relaxed)
        let records = try read(from: seqs.lowerBound, maxCount: seqs.count)
        guard records.count == seqs.count else {
            throw EventLogError(
                .serverError, "\(location): the committed batch \(batch) of seqs \(seqs) could not be read back",
                path: location.description)
        }
        return records
    }

    /// The seqs a committed batch got, or `nil` if it was not committed: the
    /// record at one of the first seqs it was sent at holds its batch id.
    func findBatch(_ tries: SentBatch, _ connection: PostgresConnection) throws(PostgresStepFailure) -> ClosedRange<UInt64>? {
        guard !tries.firstSeqs.isEmpty else { return nil }
        let seqs = tries.firstSeqs.map { PostgresValue.bigEndian(Int64($0)) }
        let result = try run { () throws(PostgresFailure) in
            try connection.execute(
                prepared: "find-batch", statements.findBatch,
                [
                    .text(location.list), .array(of: PostgresValue.OID.int8, arrayType: PostgresValue.OID.int8Array, seqs),
                    .uuid(tries.id)
                ])
        }
        guard result.rowCount == 1, let first = result.integer(0, 0), first >= 1 else { return nil }
        return UInt64(first)...(UInt64(first) + UInt64(tries.count) - 1)
    }

    func conflict(expected: UInt64, found last: UInt64) -> EventLogError {
        EventLogError(
            .seqConflict, "\(location): expected the list '\(location.list)' to end at seq \(expected) but it ends at seq \(last)",
            path: location.description, lastGoodSeq: last)
    }

    /// The batch id on the list's row at `seq`: the id of the append whose
    /// first record it is, or `nil` (no row there, or not a first row).
    ///
    /// - Throws: `EventLogError`: what a read throws (`connectionFailed`, `timedOut`,
    ///   `serverError`, `closed`).
    public func batchID(atSeq seq: UInt64) throws(EventLogError) -> UUID? {
        guard seq >= 1 else { return nil }
        return try withSession(retrying: true) { (connection) throws(PostgresStepFailure) -> UUID? in
            let result = try run { () throws(PostgresFailure) in
                try connection.execute(prepared: "batch-at", statements.batchAt, [.text(location.list), .int8(Int64(clamping: seq))])
            }
            guard result.rowCount == 1, let text = result.text(0, 0) else { return nil }
            return UUID(uuidString: text)
        }
    }

    /// The chained checksum of the record at `seq` (0 for seq 0): the tip this
    /// object knows, else the row's, read from the server.
    func chainValue(at seq: UInt64) throws(EventLogError) -> UInt32 {
        if seq == 0 { return 0 }
        let tip = chainTip.withLock { $0 }
        if tip.seq == seq { return tip.crc }
        return try withSession(retrying: true) { (connection) throws(PostgresStepFailure) -> UInt32 in
            let result = try run { () throws(PostgresFailure) in
                try connection.execute(prepared: "crc-at", statements.crcAt, [.text(location.list), .int8(Int64(clamping: seq))])
            }
            guard result.rowCount == 1, let crc = result.integer(0, 0) else {
                // No such row: the head is elsewhere (a conflict follows) or the row is missing (a read names it).
                return 0
            }
            return UInt32(truncatingIfNeeded: crc)
        }
    }
}
#endif
