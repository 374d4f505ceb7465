import Foundation

/// Reading through the writer: the records it holds, from the nearest
/// indexed record, while appends go on.
extension LogWriter {
    /// Reads up to `maxCount` records starting at `seq` (1-based), in order.
    /// Returns fewer (or none) at the end of the log.
    ///
    /// Reads start at the nearest indexed record before `seq`. Records an
    /// open did not scan (it resumed at a snapshot's position) are indexed
    /// as reads pass them, so only the first read of that region is long.
    ///
    /// In a based log (format version 3) the records before ``LogHeader/firstSeq``
    /// were archived or dropped: a read from an earlier seq starts at the first.
    ///
    /// A read may race ``close()``: it either completes (the file stays open
    /// until it returns, see `ReadLeases`) or, if the writer closed first,
    /// fails with ``EventLogError/Code/closed``.
    ///
    /// - Throws: ``EventLogError/Code/closed`` after ``close()``;
    ///   ``EventLogError/Code/corruptRecord`` when a record cannot be read back (damaged
    ///   since it was written, or the file was changed under the writer);
    ///   ``EventLogError/Code/ioError`` when a read fails.
    /// - Complexity: O(d + k): up to d < 1,024 records before `seq` are read from the
    ///   nearest indexed record, then the k records returned. The first read of a region
    ///   that an open resumed past starts at the nearest indexed record before it (at
    ///   worst seq 1). A `seq` past ``lastSeq`` returns `[]` at once.
    public func read(from seq: UInt64, maxCount: Int) throws(EventLogError) -> [EventRecord] {
        guard maxCount > 0 else { return [] }
        var result: [EventRecord] = []
        try forEachView(from: seq) { view in
            result.append(view.record)
            return result.count < maxCount
        }
        return result
    }

    /// Calls `body` with each record from `seq` on, in seq order, decoded in
    /// place (an ``EventRecordView`` borrows the read buffer: valid only
    /// during the call), until `body` returns `false` or the records the
    /// writer had when the call began are all visited. What ``read(from:maxCount:)``
    /// returns, without making an ``EventRecord`` (and its `String`s) of each:
    /// for folding a list, where nobody keeps the records.
    ///
    /// Thread safety, the `seq` of a based log and errors: as ``read(from:maxCount:)``.
    /// - Complexity: O(d + k) as ``read(from:maxCount:)``, for the k records visited.
    public func forEachView(from seq: UInt64, _ body: (EventRecordView) -> Bool) throws(EventLogError) {
        try forEachView(from: seq, after: nil, body)
    }

    /// ``forEachView(from:_:)`` from right after `position`, the record
    /// before `seq` (a checkpoint's or snapshot's, whose list the caller
    /// folds on): the read starts there instead of at the nearest indexed
    /// record, which, in a region an open resumed past, may be seq 1. The
    /// frame after `position` must chain to its checksum; a position that
    /// does not name a record of this log (`nil`, another seq, no checksum,
    /// stale) is ignored, and the read starts as ``forEachView(from:_:)`` does.
    ///
    /// - Complexity: O(k) for the k records visited when `position` is used.
    package func forEachView(from seq: UInt64, after position: LogPosition?, _ body: (EventRecordView) -> Bool) throws(EventLogError) {
        let (file, format, start, end, lastSeq, generation) = try state.withLock { (s) throws(EventLogError) in
            guard let file = s.file else { throw EventLogError(.closed, "the log writer is closed", path: path) }
            ReadLeases.acquire(self)
            return (file, s.format, s.index.start(for: max(seq, s.format.firstSeq)), s.end, s.lastSeq, s.generation)
        }
        defer { ReadLeases.release(self) }
        // A based log has no records before its first: a read from an earlier seq starts there.
        let first = max(seq, format.firstSeq)
        guard first <= lastSeq, let start else { return }
        let indexed = FrameCursor(file: file, format: format, offset: start.offset, expectedSeq: start.seq)
        // The position is a hint: used when it is nearer than the index, dropped if its frame does not check out.
        var hinted = position.flatMap { position in
            position.seq + 1 == first && position.seq >= start.seq && position.end <= end && position.checksum != nil
                ? FrameCursor(file: file, format: format, after: position) : nil
        }
        var cursor = hinted ?? indexed
        var passed: [(seq: UInt64, offset: Int64)] = []
        var goingOn = true
        var visited = false
        while goingOn, cursor.offset < end {
            // Most records: no `Step` built (FrameCursor.nextRecord), as LogReader's reads.
            if cursor.nextRecord({ view, position in
                if (view.seq - 1) % SparseIndex.stride == 0 { passed.append((view.seq, position.offset)) }
                visited = true
                if view.seq >= first { goingOn = body(view) }
            }) {
                continue
            }
            let step = try cursor.next()
            if hinted != nil, !visited, !step.isRecord {
                // The position's frame is not this log's record before `seq`: read from the index instead.
                hinted = nil
                cursor = indexed
                continue
            }
            switch step {
            case .record(let view, let offset):
                if (view.seq - 1) % SparseIndex.stride == 0 { passed.append((view.seq, offset)) }
                visited = true
                if view.seq >= first { goingOn = body(view) }
            case .problem(let problem):
                throw EventLogError(
                    .corruptRecord, "record \(cursor.expectedSeq) cannot be read: \(problem.reason)", path: path,
                    offset: problem.offset, lastGoodSeq: cursor.expectedSeq - 1)
            case .skipped, .end:
                throw EventLogError(.corruptRecord, "the log changed under the writer", path: path, offset: cursor.offset)
            }
        }
        if !passed.isEmpty {
            state.withLock { s in
                guard s.generation == generation else { return }
                for (seq, offset) in passed where seq <= s.lastSeq { s.index.note(seq: seq, offset: offset) }
            }
        }
    }
}
