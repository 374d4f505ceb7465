#if Postgres
import CLibPQ

/// Read-ahead (docs/POSTGRES.md, "Reading and following"): a statement sent before its
/// result is asked for, so the server runs it and streams its rows while the
/// caller decodes the result before it. Built on pipeline mode: each
/// statement is a segment of its own (its own implicit transaction, as
/// ``execute(prepared:_:_:)`` would run it), and the one sent ahead stays in
/// ``pendingStatements`` — any other use of the connection reads and drops
/// it first (``open()``), so it never changes what another statement sees.
extension PostgresConnection {
    /// The statement sent ahead and not read yet, when it is the only one pending.
    var statementAhead: PipelineStatement? {
        pendingStatements.count == 1 ? pendingStatements[0] : nil
    }

    /// Whether a pipeline may start here: the connection is open, outside a
    /// transaction block (`BEGIN` … `COMMIT`, whose statements must not be
    /// split into segments of their own), or its only pending statement is
    /// one sent ahead.
    var canReadAhead: Bool {
        guard let handle = handleIfOpen, !broken else { return false }
        if statementAhead != nil { return true }
        return pendingStatements.isEmpty && PQtransactionStatus(handle) == PQTRANS_IDLE
    }

    /// The outcome of `statement` with `next` sent behind it, in one
    /// pipeline; `next` stays pending. When `statement` is the one pending
    /// (`takingAhead`: the caller checked it is ``statementAhead``), its
    /// outcome is the result the server computed when it was sent ahead, and
    /// `next` is sent before it is read. Never throws: a failure is the
    /// outcome (a lost connection is not used again).
    func run(_ statement: PipelineStatement, takingAhead: Bool, sendingAhead next: PipelineStatement) -> PipelineOutcome {
        precondition(statement.endsSegment && next.endsSegment, "each statement is a segment of its own")
        guard takingAhead, statementAhead != nil, let handle = handleIfOpen, prepared.contains(next.name) else {
            return pipeline([statement, next], readingFirst: 1)[0]
        }
        // Still in pipeline mode from the call that sent `statement` ahead: queue `next` behind it.
        let parameters = next.parameters
        let queued = try? withParameters(parameters) { (_, values, lengths, formats) throws(PostgresFailure) -> Int32 in
            PQsendQueryPrepared(handle, next.name, Int32(parameters.count), values, lengths, formats, 1)
        }
        let outcome: PipelineOutcome
        if queued == 1, PQpipelineSync(handle) == 1, PQflush(handle) == 0 {
            pendingStatements = [statement, next]
            outcome = pipelineOutcomes(readingFirst: 1)[0]
        } else {
            // `next` did not reach the server: read `statement`'s result alone and leave pipeline mode.
            outcome = finishPipeline().first ?? .skipped
            broken = true
        }
        return outcome
    }
}
#endif
