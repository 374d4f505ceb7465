import Foundation

/// Pipelined appends: the next batch is encoded and written while the last
/// one syncs.
extension LogWriter {
    /// Writes `entries` as ``append(_:expectedLastSeq:)-([LogEntry],_)``
    /// does, but returns as soon as they are written, before they are
    /// durable; a sync covering them starts at once on the writer's sync
    /// thread. The records are acknowledged — durable through a power loss —
    /// when ``PendingAppend/waitUntilDurable()`` returns.
    ///
    /// Use it to keep the disk busy from one thread: encode and write the
    /// next batch while the last one syncs, with one or two appends pending.
    /// Until its sync returns, a pending append survives a crash of the
    /// process (it is in the OS's page cache) but not a power loss, like an
    /// append in ``Durability/noSync`` mode; nothing is acknowledged before
    /// it is durable.
    ///
    /// The writer's ``Options/durability`` does not apply: every pipelined
    /// append is synced, whatever the mode. Syncs cover records in seq order
    /// (a sync makes every record written before it began durable), so when
    /// one pending append is durable, so is every earlier one. Records are
    /// readable (``read(from:maxCount:)``, ``lastSeq``) once this returns.
    ///
    /// - Throws: What ``append(_:expectedLastSeq:)-([LogEntry],_)`` throws
    ///   before anything is written (``EventLogError/Code/closed``,
    ///   ``EventLogError/Code/poisoned``, ``EventLogError/Code/seqConflict``,
    ///   ``EventLogError/Code/invalidEvent``) and when the write fails
    ///   (``EventLogError/Code/ioError``, the write cut back). A failed sync is
    ///   reported by ``PendingAppend/waitUntilDurable()`` and poisons the writer,
    ///   so later appends throw ``EventLogError/Code/poisoned``.
    /// - Complexity: O(k + b) for k entries of b bytes: one `pwrite`; the sync
    ///   runs on another thread.
    public func appendPipelined(_ entries: [LogEntry], expectedLastSeq: UInt64? = nil) throws(EventLogError) -> PendingAppend {
        if entries.isEmpty {
            // Nothing to write: the ticket stands for every record written so far.
            let written = try state.withLock { (s) throws(EventLogError) -> WrittenFrames in
                guard let file = s.file else { throw EventLogError(.closed, "the log writer is closed", path: path) }
                ReadLeases.acquire(self)
                return WrittenFrames(records: [], leased: file, epoch: syncs.noteWritten(s.lastSeq), pendingMark: nil, lastSeq: s.lastSeq)
            }
            return appendPipelinedSync(written)
        }
        let written = try writeFrames(
            count: entries.count, expectedLastSeq: expectedLastSeq, syncsNow: false, leaseForSync: true, batchEncoding(entries))
        return appendPipelinedSync(written)
    }

    /// Starts the sync of `written` on the pipeline's queue (which releases
    /// its lease) and returns its ticket.
    private func appendPipelinedSync(_ written: WrittenFrames) -> PendingAppend {
        if let file = written.leased {
            pipelineSyncs.async { [self] in
                defer { ReadLeases.release(self) }
                // A failure poisons the writer (the ticket's wait reports it); a cut is reported by the epoch.
                try? waitDurable(written, file: file)
            }
        }
        return PendingAppend(writer: self, records: written.records, lastSeq: written.lastSeq, epoch: written.epoch)
    }
}

/// An append written by ``LogWriter/appendPipelined(_:expectedLastSeq:)``
/// and on its way to stable storage.
///
/// Thread safety: a value; any thread may wait on it, any number of times.
public struct PendingAppend: Sendable {
    let writer: LogWriter
    /// The records written, with their seqs and timestamps.
    public let records: [EventRecord]
    /// The last seq written (the log's last seq when nothing was).
    public let lastSeq: UInt64
    /// The sync coordinator's epoch when they were written.
    let epoch: UInt64

    /// Whether the records are durable (`false` while their sync runs, and
    /// for good if it failed or the records were cut before it).
    public var isDurable: Bool { writer.syncs.isDurable(lastSeq, writtenIn: epoch) }

    /// Blocks until the records are durable (the acknowledgement of a
    /// pipelined append). Returns at once when they already are.
    ///
    /// - Throws: ``EventLogError/Code/poisoned`` when a sync failed before
    ///   they were durable (the writer refuses appends until reopened; records
    ///   through ``EventLogError/lastGoodSeq`` are durable);
    ///   ``EventLogError/Code/invalidEvent`` when ``LogWriter/discardRecords(after:)``
    ///   cut them before a sync made them durable.
    public func waitUntilDurable() throws(EventLogError) {
        try writer.syncs.waitDurable(
            lastSeq, epoch: epoch, sync: nil, poisonFor: { error, _ in error }, cutBeforeDurable: writer.cutBeforeDurableError)
    }
}
