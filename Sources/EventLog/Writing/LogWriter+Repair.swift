/// Repair support: cutting records, saving what a salvage cuts, opening a log to rewrite it.
extension LogWriter {
    /// Cuts every record after `seq` from the file and returns how many bytes
    /// were cut. On return the cut and the records through `seq` are durable
    /// (synced, even when nothing was cut). This rewrites history: it is for
    /// repair tools that found a record the projection cannot apply, and must
    /// save a backup first. `seq` must be in `0...lastSeq`. A failed truncate
    /// or sync poisons the writer. In a format version 4 log, a `seq` inside
    /// a batch frame (not its last record) makes the log be written again to
    /// a new file, renamed over it: the bytes before that frame, then its
    /// records through `seq` framed anew (a crash leaves the old file or the
    /// new one, never a log without records it keeps).
    ///
    /// - Throws: ``EventLogError/Code/closed`` after ``close()``;
    ///   ``EventLogError/Code/poisoned`` if an earlier write or sync failed;
    ///   ``EventLogError/Code/invalidEvent`` when `seq` is past ``lastSeq``;
    ///   ``EventLogError/Code/corruptRecord`` when the records up to `seq` cannot be read
    ///   back to find where to cut; ``EventLogError/Code/ioError`` when a read, the
    ///   truncate or the sync fails (a failed truncate or sync poisons the writer).
    /// - Complexity: O(d) frames read to find the cut, from the nearest indexed record at
    ///   or before `seq` (fewer than 1,024; at worst from seq 1 when an open resumed past
    ///   `seq`), then one truncate and one full sync; inside a batch frame, the log before
    ///   it copied once. Appends, reads and syncs of this writer wait meanwhile.
    @discardableResult
    public func discardRecords(after seq: UInt64) throws(EventLogError) -> Int64 {
        try state.withLock { (s) throws(EventLogError) -> Int64 in
            guard let file = s.file else { throw EventLogError(.closed, "the log writer is closed", path: path) }
            if let poisoned = syncs.poison { throw poisoned }
            try refuseWhileStaging(s)
            guard seq <= s.lastSeq else {
                throw EventLogError(
                    .invalidEvent, "cannot keep records through seq \(seq): the log ends at seq \(s.lastSeq)", path: path,
                    lastGoodSeq: s.lastSeq)
            }
            guard seq < s.lastSeq else {
                if !syncs.isDurable(through: seq) {
                    try syncs.runSync({ () throws(EventLogError) in try file.syncData() }, poisonFor: poisonError)
                }
                return 0
            }
            guard seq + 1 >= s.format.firstSeq else {
                throw EventLogError(
                    .invalidEvent, "cannot keep records through seq \(seq): the log starts at seq \(s.format.firstSeq)", path: path,
                    lastGoodSeq: s.lastSeq)
            }
            var cut = s.format.firstOffset
            var position: LogPosition?
            if seq >= s.format.firstSeq {
                guard let start = s.index.start(for: seq) else { return 0 }
                var cursor = FrameCursor(file: file, format: s.format, offset: start.offset, expectedSeq: start.seq)
                while cursor.expectedSeq <= seq {
                    guard case .record = try cursor.next() else {
                        throw EventLogError(.corruptRecord, "the log changed under the writer", path: path, offset: cursor.offset)
                    }
                    position = cursor.lastPosition(seq: cursor.expectedSeq - 1)
                }
                if let position, position.end != cursor.offset {
                    // Seq is not the last record of its batch frame (format version 4).
                    return try discardInsideFrame(&s, file: file, frame: position, through: seq)
                }
                cut = cursor.offset
            }
            let removed = s.end - cut
            dropSyncMark(&s, after: seq)
            do throws(EventLogError) { try file.truncate(to: cut) } catch {
                // The file may now end anywhere between the cut and the old end: refuse appends until reopened.
                syncs.poison(
                    EventLogError(
                        .poisoned, "cutting records after seq \(seq) failed; reopen the log to recover (\(error))", path: path, offset: cut,
                        lastGoodSeq: seq))
                throw error
            }
            try syncs.runSync({ () throws(EventLogError) in try file.syncAll() }, poisonFor: poisonError)
            syncs.cut(to: seq)
            s.end = cut
            s.allocated = cut
            s.lastSeq = seq
            s.lastPosition = position
            s.lastChecksum = position?.checksum ?? s.format.firstPrevious
            s.generation += 1
            s.index.truncate(after: seq)
            return removed
        }
    }

