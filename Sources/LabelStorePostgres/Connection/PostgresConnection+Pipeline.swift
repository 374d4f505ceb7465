#if Postgres
import CLibPQ

/// libpq's pipeline mode (PostgreSQL 14+ clients; any server of protocol 3):
/// several statements sent at once and answered in one round trip.
///
/// A pipeline is cut into segments, each ended by a `Sync`. Outside an
/// explicit `BEGIN`, each segment is one implicit transaction, committed when
/// the server reaches its `Sync`, and the server sends the segment's results
/// only then (with `ReadyForQuery`): a statement's result counts only once its
/// segment's `Sync` came back without an error. An error skips the rest of its
/// segment (``PipelineOutcome/skipped``); the next segment runs as usual.
extension PostgresConnection {
    /// One statement of a pipeline.
    struct PipelineStatement {
        /// The name it is prepared under on this connection (on first use, before the pipeline).
        var name: String
        var sql: String
        var parameters: [PostgresValue]
        /// Whether a `Sync` follows it: it ends its segment (and, outside `BEGIN`, commits it).
        var endsSegment: Bool
    }

    /// What became of one statement of a pipeline.
    enum PipelineOutcome {
        /// It ran, and its segment ended without an error.
        case done(PostgresResult)
        /// It, or its segment's commit, failed with this (a lost connection too: then
        /// whether a segment in flight committed is unknown).
        case failed(PostgresFailure)
        /// An earlier statement of its segment failed; it did not run.
        case skipped
    }

    /// Sends `statements` in one pipeline and reads the outcomes of the first
    /// `count` (all by default), in order; the others' are read by
    /// ``finishPipeline()``, which any later use of the connection calls first.
    /// So a caller can go on once the segments it needs have ended, while the
    /// server runs the rest.
    ///
    /// Never throws: a failure before anything was sent is every statement's
    /// outcome; a connection lost midway is the outcome of every statement
    /// whose segment had not ended, and the connection is not used again.
    /// The last statement, and the `count`th, must end their segments.
    func pipeline(_ statements: [PipelineStatement], readingFirst count: Int? = nil) -> [PipelineOutcome] {
        let count = count ?? statements.count
        precondition(statements.last?.endsSegment == true, "a pipeline ends with a Sync")
        precondition(count >= 1 && count <= statements.count && statements[count - 1].endsSegment, "read whole segments")
        let handle: OpaquePointer
        do {
            handle = try open()
            for statement in statements where !prepared.contains(statement.name) {
                _ = try preparedHandle(statement.name, statement.sql, statement.parameters)
            }
        } catch {
            return statements.prefix(count).map { _ in .failed(error) }
        }
        guard PQenterPipelineMode(handle) == 1 else {
            let failure = PostgresFailure(sqlState: nil, message: Self.errorMessage(handle), connectionLost: false)
            return statements.prefix(count).map { _ in .failed(failure) }
        }
        var sent = 0
        for statement in statements {
            let parameters = statement.parameters
            let queued = try? withParameters(parameters) { (_, values, lengths, formats) throws(PostgresFailure) -> Int32 in
                PQsendQueryPrepared(handle, statement.name, Int32(parameters.count), values, lengths, formats, 1)
            }
            guard queued == 1 else { break }
            if statement.endsSegment, PQpipelineSync(handle) != 1 { break }
            sent += 1
        }
        if sent < statements.count || PQflush(handle) != 0 {
            // Not all of it reached the server; a segment sent before may still commit.
            return Array(lose(handle, Array(statements.prefix(count)), from: 0).prefix(count))
        }
        pendingStatements = statements
        return pipelineOutcomes(readingFirst: count)
    }

    /// Reads the outcomes of the statements of the last pipeline that
    /// ``pipeline(_:readingFirst:)`` left unread, and leaves pipeline mode.
    @discardableResult
    func finishPipeline() -> [PipelineOutcome] {
        guard !pendingStatements.isEmpty, handleIfOpen != nil else { return [] }
        return pipelineOutcomes(readingFirst: pendingStatements.count)
    }

