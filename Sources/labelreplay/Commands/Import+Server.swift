import EventLog
import LabelProjection

/// `import` into a server list: all-or-nothing batches instead of one
/// append, so memory stays bounded (a server list has no staged append: one
/// append is one statement, which would hold the whole input).
///
/// Each batch of ``serverBatchSize`` records is checked by the store against
/// the state the batches before it leave and appended all or nothing, then
/// the next is read. A refused line, a lost server or Ctrl-C stops the
/// import between batches: the batches before are committed (and named, with
/// their seqs), none of the batch in flight is, and the same import with
/// `--resume` appends the rest and nothing twice.
extension Import {
    /// Records per batch of an import into a server list.
    static let serverBatchSize = 10_000

    /// What a server import had committed when it stopped early.
    struct PartialImport: Error {
        /// The seqs committed before it stopped.
        let committed: ClosedRange<UInt64>
        /// Why it stopped: an `Interrupted`, a `Failure`, or the store's or server's error.
        let cause: any Error
    }

    /// Appends what `next` yields in batches of ``serverBatchSize``; returns
    /// every seq appended (`nil`: nothing). Throws ``PartialImport`` when it
    /// stops after a batch was committed, else what stopped it.
    static func appendInBatches(
        _ next: () throws -> [LogEntry]?, to store: LabelStore, log: String, input: ImportInput, pipeline: ImportPipeline,
        matcher: ResumeMatcher?, beforeFirstCommit: () throws -> Void
    ) throws -> ClosedRange<UInt64>? {
        var committed: ClosedRange<UInt64>?
        var batch: [LogEntry] = []
        var sent = 0  // entries of the input appended before `batch`
        batch.reserveCapacity(serverBatchSize + chunkSize)
        do {
            var ended = false
            while !ended {
                if let chunk = try next() { batch += chunk } else { ended = true }
                while batch.count >= serverBatchSize || (ended && !batch.isEmpty) {
                    if committed == nil { try beforeFirstCommit() } else { try Platform.checkInterrupt() }
                    let part = Array(batch.prefix(serverBatchSize))
                    let records = try appendBatch(part, to: store, sent: sent, log: log, input: input, pipeline: pipeline, matcher: matcher)
                    sent += part.count
                    batch.removeFirst(part.count)
                    // A checkpoint the batch made due holds the list while it is encoded: waiting for it
                    // keeps the next batch from copying the whole list (memory: one list, not two).
                    store.waitForHistoryFiles()
                    let range = records[0].seq...records[records.count - 1].seq
                    committed = committed.map { $0.lowerBound...range.upperBound } ?? range
                }
            }
        } catch {
            guard let committed else {
                if let failure = error as? Failure { throw Failure(failure.message + "; nothing was imported", details: failure.details) }
                throw error
            }
            throw PartialImport(committed: committed, cause: error)
        }
        return committed
    }

    /// Appends one batch, all or nothing; a refusal names the input line.
    private static func appendBatch(
        _ batch: [LogEntry], to store: LabelStore, sent: Int, log: String, input: ImportInput, pipeline: ImportPipeline,
        matcher: ResumeMatcher?
    ) throws -> [EventRecord] {
        do throws(StoreError) {
            return try store.append(entries: batch)
        } catch {
            throw refusal(error, sent: sent, log: log, input: input, pipeline: pipeline, matcher: matcher)
        }
    }

    /// The failure for a batch the store refused: the input line, when the store names the entry.
    private static func refusal(
        _ error: StoreError, sent: Int, log: String, input: ImportInput, pipeline: ImportPipeline, matcher: ResumeMatcher?
    ) -> Error {
        var reason = ErrorText.describe(error)
        if case .inconsistentEvent(let refusal) = error.code { reason = "the record does not apply to the log: " + refusal.message }
        guard let index = error.batchIndex else { return Failure("\(log): \(reason)") }
        pipeline.stop()  // the reading thread is done with the input's line numbers
        let line = input.lines.line(ofEntry: (matcher?.skipped ?? 0) + sent + index)
        return Failure("\(input.name) line \(line): \(reason)")
    }

    /// The message and exit status for a server import that stopped after committing `partial.committed`.
    static func report(_ partial: PartialImport, log: String, console: Console) throws -> Int32 {
        let committed = "\(count(Int(partial.committed.count))) were committed as \(range(partial.committed))"
        let rest = "the same import with --resume appends the rest, and nothing twice"
        if let interrupted = partial.cause as? Interrupted {
            console.error("\(log): interrupted between batches: \(committed); \(rest)")
            return interrupted.status
        }
        let reason = (partial.cause as? Failure)?.message ?? ErrorText.describe(partial.cause)
        throw Failure("\(reason); the import stopped there: \(committed) (in batches of \(serverBatchSize) records); \(rest)")
    }
}
