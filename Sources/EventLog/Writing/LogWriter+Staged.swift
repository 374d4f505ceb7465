/// Staged appends: one all-or-nothing append written in parts, so that a
/// caller can append more records than it can hold in memory at once
/// (`labelreplay import`).
///
/// In a format version 2 log the parts are written where the records will
/// be, except the first frame's 12-byte header, which stays zero until the
/// commit. To every reader, and to recovery, the records then end at that
/// zero word: a follower sees nothing of the staged records (a zero length
/// word is "not written yet"), and a crash before the commit leaves bytes
/// that recovery cuts as a torn tail — every staged frame carries the
/// continuation flag, so none of them proves the bytes before it durable;
/// they are whole records, so they are saved to `PATH.salvaged-<ms>` first.
/// The commit syncs the staged frames, writes the held-back header (one
/// `pwrite` of 12 bytes) and syncs again: once that header is on disk, every
/// staged record is (all of them appear at once); before, none is a record.
///
/// In a format version 1 log (no continuation flag, so a later whole frame
/// would make the zero word damage, not a tail) the encoded frames are kept
/// in memory and written with one `pwrite` at the commit, as ``append(_:expectedLastSeq:)-([LogEntry],_)`` does.
extension LogWriter {
    /// What a staged append has written so far (behind the writer's lock).
    struct Staging {
        /// Tells this staged append's handle from an earlier one's.
        let token: UInt64
        /// Where the first staged frame starts: the log's end when staging began.
        let start: Int64
        /// Where the next staged frame goes.
        var end: Int64
        /// The first staged seq.
        let firstSeq: UInt64
        /// The last staged seq (`firstSeq - 1` while nothing is staged).
        var lastSeq: UInt64
        /// The last staged frame's checksum (the next one's `previous`).
        var lastChecksum: UInt32
        /// Where the last staged frame is.
        var lastPosition: LogPosition?
        /// Version 2: the first frame's header, written at the commit.
        var firstHeader: [UInt8] = []
        /// Version 1: every staged frame, written at the commit.
        var buffer: [UInt8] = []
        /// Staged records the sparse index keeps, with their file offsets.
        var indexed: [(seq: UInt64, offset: Int64)] = []
    }

    /// The handle a staged append's body writes its parts through.
    /// Valid only during the ``LogWriter/appendStaged(expectedLastSeq:_:)`` call it is passed to, on that thread.
    package final class StagedAppend {
        private let writer: LogWriter
        private let token: UInt64
        /// The seq the next record written must have.
        package private(set) var nextSeq: UInt64

        fileprivate init(writer: LogWriter, token: UInt64, nextSeq: UInt64) {
            self.writer = writer
            self.token = token
            self.nextSeq = nextSeq
        }

        /// Validates and writes `records`, which must be numbered from ``nextSeq`` on
        /// and stamped. Nothing of them is a record of the log before the commit.
        ///
        /// - Throws: ``EventLogError``: ``EventLogError/Code/invalidEvent`` for a record beyond a
        ///   ``LogLimits`` limit (its `lastGoodSeq` is the seq before it) or misnumbered;
        ///   ``EventLogError/Code/closed``, ``EventLogError/Code/poisoned``, or
        ///   ``EventLogError/Code/ioError`` when the write fails. After any of these the
        ///   staged append fails as a whole.
        package func write(_ records: [EventRecord]) throws(EventLogError) {
            _ = try write(records, keepingFrames: false)
        }

        /// Writes `records` as ``write(_:)`` does and returns their frames as
        /// they will lie in the log once committed (for a reader that follows
        /// the append as it is written, ``StagedFrameReader``); `nil` when
        /// `records` is empty.
        ///
        /// - Throws: What ``write(_:)`` throws.
        package func writeKeepingFrames(_ records: [EventRecord]) throws(EventLogError) -> StagedFrames? {
            try write(records, keepingFrames: true)
        }

        private func write(_ records: [EventRecord], keepingFrames: Bool) throws(EventLogError) -> StagedFrames? {
            guard !records.isEmpty else { return nil }
            for (i, record) in records.enumerated() where record.seq != nextSeq + UInt64(i) {
                throw EventLogError(
                    .invalidEvent, "staged record has seq \(record.seq) where seq \(nextSeq + UInt64(i)) was expected", path: writer.path)
            }
            let frames = try writer.stage(records, token: token, keepingFrames: keepingFrames)
            nextSeq += UInt64(records.count)
            return frames
        }
    }

