/// Repair support: cutting records, saving what a salvage cuts.
extension LogWriter {
    /// Cuts every record after `seq` from the file and returns how many bytes
    /// were cut. On return the cut and the records through `seq` are durable
    /// (synced, even when nothing was cut). This rewrites history: it is for
    /// repair tools that found a record the projection cannot apply, and must
    /// save a backup first. `seq` must be in `0...lastSeq`. A failed truncate
    /// or sync poisons the writer.
    ///
    /// - Throws: ``EventLogError/Code/closed`` after ``close()``;
    ///   ``EventLogError/Code/poisoned`` if an earlier write or sync failed;
    ///   ``EventLogError/Code/invalidEvent`` when `seq` is past ``lastSeq``;
    ///   ``EventLogError/Code/corruptRecord`` when the records up to `seq` cannot be read
    ///   back to find where to cut; ``EventLogError/Code/ioError`` when a read, the
    ///   truncate or the sync fails (a failed truncate or sync poisons the writer).
    /// - Complexity: O(d) frames read to find the cut, from the nearest indexed record at
    ///   or before `seq` (fewer than 1,024; at worst from seq 1 when an open resumed past
    ///   `seq`), then one truncate and one full sync. Appends, reads and syncs of this
    ///   writer wait meanwhile.
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
                    throw EventLogError(
                        .invalidEvent,
                        "cannot keep records through seq \(seq): it is inside a batch frame (seqs up to the frame's end at byte \(position.end)); discarding part of a batch frame is not supported yet, and nothing was changed",
                        path: path, offset: position.offset, lastGoodSeq: s.lastSeq)
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
