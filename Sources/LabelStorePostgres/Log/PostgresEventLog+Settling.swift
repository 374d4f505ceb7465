#if Postgres
import EventLog
import Foundation

/// Settling an append whose reply was lost: whether it committed is found out
/// before anything is answered (docs/POSTGRES.md, "Lost replies").
///
/// A batch looked up while the session that sent it still runs proves
/// nothing: that session may be waiting for a lock or for a synchronous
/// standby, and commit a moment later. So the backend that sent it is ended
/// first (`pg_terminate_backend`, which cannot undo a commit already made,
/// and aborts one not made), and waited for until it is gone; only then is the
/// batch looked up, and the answer is final.
extension PostgresEventLog {
    /// What settling a lost append found.
    enum Settled {
        /// It committed, at these seqs.
        case committed(ClosedRange<UInt64>)
        /// It did not commit, and never will: the session that sent it has ended.
        case notCommitted
    }

    /// Settles the append of `batch` (seqs `seqs`) sent on the backend `sent`
    /// whose reply was lost, within a new ``Options-swift.struct/reconnectTimeout``.
    ///
    /// It asks a server that accepts writes (the primary: a standby may not
    /// have received the batch yet). A backend is ended only on the server it
    /// ran on: after a restart or a failover that server is gone, and with it
    /// any commit it had not made (a pid there may be another session's).
    ///
    /// - Throws: `outcomeUnknown` naming the batch when the server cannot be
    ///   reached, or the sending session does not end, within that time.
    func settle(_ batch: SentBatch, sentOn sent: PostgresBackend, seqs: ClosedRange<UInt64>, cause: EventLogError)
        throws(EventLogError) -> Settled
    {
        let deadline = ContinuousClock.now.advanced(by: options.reconnectTimeout)
        do {
            return try withSession(retrying: true, writing: true, doing: "find out whether the append committed") {
                (connection) throws(PostgresStepFailure) -> Settled in
                let here = connection.backend
                if sent.pid != 0 && sent.server == here.server && sent.pid != here.pid {
                    try self.end(backend: sent.pid, on: connection, before: deadline, batch: batch.id, seqs: seqs)
                }
                if let found = try self.findReplicatedBatch(batch, connection) { return .committed(found) }
                return .notCommitted
            }
        } catch {
            if error.code == .outcomeUnknown { throw error }
            throw outcomeUnknown(batch.id, seqs: seqs, because: "\(cause.message); then \(error.message)")
        }
    }

    /// Settles the lost append of `batch` that then failed with `failure`: its
    /// records if it committed, else `failure` saying that nothing is committed.
    func recordsOrFailure(
        of batch: SentBatch, sentOn sent: PostgresBackend, seqs: ClosedRange<UInt64>, failure: EventLogError
    ) throws(EventLogError) -> [EventRecord] {
        switch try settle(batch, sentOn: sent, seqs: seqs, cause: failure) {
        case .committed(let range):
            return try records(ofCommitted: batch.id, at: range)
        case .notCommitted:
            var failure = failure
            failure.message +=
                "; nothing of the append is committed: the session that sent it has ended and batch \(batch.id) is not in the list"
            throw failure
        }
    }

    /// Ends the backend `pid` (if it is still there and this role's) and waits until it is gone.
    private func end(
        backend pid: Int32, on connection: PostgresConnection, before deadline: ContinuousClock.Instant, batch: UUID,
        seqs: ClosedRange<UInt64>
    ) throws(PostgresStepFailure) {
        let terminate = """
            SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE pid = $1 AND usename = current_user AND application_name = current_setting('application_name')
            """
        do {
            _ = try connection.execute(terminate, [.int4(pid)])
        } catch {
            // Not allowed to end it (another role's session): wait for it to end by itself.
            if error.isServerGone { throw .server(error) }
        }
        while true {
            let alive = try run { () throws(PostgresFailure) in
                try connection.execute("SELECT 1 FROM pg_stat_activity WHERE pid = $1", [.int4(pid)])
            }
            if alive.rowCount == 0 { return }
            if ContinuousClock.now >= deadline {
                throw .log(outcomeUnknown(batch, seqs: seqs, because: "the session that sent it (backend \(pid)) is still running"))
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    /// Returns once the server's synchronous standbys (if it has any) hold
    /// everything committed on it so far.
    ///
    /// A session ended while its commit waited for a synchronous standby
    /// leaves that commit visible on the primary before the standby confirmed
    /// it ("committed locally, but might not have been replicated"). A batch
    /// found after ending its session is returned only once it is as durable
    /// as any acknowledged append: this commits a write of its own (the list's
    /// head row updated to itself: a commit that writes nothing waits for
    /// nobody), whose commit waits, as every commit does under
    /// `synchronous_standby_names`, for the standbys to confirm a WAL position
    /// after the batch's. Without synchronous standbys it returns at once.
    func awaitReplication(on connection: PostgresConnection) throws(PostgresStepFailure) {
        _ = try run { () throws(PostgresFailure) in
            try connection.execute(statements.touchHead, [.text(location.list)])
        }
    }

    /// ``findBatch(_:_:)``, and when the batch is found, returns only once the
    /// synchronous standbys have it (``awaitReplication(on:)``): a found batch
    /// may have become visible because its session was ended while its commit
    /// waited for them.
    func findReplicatedBatch(_ tries: SentBatch, _ connection: PostgresConnection) throws(PostgresStepFailure)
        -> ClosedRange<UInt64>?
    {
        guard let found = try findBatch(tries, connection) else { return nil }
        try awaitReplication(on: connection)
        return found
    }

    /// The error of an append whose outcome cannot be found out.
    func outcomeUnknown(_ batch: UUID, seqs: ClosedRange<UInt64>, because reason: String) -> EventLogError {
        EventLogError(
            .outcomeUnknown,
            "\(location): the reply to the append of seqs \(seqs.lowerBound)…\(seqs.upperBound) (batch \(batch)) was lost, and whether it committed cannot be found out: \(reason). Do not append the same entries again blindly: once the server is back, the row of '\(location.schema).records' of list '\(location.list)' at seq \(seqs.lowerBound) holds batch_id '\(batch)' exactly when it committed there, and a store that catches up shows its records if it did",
            path: location.description)
    }
}
#endif
