/// Jumping to a record whose place an index recorded (``HistoryIndex``), and
/// noting where each record is while reading.
extension LogReader {
    /// Moves the reader so that the next record read is `seq`, which starts at
    /// byte `offset` after a frame whose checksum is `previousChecksum` (0
    /// before seq 1; ignored by format 1 logs, whose frames do not chain).
    ///
    /// Nothing is trusted: the next read checks that a whole frame of record
    /// `seq` is there and (format 2) that it chains to `previousChecksum`,
    /// exactly as a read from seq 1 would, and throws otherwise. The reader
    /// may move backwards as well as forwards.
    ///
    /// - Throws: ``EventLogError/Code/readerBusy`` inside a ``forEachView(from:_:)``
    ///   closure; ``EventLogError/Code/corruptRecord`` for a position before the first
    ///   record or a seq of 0. (A position that does not hold the record is reported by
    ///   the next read: ``EventLogError/Code/corruptRecord`` or ``EventLogError/Code/seqGap``.)
    /// - Complexity: O(1); the next read refills the buffer from `offset`.
    public func seek(toSeq seq: UInt64, atOffset offset: Int64, previousChecksum: UInt32) throws(EventLogError) {
        try seek(toSeq: seq, atOffset: offset, knownPreviousChecksum: previousChecksum)
    }

    /// Moves back to the log's first record (seq 1, or a based log's first seq).
    ///
    /// - Throws: ``EventLogError/Code/readerBusy`` inside a ``forEachView(from:_:)`` closure.
    package func rewind() throws(EventLogError) {
        try checkNotVisiting()
        cursor = FrameCursor(file: file, atFirstRecordOf: cursor.format, verifiesZeroTail: false)
    }

    /// ``seek(toSeq:atOffset:previousChecksum:)``, where `nil` takes the first
    /// frame read as it is (its checksum and seq are checked, its link to the
    /// frame before it is not: use it to read that frame only to learn its
    /// checksum, then check the next against it). The buffer starts small and
    /// grows as the reader reads on.
    func seek(toSeq seq: UInt64, atOffset offset: Int64, knownPreviousChecksum previousChecksum: UInt32?) throws(EventLogError) {
        try checkNotVisiting()
        guard seq >= cursor.format.firstSeq, offset >= cursor.format.firstOffset else {
            throw EventLogError(.corruptRecord, "no record \(seq) can start at byte offset \(offset)", path: path, offset: offset)
        }
        cursor = FrameCursor(
            file: file, format: cursor.format, offset: offset, expectedSeq: seq, previousChecksum: previousChecksum,
            chunk: 8 << 10, verifiesZeroTail: false)
    }

    /// The next whole record, decoded in place (valid until the reader is next
    /// used), with its position (offset, frame length, frame checksum); `nil`
    /// as ``next()`` returns `nil`.
    package func nextPositionedView() throws(EventLogError) -> (view: EventRecordView, position: LogPosition)? {
        guard let view = try nextView() else { return nil }
        return (view, cursor.lastPosition(seq: view.seq))
    }
}
