/// Appending: the write phase every append shares (under the writer's
/// lock: checks, encoding, one `pwrite`) and the sync its durability mode
/// asks for.
extension LogWriter {
    /// Appends `entries` as consecutive records and returns them with their seqs.
    ///
    /// If `expectedLastSeq` is given and the log's last seq differs, nothing
    /// is written and ``EventLogError/Code/seqConflict`` is thrown. Every
    /// entry is validated before anything is written: an invalid one rejects
    /// the whole call. Returns when the ``Durability`` guarantee holds; a
    /// failed sync poisons the writer (``EventLogError/Code/poisoned``).
    ///
    /// - Throws: ``EventLogError``: ``EventLogError/Code/closed`` after ``close()``;
    ///   ``EventLogError/Code/poisoned`` once an earlier write or sync failed (reopen the
    ///   log); ``EventLogError/Code/seqConflict`` when `expectedLastSeq` is not ``lastSeq``;
    ///   ``EventLogError/Code/invalidEvent`` for an entry beyond a ``LogLimits`` limit.
    ///   Nothing is written for any of these. ``EventLogError/Code/ioError`` when the write
    ///   fails (it is cut back; if that fails too, the writer is poisoned) or when the sync
    ///   fails (the records are written but not known to be durable, and the writer is
    ///   poisoned). With ``Durability/groupCommit``, an append whose records a failed
    ///   shared sync was to cover gets ``EventLogError/Code/poisoned``, and one whose
    ///   records ``discardRecords(after:)`` cut before a sync gets
    ///   ``EventLogError/Code/invalidEvent``.
    /// - Complexity: O(k + b) for k entries of b bytes in all: one `pwrite`, plus the sync
    ///   that ``Options/durability`` calls for. Amortized: when the records reach the end
    ///   of the preallocated space, the append first writes the next step of zero bytes
    ///   and syncs the file's size (see ``Options/preallocation``).
    @discardableResult
    public func append(_ entries: [LogEntry], expectedLastSeq: UInt64? = nil) throws(EventLogError) -> [EventRecord] {
        guard !entries.isEmpty else { return [] }
        return try appendFrames(count: entries.count, expectedLastSeq: expectedLastSeq, batchEncoding(entries))
    }

    /// The encoding of `entries` as the log's next frames, stamped now
    /// where an entry has no time: what ``writeFrames(count:expectedLastSeq:syncsNow:leaseForSync:_:)``
    /// calls under the writer's lock, for plain and pipelined appends alike.
    func batchEncoding(_ entries: [LogEntry]) -> (UInt64, FrameFormat, UInt32, Bool) throws(EventLogError) -> FrameBatch {
        let now = options.clock()
        return { (firstSeq, format, previous, continues) throws(EventLogError) in
            try FrameBatch(entries, firstSeq: firstSeq, now: now, format: format, previous: previous, firstContinues: continues)
        }
    }

    /// Appends `records` as they are — their seqs (which must continue the
    /// log), times, actors and notes kept — with the guarantees of
    /// ``append(_:expectedLastSeq:)-([LogEntry],_)``: a copy of another
    /// history's records (a synced device's mirror of its server list)
    /// without building them again.
    ///
    /// - Throws: What ``append(_:expectedLastSeq:)-([LogEntry],_)`` throws;
    ///   ``EventLogError/Code/seqConflict`` when the first record's seq is not the log's next.
    package func append(records: [EventRecord], expectedLastSeq: UInt64? = nil) throws(EventLogError) {
        guard let first = records.first else { return }
        _ = try appendFrames(count: records.count, expectedLastSeq: expectedLastSeq) {
            (firstSeq, format, previous, continues) throws(EventLogError) in
            for (offset, record) in records.enumerated() where record.seq != firstSeq + UInt64(offset) {
                throw EventLogError(
                    .seqConflict,
                    "records from seq \(first.seq) do not continue the log at seq \(firstSeq) one after another (the record at \(offset) is seq \(record.seq))",
                    path: path, lastGoodSeq: firstSeq - 1)
            }
            return try FrameBatch(records: records, format: format, previous: previous, firstContinues: continues)
        }
    }

