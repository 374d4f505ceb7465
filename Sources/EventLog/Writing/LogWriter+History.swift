/// Which history a record belongs to.
extension LogWriter {
    /// The stored checksum of record `seq`'s frame, or `nil` in a format
    /// version 1 log (whose frames are not chained).
    ///
    /// In format version 2 each frame's checksum covers the previous frame's,
    /// so this value names record `seq` *and every record before it*: a
    /// snapshot that stores it (``LogPosition/checksum``) matches only the
    /// history it was taken from, not a log that was cut and rewritten with a
    /// byte-identical record at `seq`. Reads from the nearest indexed record
    /// before `seq` (frames are checked, not decoded).
    ///
    /// - Throws: ``EventLogError/Code/closed`` after ``close()``;
    ///   ``EventLogError/Code/invalidEvent`` if the log has no record `seq`;
    ///   ``EventLogError/Code/corruptRecord`` if it cannot be read;
    ///   ``EventLogError/Code/ioError`` when a read fails. A format version 1 log
    ///   returns `nil` without checking any of these.
    /// - Complexity: O(d): fewer than 1,024 frames are read when an open scanned the
    ///   records before `seq` or a ``read(from:maxCount:)`` passed them. After an open
    ///   that resumed past `seq` (at a snapshot's position), it reads from the nearest
    ///   indexed record before `seq`, at worst from seq 1, and indexes nothing on the way.
    public func frameChecksum(ofSeq seq: UInt64) throws(EventLogError) -> UInt32? {
        let (file, format, start, lastSeq) = try state.withLock { (s) throws(EventLogError) in
            guard let file = s.file else { throw EventLogError(.closed, "the log writer is closed", path: path) }
            ReadLeases.acquire(self)
            return (file, s.format, s.index.start(for: max(seq, 1)), s.lastSeq)
        }
        defer { ReadLeases.release(self) }
        guard format.chainsRecords else { return nil }
        if seq + 1 == format.firstSeq, seq >= 1 { return format.firstPrevious }  // the last record a based log's base cut
        guard seq >= format.firstSeq, seq <= lastSeq, let start else {
            throw EventLogError(.invalidEvent, "the log has no record \(seq): it ends at seq \(lastSeq)", path: path, lastGoodSeq: lastSeq)
        }
        var cursor = FrameCursor(file: file, format: format, offset: start.offset, expectedSeq: start.seq)
        cursor.decodeFrom = seq + 1
        while cursor.expectedSeq <= seq {
            switch try cursor.next() {
            case .record, .skipped:
                continue
            case .problem(let problem):
                throw EventLogError(
                    .corruptRecord, "record \(cursor.expectedSeq) cannot be read: \(problem.reason)", path: path,
                    offset: problem.offset, lastGoodSeq: cursor.expectedSeq - 1)
            case .end:
                throw EventLogError(.corruptRecord, "the log changed under the writer", path: path, offset: cursor.offset)
            }
        }
        return cursor.previousChecksum
    }
}