    /// Reads the outcomes of the first `count` of ``pendingStatements``
    /// (sent in pipeline mode, whole segments), in order, and leaves the rest
    /// pending; pipeline mode ends once none is left.
    func pipelineOutcomes(readingFirst count: Int) -> [PipelineOutcome] {
        let statements = pendingStatements
        pendingStatements = []
        guard let handle = handleIfOpen else {
            let failure = PostgresFailure(sqlState: nil, message: "the connection is closed", connectionLost: true)
            return statements.prefix(count).map { _ in .failed(failure) }
        }
        let outcomes = read(Array(statements.prefix(count)), handle)
        if count < statements.count && !broken {
            pendingStatements = Array(statements[count...])
        } else if !broken, PQexitPipelineMode(handle) != 1 {
            // Every result was read, so this cannot fail; if it did, the connection is not used again.
            broken = true
        }
        return outcomes
    }

    /// Reads the outcomes of `statements`, sent in pipeline mode, in order.
    private func read(_ statements: [PipelineStatement], _ handle: OpaquePointer) -> [PipelineOutcome] {
        var outcomes: [PipelineOutcome] = []
        outcomes.reserveCapacity(statements.count)
        var segmentStart = 0
        for (index, statement) in statements.enumerated() {
            guard let outcome = readStatement(handle) else { return lose(handle, statements, from: segmentStart, outcomes) }
            outcomes.append(outcome)
            guard statement.endsSegment else { continue }
            switch readSync(handle) {
            case .ended:
                break
            case .failed(let failure):
                // The segment's commit failed: nothing of it counts.
                for i in segmentStart...index where !isFailure(outcomes[i]) { outcomes[i] = .failed(failure) }
            case .lost:
                return lose(handle, statements, from: segmentStart, outcomes)
            }
            segmentStart = index + 1
        }
        return outcomes
    }

    private func isFailure(_ outcome: PipelineOutcome) -> Bool {
        if case .failed = outcome { return true }
        return false
    }

    /// The results of one statement: its outcome, or `nil` when the connection was lost.
    private func readStatement(_ handle: OpaquePointer) -> PipelineOutcome? {
        var outcome: PipelineOutcome?
        while let result = PQgetResult(handle) {
            switch PQresultStatus(result) {
            case PGRES_PIPELINE_ABORTED:
                PQclear(result)
                outcome = outcome ?? .skipped
            case PGRES_PIPELINE_SYNC:
                // A Sync where a statement's results were expected: libpq lost track.
                PQclear(result)
                return nil
            default:
                do {
                    let checked = try check(result, handle)
                    outcome = outcome ?? .done(checked)
                } catch {
                    if error.connectionLost { return nil }
                    outcome = .failed(error)
                }
            }
        }
        if broken || PQstatus(handle) != CONNECTION_OK { return nil }
        return outcome
    }

    private enum SyncOutcome {
        case ended
        case failed(PostgresFailure)
        case lost
    }

    /// Reads up to a segment's `Sync`, and any error the server sent before it (a failed commit).
    private func readSync(_ handle: OpaquePointer) -> SyncOutcome {
        var failure: PostgresFailure?
        var empty = 0
        while empty < 3 {
            guard let result = PQgetResult(handle) else {
                if broken || PQstatus(handle) != CONNECTION_OK { return .lost }
                empty += 1
                continue
            }
            empty = 0
            switch PQresultStatus(result) {
            case PGRES_PIPELINE_SYNC:
                PQclear(result)
                return failure.map { .failed($0) } ?? .ended
            case PGRES_PIPELINE_ABORTED:
                PQclear(result)
            default:
                do {
                    _ = try check(result, handle)
                } catch {
                    if error.connectionLost { return .lost }
                    failure = failure ?? error
                }
            }
        }
        return .lost
    }

    /// The outcomes after the connection was lost while statements `from…` were in flight.
    private func lose(
        _ handle: OpaquePointer, _ statements: [PipelineStatement], from first: Int, _ outcomes: [PipelineOutcome] = []
    ) -> [PipelineOutcome] {
        broken = true
        prepared.removeAll()
        pendingStatements = []
        let failure = PostgresFailure(
            sqlState: nil, message: "the connection was lost during a pipeline: \(Self.errorMessage(handle))", connectionLost: true)
        var result = Array(outcomes.prefix(first))
        result += Array(repeating: PipelineOutcome.failed(failure), count: statements.count - first)
        return result
    }
}
#endif