    /// Appends every record `body` writes through its ``StagedAppend``, all or
    /// nothing: when `body` returns, the records are committed (durable as the
    /// log's ``Durability`` promises, then visible, all at once) and their seqs
    /// returned (`nil` if `body` wrote none); when `body` or a write throws, or
    /// the process dies first, none of them ever becomes a record (see above).
    /// Meanwhile ``append(_:expectedLastSeq:)-([LogEntry],_)`` and
    /// ``discardRecords(after:)`` are refused (``EventLogError/Code/logInUse``),
    /// and reads see the log as it was.
    ///
    /// - Throws: ``EventLogError``: ``EventLogError/Code/seqConflict`` when
    ///   `expectedLastSeq` is not ``lastSeq``; ``EventLogError/Code/logInUse`` while another
    ///   staged append is open; what ``StagedAppend/write(_:)`` throws; at the commit
    ///   ``EventLogError/Code/ioError`` (a failed sync poisons the writer) or
    ///   ``EventLogError/Code/poisoned``. Whatever `body` throws is rethrown unchanged.
    ///   In every case the staged bytes are cut again (a failed cut poisons the writer).
    /// - Complexity: O(b) in the bytes written, plus, at the commit, two syncs
    ///   (a format version 1 log: one). Memory: what `body` passes to each write
    ///   (version 1: every staged frame).
    @discardableResult
    package func appendStaged<R>(expectedLastSeq: UInt64?, _ body: (StagedAppend) throws -> R) throws -> (
        result: R, seqs: ClosedRange<UInt64>?
    ) {
        let (token, firstSeq) = try state.withLock { (s) throws(EventLogError) -> (UInt64, UInt64) in
            _ = try appendableFile(s, expectedLastSeq: expectedLastSeq)
            s.stagingTokens += 1
            s.staging = Staging(
                token: s.stagingTokens, start: s.end, end: s.end, firstSeq: s.lastSeq + 1, lastSeq: s.lastSeq,
                lastChecksum: s.lastChecksum)
            return (s.stagingTokens, s.lastSeq + 1)
        }
        let handle = StagedAppend(writer: self, token: token, nextSeq: firstSeq)
        do {
            let result = try body(handle)
            return (result, try commitStaged(token: token))
        } catch {
            abortStaged(token: token)
            throw error
        }
    }

    /// Throws ``EventLogError/Code/logInUse`` while a staged append is open.
    func refuseWhileStaging(_ s: State) throws(EventLogError) {
        guard let staging = s.staging else { return }
        throw EventLogError(
            .logInUse, "a staged append (seq \(staging.firstSeq) on) is being written to this log; write after it commits or fails",
            path: path, lastGoodSeq: s.lastSeq)
    }

    /// The staged append `token`, or why it is gone.
    private func staging(_ s: State, _ token: UInt64) throws(EventLogError) -> (Staging, any LogFile) {
        guard let file = s.file else { throw EventLogError(.closed, "the log writer is closed", path: path) }
        if let poisoned = syncs.poison { throw poisoned }
        guard let staging = s.staging, staging.token == token else {
            throw EventLogError(.invalidEvent, "the staged append already ended (a write of it failed)", path: path)
        }
        return (staging, file)
    }