    /// Encodes `count` records with `makeBatch` (given the first seq, the
    /// format, the last frame's checksum and whether the first frame
    /// continues an unsynced write) under the writer's lock, writes them and
    /// syncs as the durability mode says; returns the batch's records (empty
    /// for a batch that keeps none).
    private func appendFrames(
        count: Int, expectedLastSeq: UInt64?,
        _ makeBatch: (UInt64, FrameFormat, UInt32, Bool) throws(EventLogError) -> FrameBatch
    ) throws(EventLogError) -> [EventRecord] {
        let mode = options.durability
        let written = try writeFrames(count: count, expectedLastSeq: expectedLastSeq, syncsNow: mode == .syncEachAppend, makeBatch)
        if let leased = written.leased {
            defer { ReadLeases.release(self) }
            try waitDurable(written, file: leased)
        }
        return written.records
    }

    /// What ``writeFrames(count:expectedLastSeq:syncsNow:leaseForSync:_:)`` wrote.
    struct WrittenFrames {
        /// The batch's records (empty for a batch that keeps none).
        let records: [EventRecord]
        /// The file, leased (``ReadLeases``) for a sync outside the lock; `nil` when the write was synced already or needs no sync.
        let leased: (any LogFile)?
        /// The coordinator's epoch when the records were written.
        let epoch: UInt64
        /// Where the sync mark goes once the records are durable, if a new one is due.
        let pendingMark: (LogPosition, UInt64)?
        /// The last record's seq.
        let lastSeq: UInt64
    }

    /// The write phase of an append, under the writer's lock: checks, encodes
    /// (`makeBatch`), writes with one `pwrite`, and syncs there if `syncsNow`.
    /// Otherwise, unless the mode is ``Durability/noSync`` and the caller
    /// does not ask for a later sync (`leaseForSync`), the file is leased
    /// for the sync that follows outside the lock.
    func writeFrames(
        count: Int, expectedLastSeq: UInt64?, syncsNow: Bool, leaseForSync: Bool = false,
        _ makeBatch: (UInt64, FrameFormat, UInt32, Bool) throws(EventLogError) -> FrameBatch
    ) throws(EventLogError) -> WrittenFrames {
        let syncsLater = !syncsNow && (leaseForSync || options.durability == .groupCommit)
        return try state.withLock { (s) throws(EventLogError) -> WrittenFrames in
            let file = try appendableFile(s, expectedLastSeq: expectedLastSeq)
            let firstSeq = s.lastSeq + 1
            // A frame written while an earlier record is not yet durable says so (the
            // continuation flag): recovery then knows damage before it can be a lost write.
            let batch = try makeBatch(firstSeq, s.format, s.lastChecksum, !syncs.isDurable(through: s.lastSeq))
            let length = Int64(batch.bytes.count)
            if s.end + length > s.allocated && options.preallocation > 0 {
                try preallocate(&s, file: file, needed: s.end + length, sync: options.durability != .noSync || leaseForSync)
            }
            do throws(EventLogError) {
                try file.write(batch.bytes, at: s.end)
            } catch {
                // Cut back whatever part of the write landed, so the file ends at the last good record.
                do throws(EventLogError) { try file.truncate(to: s.end) } catch {
                    syncs.poison(
                        EventLogError(
                            .poisoned, "a failed write could not be cut back; reopen the log to recover (\(error))", path: path,
                            offset: s.end, lastGoodSeq: s.lastSeq))
                }
                s.allocated = s.end
                throw error
            }
            for (seq, offset) in batch.indexed { s.index.note(seq: seq, offset: s.end + Int64(offset)) }
            let lastOffset = s.end + Int64(batch.lastFrameOffset)
            s.lastPosition = LogPosition(
                seq: firstSeq + UInt64(count - 1), offset: lastOffset, length: s.end + length - lastOffset,
                checksum: batch.lastChecksum)
            s.lastChecksum = batch.lastChecksum
            s.end += length
            s.allocated = max(s.allocated, s.end)
            s.lastSeq += UInt64(count)
            let epoch = syncs.noteWritten(s.lastSeq)
            if syncsNow {
                try syncs.runSync({ () throws(EventLogError) in try file.syncData() }, poisonFor: poisonError)
                markDurable(&s, through: s.lastPosition)
            }
            // A sync outside the lock holds the file open until then, whatever `close()` does.
            if syncsLater { ReadLeases.acquire(self) }
            let pendingMark = syncsLater && needsSyncMark(s, at: s.lastPosition) ? s.lastPosition.map { ($0, s.generation) } : nil
            return WrittenFrames(
                records: batch.records, leased: syncsLater ? file : nil, epoch: epoch, pendingMark: pendingMark, lastSeq: s.lastSeq)
        }
    }