    /// ``discardRecords(after:)`` through `seq`, a record of the batch frame
    /// at `frame` that is not its last: the log is written again to a new
    /// file — its bytes before the frame as they are, then the frame's
    /// records through `seq` framed anew (chained on the frame before) —
    /// synced, locked, renamed over the log, and made the writer's file.
    /// Cutting the frame in place could not be done safely: a crash between
    /// the truncate and the new frame's sync would lose records that stay.
    /// Returns the bytes cut.
    ///
    /// - Complexity: O(bytes before the frame): they are copied.
    private func discardInsideFrame(_ s: inout State, file: any LogFile, frame position: LogPosition, through seq: UInt64)
        throws(EventLogError) -> Int64
    {
        let bytes = try file.read(at: position.offset, count: Int(position.length))
        let (kept, previous) = try bytes.withBytes { (raw) throws(EventLogError) -> ([EventRecord], UInt32) in
            guard case .whole(let frame) = Frame.check(raw, at: 0, format: s.format), frame.isBatch, frame.length == raw.count else {
                throw EventLogError(.corruptRecord, "the log changed under the writer", path: path, offset: position.offset)
            }
            let records = try BatchFrameRecords(body: frame.payload)
            return ((0..<records.count).map { records.view($0).record }.filter { $0.seq <= seq }, frame.previous)
        }
        let frames = try FrameBatch(records: kept, format: s.format, previous: previous, firstContinues: false)
        let fileSystem = options.fileSystem
        let copy = try LogCut.writeTemporary(
            from: file, range: 0..<position.offset, header: nil, then: Array(frames.bytes), beside: path, fileSystem: fileSystem)
        var published = false
        defer { if !published { LogCut.discard(copy, fileSystem: fileSystem) } }
        guard try copy.file.tryLockExclusive() else {
            throw EventLogError(.logInUse, "the new log file could not be locked", path: copy.path)
        }
        try LogCut.publish(copy.path, to: path, replacing: true, fileSystem: fileSystem)
        published = true
        // The path names the new file now: the writer writes to it, whatever follows.
        let removed = s.end - copy.length
        s.file = copy.file
        ReadLeases.close(file, of: self)
        s.end = copy.length
        s.allocated = copy.length
        s.lastSeq = seq
        let last = position.offset + Int64(frames.lastFrameOffset)
        s.lastPosition = LogPosition(seq: seq, offset: last, length: copy.length - last, checksum: frames.lastChecksum)
        s.lastChecksum = frames.lastChecksum
        s.generation += 1
        // The records of the frame are in new frames (more than one if it held over 1,024 of them).
        s.index.truncate(after: kept[0].seq - 1)
        // The old file's mark names its inode; the new file gets its own once a sync covers enough.
        SyncMark.remove(forLogAt: path)
        s.markedSeq = 0
        try syncs.runSync({ () throws(EventLogError) in try fileSystem.syncDirectory(containing: path) }, poisonFor: poisonError)
        syncs.cut(to: seq)
        return removed
    }

    /// Opens the log at `path` to rewrite it (a cut, an upgrade): a writer
    /// that holds its lock, waiting `lockWait` for it, with every failure an
    /// ``EventLogError``.
    ///
    /// - Throws: What ``open(path:options:)`` throws (``EventLogError/Code/logInUse``
    ///   when another writer holds the lock past `lockWait`); anything else as
    ///   ``EventLogError/Code/ioError``.
    package static func openToRewrite(path: String, lockWait: Duration, fileSystem: any LogFileSystem) throws(EventLogError) -> LogWriter {
        do {
            return try LogWriter.open(path: path, options: LogWriter.Options(fileSystem: fileSystem, lockWait: lockWait))
        } catch let error as EventLogError {
            throw error
        } catch {
            throw EventLogError(.ioError, "the log could not be opened: \(error)", path: path)
        }
    }

    static func saveTail(
        of file: any LogFile, from offset: Int64, length: Int64, path: String,
        fileSystem: any LogFileSystem
    ) throws(EventLogError) -> String {
        // `PATH.salvaged-<ms>`, or `-<ms>-2`, `-3`, … when a salvage of the same millisecond
        // left that name: an earlier salvage is never overwritten, and a name taken is no reason to fail.
        let stamp = "\(path).salvaged-\(EventTimestamp.now().millisecondsSince1970)"
        var savePath = stamp
        var out: any LogFile
        var attempt = 1
        while true {
            do throws(EventLogError) {
                out = try fileSystem.open(savePath, .createExclusive)
                break
            } catch {
                guard error.code == .fileExists, attempt < 1000 else { throw error }
                attempt += 1
                savePath = "\(stamp)-\(attempt)"
            }
        }
        defer { out.close() }
        var done: Int64 = 0
        while done < length {
            let bytes = try file.read(at: offset + done, count: Int(min(length - done, 1 << 20)))
            if bytes.isEmpty { break }
            try bytes.withBytes { (raw) throws(EventLogError) in try out.write(raw, at: done) }
            done += Int64(bytes.count)
        }
        try out.syncAll()
        try fileSystem.syncDirectory(containing: savePath)
        return savePath
    }
}