    /// Writes one part of the staged append `token`.
    fileprivate func stage(_ records: [EventRecord], token: UInt64, keepingFrames: Bool) throws(EventLogError) -> StagedFrames? {
        try state.withLock { (s) throws(EventLogError) -> StagedFrames? in
            var (staging, file) = try staging(s, token)
            let first = staging.lastSeq < staging.firstSeq
            let batch: FrameBatch
            do throws(EventLogError) {
                // Every staged frame but the first continues: the first is not even written yet.
                batch = try FrameBatch(
                    records: records, format: s.format, previous: staging.lastChecksum,
                    firstContinues: !first || !syncs.isDurable(through: s.lastSeq))
            } catch {
                var error = error
                if let bad = records.first(where: { (try? $0.validatedPayloadLength()) == nil }) { error.lastGoodSeq = bad.seq - 1 }
                throw error
            }
            let length = Int64(batch.bytes.count)
            if s.format.chainsRecords {
                do throws(EventLogError) {
                    if staging.end + length > s.allocated && options.preallocation > 0 {
                        try preallocate(&s, file: file, needed: staging.end + length, sync: options.durability != .noSync)
                    }
                    if first {
                        let header = s.format.headerLength
                        staging.firstHeader = Array(UnsafeRawBufferPointer(rebasing: batch.bytes[0..<header]))
                        try [UInt8](repeating: 0, count: header).withBytes { (zeros) throws(EventLogError) in
                            try file.write(zeros, at: staging.end)
                        }
                        try file.write(UnsafeRawBufferPointer(rebasing: batch.bytes[header...]), at: staging.end + Int64(header))
                    } else {
                        try file.write(batch.bytes, at: staging.end)
                    }
                } catch {
                    s.staging = nil
                    cutStaged(&s, file: file, after: error)
                    throw error
                }
                s.allocated = max(s.allocated, staging.end + length)
            } else {
                staging.buffer.append(contentsOf: batch.bytes)
            }
            for (seq, offset) in batch.indexed { staging.indexed.append((seq, staging.end + Int64(offset))) }
            let lastOffset = staging.end + Int64(batch.lastFrameOffset)
            staging.lastSeq = records[records.count - 1].seq
            staging.lastPosition = LogPosition(
                seq: staging.lastSeq, offset: lastOffset, length: staging.end + length - lastOffset, checksum: batch.lastChecksum)
            staging.lastChecksum = batch.lastChecksum
            let frames = keepingFrames ? StagedFrames(offset: staging.end, bytes: Array(batch.bytes)) : nil
            staging.end += length
            s.staging = staging
            return frames
        }
    }

    /// Commits the staged append `token`: the records become the log's, durably.
    private func commitStaged(token: UInt64) throws(EventLogError) -> ClosedRange<UInt64>? {
        try state.withLock { (s) throws(EventLogError) -> ClosedRange<UInt64>? in
            let (staging, file) = try staging(s, token)
            guard staging.lastSeq >= staging.firstSeq else {
                s.staging = nil
                return nil
            }
            let syncing = options.durability != .noSync
            do throws(EventLogError) {
                if s.format.chainsRecords {
                    // The staged frames first, so that the header never reaches the disk before them.
                    if syncing { try syncs.runSync({ () throws(EventLogError) in try file.syncData() }, poisonFor: poisonError) }
                    try staging.firstHeader.withBytes { (header) throws(EventLogError) in try file.write(header, at: staging.start) }
                } else {
                    if staging.end > s.allocated && options.preallocation > 0 {
                        try preallocate(&s, file: file, needed: staging.end, sync: syncing)
                    }
                    try staging.buffer.withBytes { (frames) throws(EventLogError) in try file.write(frames, at: staging.start) }
                }
            } catch {
                s.staging = nil
                cutStaged(&s, file: file, after: error)
                throw error
            }
            s.staging = nil
            s.end = staging.end
            s.allocated = max(s.allocated, s.end)
            s.lastSeq = staging.lastSeq
            s.lastPosition = staging.lastPosition
            s.lastChecksum = staging.lastChecksum
            for (seq, offset) in staging.indexed { s.index.note(seq: seq, offset: offset) }
            _ = syncs.noteWritten(s.lastSeq)
            if syncing {
                try syncs.runSync({ () throws(EventLogError) in try file.syncData() }, poisonFor: poisonError)
                markDurable(&s, through: s.lastPosition)
            }
            return staging.firstSeq...staging.lastSeq
        }
    }

    /// Ends the staged append `token` without committing it: its bytes are cut.
    private func abortStaged(token: UInt64) {
        state.withLock { s in
            guard let staging = s.staging, staging.token == token else { return }
            s.staging = nil
            guard let file = s.file, s.format.chainsRecords, staging.end > staging.start else { return }
            cutStaged(&s, file: file, after: nil)
        }
    }

    /// Cuts the file back to the log's end (the staged bytes, and preallocated space, go);
    /// a failed cut poisons the writer.
    private func cutStaged(_ s: inout State, file: any LogFile, after failure: EventLogError?) {
        do throws(EventLogError) {
            try file.truncate(to: s.end)
        } catch {
            syncs.poison(
                EventLogError(
                    .poisoned,
                    "a staged append could not be cut back; reopen the log to recover (\(failure.map { "\($0); " } ?? "")\(error))",
                    path: path, offset: s.end, lastGoodSeq: s.lastSeq))
        }
        s.allocated = s.end
    }
}