    /// The file, when an append may start (call under the writer's lock).
    ///
    /// - Throws: ``EventLogError/Code/closed``, the poison, a staged append in
    ///   progress, or ``EventLogError/Code/seqConflict`` when the log does not end
    ///   at `expectedLastSeq`.
    func appendableFile(_ s: State, expectedLastSeq: UInt64?) throws(EventLogError) -> any LogFile {
        guard let file = s.file else { throw EventLogError(.closed, "the log writer is closed", path: path) }
        if let poisoned = syncs.poison { throw poisoned }
        try refuseWhileStaging(s)
        if let expectedLastSeq, expectedLastSeq != s.lastSeq {
            throw EventLogError(
                .seqConflict, "expected the log to end at seq \(expectedLastSeq) but it ends at seq \(s.lastSeq)", path: path,
                lastGoodSeq: s.lastSeq)
        }
        return file
    }

    /// Waits until `written`'s records are durable, running a sync of `file`
    /// when none is in flight (group commit), then writes the sync mark if due.
    func waitDurable(_ written: WrittenFrames, file: any LogFile) throws(EventLogError) {
        try syncs.waitDurable(
            written.lastSeq, epoch: written.epoch,
            sync: { () throws(EventLogError) in try file.syncData() }, poisonFor: poisonError, cutBeforeDurable: cutBeforeDurableError)
        if let (position, generation) = written.pendingMark { markDurable(through: position, generation: generation) }
    }

    /// The error of a wait for records that ``discardRecords(after:)`` cut before a sync made them durable.
    func cutBeforeDurableError() -> EventLogError {
        EventLogError(.invalidEvent, "the records were cut (discardRecords) before a sync made them durable", path: path)
    }

    /// The error that poisons the writer after `error`, a failed sync, when
    /// records through `durableSeq` are known durable.
    func poisonError(_ error: EventLogError, durableSeq: UInt64) -> EventLogError {
        EventLogError(
            .poisoned,
            "a sync of the log failed, so records after seq \(durableSeq) may not be durable; the writer refuses appends until the log is reopened (\(error))",
            path: path, lastGoodSeq: durableSeq, errno: error.errno)
    }

    /// Appends one entry; see ``append(_:expectedLastSeq:)-([LogEntry],_)``.
    ///
    /// - Throws: What ``append(_:expectedLastSeq:)-([LogEntry],_)`` throws.
    /// - Complexity: As ``append(_:expectedLastSeq:)-([LogEntry],_)``: O(b) in the entry's bytes, plus the sync.
    @discardableResult
    public func append(_ entry: LogEntry, expectedLastSeq: UInt64? = nil) throws(EventLogError) -> EventRecord {
        try append([entry], expectedLastSeq: expectedLastSeq)[0]
    }
}
