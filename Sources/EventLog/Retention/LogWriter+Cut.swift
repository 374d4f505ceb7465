import Foundation

/// Cutting the earliest records off a log that stays open for writing.
extension LogWriter {
    /// Cuts the records through `lastCutSeq` off this log while it stays
    /// open: with `archiveTo`, they move to a new log file there (the log's
    /// header and frames up to the cut, byte for byte); without, they are
    /// dropped. The log then starts at `lastCutSeq + 1` from a base (format
    /// version 3) holding what `image` returns, the history tree's frontier
    /// and what was cut, exactly as ``LogCut/cut(logPath:through:archiveTo:now:lockWait:image:)``
    /// leaves a closed log; the writer goes on appending to the new file.
    ///
    /// Appends go on while it works. The records cut and most of those kept
    /// are read and copied outside the writer's lock (written records never
    /// change); only the records appended meanwhile are copied under it, and
    /// then the new file is synced, renamed over the log and the directory
    /// synced, so appends, reads and syncs wait for those two syncs and that
    /// last copy only. `visitingCut` sees each record cut in seq order (a
    /// projection folds them), then `image` returns the base's image (the
    /// state after the cut, as the projection encodes it).
    ///
    /// - Durability: every record appended before the swap is durable in the
    ///   new file once this returns (the swap syncs it); an append waiting for
    ///   a group-commit sync is acknowledged by that sync. A crash at any step
    ///   leaves the old log (every record, with at worst a whole archive
    ///   beside it) or the new layout. If the directory sync after the rename
    ///   fails, the writer is poisoned (``EventLogError/Code/poisoned``): which
    ///   file the path names after a power loss is not known.
    /// - Reads: a read that took the old file finishes on it (it is closed
    ///   after the last such read); a read from a seq before the new first
    ///   record starts at the first (as in any based log).
    /// - Caches beside the log (`LOG.index`, `LOG.index-delta`, `LOG.tree`)
    ///   describe the old file and are removed.
    ///
    /// - Throws: ``EventLogError``: ``EventLogError/Code/closed`` (also when the writer
    ///   is closed while it works), ``EventLogError/Code/poisoned``;
    ///   ``EventLogError/Code/logInUse`` while another cut or a staged append is under
    ///   way; ``EventLogError/Code/unsupportedVersion`` for a format version 1 log
    ///   (unchained frames cannot continue a base); ``EventLogError/Code/invalidEvent`` for
    ///   a seq outside the log, or one inside a batch frame (format version 4: the open
    ///   log's frames are copied as they are, so its cut goes between frames; a cut of the
    ///   closed log, ``LogCut/cut(logPath:through:archiveTo:now:lockWait:image:)``, splits
    ///   the frame); ``EventLogError/Code/fileExists`` when a file is at
    ///   `archiveTo`; ``EventLogError/Code/seqConflict`` when records were discarded
    ///   (``discardRecords(after:)``) meanwhile; what reading and writing throw. Nothing
    ///   is changed when it throws before the rename, but for an archive already linked,
    ///   which stays: a copy of records the log still holds (the label store's retention
    ///   removes such copies, holding the log's lock, before its next cut).
    /// - Complexity: O(log size): the records cut are read, hashed and visited once, and
    ///   the frames are copied once; O(records appended meanwhile) under the lock.
    @discardableResult
    public func cutHistory(
        through lastCutSeq: UInt64, archiveTo archivePath: String?, now: EventTimestamp,
        visitingCut: ((EventRecordView) throws(EventLogError) -> Void)? = nil, image: () throws(EventLogError) -> [UInt8]
    ) throws(EventLogError) -> LogCut.Report {
        let fileSystem = options.fileSystem
        let (header, end, generation) = try beginCut(through: lastCutSeq)
        defer { state.withLock { $0.cutting = false } }
        if let archivePath, fileSystem.exists(archivePath) {
            throw EventLogError(.fileExists, "an archive is already there; choose another name or remove it", path: archivePath)
        }
        // The records through the cut were written before it began: they never change.
        let plan = try LogCut.plan(
            logPath: path, through: lastCutSeq, visitingCut: visitingCut, stoppingAtCut: true, fileSystem: fileSystem)
        let baseImage = try image()
        let old = try fileSystem.open(path, .readOnly)
        defer { old.close() }
        let cutEnd = Int64(header.length) + plan.cutBytes
        let disposition: LogBase.Disposition
        var published = false
        // An archive linked by a cut that then stops stays: a copy of records the log still holds, which the
        // next retention cut removes under the log's lock (removing it here could race a cut by a writer
        // opened after this one was closed, writing an archive of the same name).
        if let archivePath {
            let archiveHeader = LogCut.archiveHeader(header, archivePath: archivePath, logPath: path)
            try LogCut.copy(
                from: old, range: (archiveHeader == nil ? 0 : Int64(header.length))..<cutEnd, header: archiveHeader, to: archivePath,
                replacing: false, paced: true, fileSystem: fileSystem)
            CutCrashPoint.reached(.archiveWritten)
            disposition = .archived(file: LogCut.relativeName(of: archivePath, from: path))
        } else {
            disposition = .dropped
        }
        let base = LogBase(
            cut: plan.cut, timeRange: plan.timeRange, cutAt: now, disposition: disposition, frontier: plan.frontier, image: baseImage)
        var newHeader = LogHeader(logID: header.logID, createdAt: header.createdAt, base: base, previousChecksum: plan.chainValue)
        newHeader.version = max(header.version, LogFormat.basedVersion)
        let headerBytes = newHeader.encoded()
        // The records kept that were there when the cut began, outside the lock.
        var copy = try LogCut.writeTemporary(
            from: old, range: cutEnd..<end, header: headerBytes, beside: path, paced: true, fileSystem: fileSystem)
        defer { if !published { LogCut.discard(copy, fileSystem: fileSystem) } }
        // Locked before it is at the path, so a writer opening the path waits for this one.
        guard try copy.file.tryLockExclusive() else {
            throw EventLogError(.logInUse, "the new log file could not be locked", path: copy.path)
        }
        let shift = Int64(headerBytes.count) - cutEnd
        let kept = try state.withLock { (s) throws(EventLogError) -> (records: UInt64, bytes: Int64) in
            guard let file = s.file else { throw EventLogError(.closed, "the log writer was closed during the cut", path: path) }
            if let poisoned = syncs.poison { throw poisoned }
            try refuseWhileStaging(s)
            guard s.generation == generation, s.end >= end else {
                throw EventLogError(
                    .seqConflict, "records were discarded while the log was being cut; nothing was cut", path: path, lastGoodSeq: s.lastSeq)
            }
            // The records appended meanwhile, then the swap.
            try LogCut.append(from: file, range: end..<s.end, to: &copy, name: path)
            try copy.file.syncData()
            try LogCut.publish(copy.path, to: path, replacing: true, fileSystem: fileSystem)
            published = true
            // The path names the new file now: the writer writes to it, whatever follows.
            swapFile(&s, to: copy.file, header: newHeader, lastCutSeq: lastCutSeq, shift: shift)
            CutCrashPoint.reached(.logReplaced)
            // Every record written so far is in the synced new file: once the directory is synced they are
            // durable (a sync of the old file that began before vouched for the old file only).
            try syncs.runSync({ () throws(EventLogError) in try fileSystem.syncDirectory(containing: path) }, poisonFor: poisonError)
            // The old file's mark names its offsets: the new file, all durable now, gets its own.
            SyncMark.remove(forLogAt: path)
            s.markedSeq = 0
            markDurable(&s, through: s.lastPosition)
            return (s.lastSeq - lastCutSeq, s.end - Int64(headerBytes.count))
        }
        for cache in [HistoryIndexFile.path(for: path), HistoryIndexFile.deltaPath(for: path), HistoryTreeFile.path(for: path)] {
            fileSystem.unlink(cache)
        }
        // An archive never changes: its history index is written once, now, so queries by label, actor
        // or time over archived seqs read only the records that can match. A cache: a failure leaves
        // the archive read whole, as before.
        if let archivePath {
            ArchiveIndex.write(for: archivePath)
            // Written from the records the base's frontier was hashed from: checked by construction.
            ArchiveJoin.rememberCut(logPath: path)
        }
        var report = plan
        report.keptRecords = kept.records
        report.keptBytes = kept.bytes
        return report
    }

    /// Checks that the log can be cut through `lastCutSeq` and marks a cut as
    /// under way; returns the header, the end of the records and the generation now.
    private func beginCut(through lastCutSeq: UInt64) throws(EventLogError) -> (LogHeader, Int64, UInt64) {
        try state.withLock { (s) throws(EventLogError) in
            guard s.file != nil else { throw EventLogError(.closed, "the log writer is closed", path: path) }
            if let poisoned = syncs.poison { throw poisoned }
            guard !s.cutting else { throw EventLogError(.logInUse, "another cut of this log is under way", path: path) }
            guard s.format.chainsRecords else {
                throw EventLogError(
                    .unsupportedVersion, "a format version 1 log cannot be cut: its frames are not chained (copy it to a new log first)",
                    path: path)
            }
            guard lastCutSeq >= s.format.firstSeq, lastCutSeq <= s.lastSeq else {
                throw EventLogError(
                    .invalidEvent, "cannot cut through seq \(lastCutSeq): the log holds seqs \(s.format.firstSeq)…\(s.lastSeq)", path: path,
                    lastGoodSeq: s.lastSeq)
            }
            s.cutting = true
            return (s.header, s.end, s.generation)
        }
    }

    /// Makes `file`, which holds the header `header` and this log's records
    /// after `lastCutSeq` (each `shift` bytes from where it was), the
    /// writer's file; the old one is closed once no read uses it.
    private func swapFile(_ s: inout State, to file: any LogFile, header: LogHeader, lastCutSeq: UInt64, shift: Int64) {
        let old = s.file
        s.file = file
        s.header = header
        s.format = FrameFormat(header: header)
        s.end += shift
        s.allocated = s.end
        if let position = s.lastPosition, position.seq > lastCutSeq {
            s.lastPosition = LogPosition(
                seq: position.seq, offset: position.offset + shift, length: position.length, checksum: position.checksum)
        } else {
            s.lastPosition = nil  // every record was cut: the chain goes on from the base
        }
        s.index.rebase(firstSeq: lastCutSeq + 1, firstOffset: s.format.firstOffset, shift: shift)
        s.generation += 1
        if let old { ReadLeases.close(old, of: self) }
    }
}
