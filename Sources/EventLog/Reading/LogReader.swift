/// Reads a log file without locking it: from any seq, once or following a writer.
///
/// A reader never returns a partial record: a frame still being written (or
/// torn) at the end of the file is simply "not there yet". Damage followed by
/// good records is corruption and throws.
///
/// Thread safety: a `LogReader` is for one thread or task at a time (it
/// holds a cursor); open one per consumer. Any number may read a log while
/// one ``LogWriter`` appends to it.
public final class LogReader {
    /// The file's path.
    public let path: String
    /// The file header.
    public let header: LogHeader
    let file: any LogFile
    /// Not checked for exclusive access at run time (it is read per record): a
    /// reader is used from one thread, and ``visiting`` keeps a visitor's
    /// closure from moving it.
    @exclusivity(unchecked) var cursor: FrameCursor
    /// Whether a ``forEachView(from:_:)`` closure is running: the reader then
    /// refuses to move (that would invalidate the view being visited).
    var visiting = false

    /// Opens the log at `path` for reading and checks its header. Reading starts at seq 1.
    /// `fileSystem` is the real one unless a test injects faults.
    ///
    /// - Throws: ``EventLogError``: ``EventLogError/Code/fileNotFound`` when nothing is at
    ///   `path`; ``EventLogError/Code/notARegularFile`` for a directory, FIFO, socket or
    ///   device; ``EventLogError/Code/emptyFile``, ``EventLogError/Code/notALog``,
    ///   ``EventLogError/Code/corruptHeader`` or ``EventLogError/Code/unsupportedVersion``
    ///   when the file does not start with a valid header this build reads;
    ///   ``EventLogError/Code/ioError`` when an OS call fails. A reader takes no lock, so
    ///   it never fails with ``EventLogError/Code/logInUse``.
    public init(path: String, fileSystem: any LogFileSystem = SystemFileSystem()) throws(EventLogError) {
        let file = try fileSystem.open(path, .readOnly)
        do {
            header = try LogHeader.read(from: file, path: path)
        } catch {
            file.close()
            throw error
        }
        self.path = path
        self.file = file
        self.cursor = FrameCursor(file: file, atFirstRecordOf: FrameFormat(header: header), verifiesZeroTail: false)
    }

    deinit { file.close() }

    /// The seq the next record read will have.
    public var nextSeq: UInt64 { cursor.expectedSeq }

    /// The byte offset the next record is read from: its frame's (in a
    /// format version 4 log, the batch frame it is in, whose earlier records
    /// may have been read already).
    public var offset: Int64 { cursor.offset }

    /// Where the last record read is (`nil` before the first): its seq,
    /// frame offset and length, and stored checksum, which in a format
    /// version 2 log names the whole history up to it.
    @exclusivity(unchecked) package private(set) var lastPosition: LogPosition?

    /// The last record of a prefix whose every frame ``keeps(_:)`` checked
    /// (from seq 1), or that the writer's sync mark names durable, so that
    /// later checks in the same long write start there.
    private var checkedPrefix: LogPosition?
    /// The checked sync mark (``SyncMark``), read at the first need: `.some(nil)` when there is none.
    private var syncMark: LogPosition??

    /// The record through which the writer's sync mark says the log is durable, if it has a good one.
    private func durableMark() -> LogPosition? {
        if let syncMark { return syncMark }
        let mark = SyncMark.load(forLogAt: path, header: header, file: file)
        syncMark = .some(mark)
        if let mark, mark.seq > checkedPrefix?.seq ?? 0 { checkedPrefix = mark }
        return mark
    }

    /// Whether this reader's file still holds the record at `position`: a
    /// whole frame of that length and checksum, holding that seq, at that
    /// offset (one read). A follower asks it of its last record to notice a
    /// log cut or rewritten under it.
    ///
    /// - Throws: ``EventLogError/Code/ioError`` when the read fails.
    package func holds(_ position: LogPosition) throws(EventLogError) -> Bool {
        try Recovery.holdsRecord(file, format: cursor.format, at: position, fileLength: try file.size())
    }

    /// Whether recovery keeps this reader's file through the record at
    /// `position` (a position a cache recorded): the file holds it
    /// (``holds(_:)``) and no earlier record of the same unsynced write is
    /// damaged, so a read from seq 1 would not end before it at a torn tail.
    /// A read that jumps to a cached position must ask this, not ``holds(_:)``.
    /// Records before the write's first are not read (damage there is
    /// corruption that a full read, or `labelreplay verify`, reports).
    ///
    /// Checks of positions in long unsynced writes (imports) read forward
    /// from seq 1 once; the reader remembers how far that checked.
    ///
    /// - Throws: ``EventLogError/Code/ioError`` when a read fails.
    package func keeps(_ position: LogPosition) throws(EventLogError) -> RecordKeeping {
        _ = durableMark()
        return try Recovery.keeps(file, format: cursor.format, through: position, fileLength: try file.size(), verified: &checkedPrefix)
    }

    /// Moves this reader to just after the record at `position`, if its file
    /// keeps that record (``keeps(_:)``): the next record read is
    /// `position.seq + 1`, checked to follow it. Returns whether it moved. For
    /// a follower that reopened a replaced file holding the same history.
    ///
    /// - Throws: ``EventLogError/Code/readerBusy`` inside a ``forEachView(from:_:)``
    ///   closure; ``EventLogError/Code/ioError`` when the read fails.
    package func resume(after position: LogPosition) throws(EventLogError) -> Bool {
        try checkNotVisiting()
        guard try keeps(position) == .kept else { return false }
        cursor = FrameCursor(file: file, format: cursor.format, after: position, verifiesZeroTail: false)
        lastPosition = position
        return true
    }

    /// The file's current size in bytes.
    ///
    /// - Throws: ``EventLogError/Code/ioError`` when the file cannot be `fstat`ed.
    public func fileSize() throws(EventLogError) -> Int64 { try file.size() }

    /// The next whole record, or `nil` if none is complete yet (end of file,
    /// or a frame still being written or torn at the end). Throws on damage
    /// that good records follow, on content that fails to decode, and on a seq gap.
    ///
    /// - Throws: ``EventLogError``: ``EventLogError/Code/corruptRecord`` for damage that a
    ///   later good record proves was durable, for a checksummed record whose content does
    ///   not decode, and for a record of another history (its chained checksum does not
    ///   follow the record before); ``EventLogError/Code/seqGap`` for a good record whose
    ///   seq is not ``nextSeq``; ``EventLogError/Code/readerBusy`` when called from inside a
    ///   ``forEachView(from:_:)`` closure; ``EventLogError/Code/ioError`` when a read fails.
    ///   The error's `offset` and `lastGoodSeq` say where; the reader stays before the bad
    ///   record.
    /// - Complexity: O(b) in the record's bytes (reads are buffered). When the bytes at
    ///   the end are not a whole frame, the rest of the file is also searched for a later
    ///   frame, O(bytes after them), to tell a write in progress from damage.
    public func next() throws(EventLogError) -> EventRecord? {
        try checkNotVisiting()
        return try nextView()?.record
    }

    /// Throws ``EventLogError/Code/readerBusy`` inside a ``forEachView(from:_:)`` closure.
    func checkNotVisiting() throws(EventLogError) {
        if visiting {
            throw EventLogError(
                .readerBusy, "the reader is in the middle of forEachView: read from it after that call returns (or open a second reader)",
                path: path)
        }
    }

    /// Calls `body` with every whole record from `seq` on that is complete
    /// now, in order, each as an ``EventRecordView`` decoded in place in the
    /// reader's buffer (no allocation per record), and returns how many it
    /// visited. Records before `seq` are skipped (checked but not copied out);
    /// a `seq` at or before ``nextSeq`` starts at ``nextSeq`` (a reader never
    /// goes back). Afterwards the reader is positioned after the last record
    /// visited, exactly as if ``next()`` had returned each of them: call it
    /// again to follow a live log.
    ///
    /// Each view (and every ``UTF8Text`` in it) is valid only during the call
    /// it is passed to; the reader refuses to be used from inside `body`
    /// (``EventLogError/Code/readerBusy``), since moving it would move the
    /// bytes the view points into.
    ///
    /// - Throws: What ``next()`` throws (``EventLogError/Code/corruptRecord``,
    ///   ``EventLogError/Code/seqGap``, ``EventLogError/Code/ioError``), also for the records
    ///   skipped before `seq`; ``EventLogError/Code/readerBusy`` when called from inside a
    ///   `forEachView` closure of this reader (and from any call on this reader that `body`
    ///   makes); and whatever `body` throws, unchanged (the reader is then positioned after
    ///   that record).
    /// - Complexity: O(s + k): the s records from ``nextSeq`` up to `seq` are read and
    ///   checked but not copied out, and the k records visited are decoded in place, with
    ///   no allocation per record.
    @discardableResult
    public func forEachView(from seq: UInt64 = 1, _ body: (EventRecordView) throws -> Void) throws -> Int {
        try checkNotVisiting()
        try skip(toSeq: seq)
        visiting = true
        defer { visiting = false }
        var visited = 0
        while true {
            // Most records: no `Step` built (FrameCursor.nextRecord); each
            // record's position noted before `body` sees it, as `nextStep` does.
            if try cursor.nextRecord({ view, position in
                lastPosition = position
                visited += 1
                try body(view)
            }) {
                continue
            }
            guard let view = try nextView() else { return visited }
            visited += 1
            try body(view)
        }
    }

    /// The next whole record decoded in place (valid until the cursor is next used), or `nil`; see ``next()``.
    func nextView() throws(EventLogError) -> EventRecordView? {
        guard let step = try nextStep() else { return nil }
        guard case .record(let view, _) = step else { preconditionFailure("a reader's cursor decodes every record") }
        return view
    }

    /// Calls `body` with each whole record's seq and payload from `seq` on,
    /// checked as every read checks them (framing, chained checksum, seq) but
    /// not decoded: for hashing the history (`verify --head`). The payload is
    /// valid only during the call. Returns how many records it visited.
    ///
    /// - Throws: what ``next()`` throws, and what `body` throws.
    @discardableResult
    package func forEachPayload(from seq: UInt64 = 1, _ body: (UInt64, UnsafeRawBufferPointer) throws -> Void) throws -> Int {
        try checkNotVisiting()
        try skip(toSeq: seq)
        visiting = true
        cursor.decodeFrom = .max
        defer {
            visiting = false
            cursor.decodeFrom = 0
        }
        var visited = 0
        while true {
            if let (seq, _, payload) = cursor.nextCheckedPayload() {
                noteRead(seq: seq)
                visited += 1
                try body(seq, payload)
                continue
            }
            // A refill, the end or a problem: what every read says of it.
            guard let step = try nextStep() else { return visited }
            guard case .skipped(let seq, _, let payload) = step else { preconditionFailure("no record is decoded") }
            visited += 1
            try body(seq, payload.bytes)
        }
    }

    /// The cursor's next whole record (decoded, or below its `decodeFrom` checked only), or `nil` at the end.
    private func nextStep() throws(EventLogError) -> FrameCursor.Step? {
        switch try cursor.next() {
        case .record(let view, let at):
            noteRead(seq: view.seq)
            return .record(view, offset: at)
        case .skipped(let seq, let at, let payload):
            noteRead(seq: seq)
            return .skipped(seq: seq, offset: at, payload: payload)
        case .end:
            cursor.discardBuffer()
            return nil
        case .problem(let problem):
            cursor.discardBuffer()
            guard problem.canBeTornWrite else { throw corruption(problem) }
            // Perhaps the writer is still writing this frame. Look for a frame after it that
            // was written once this one was durable (in version 1, any good frame) first,
            // then read this one again: the writer finished this frame before it began any
            // later one, so if it is still bad now, it is damage, not a write in progress.
            // Frames that only continue an unsynced write are what a crash can leave after a
            // lost page: recovery cuts them with it, so the reader does not read past it.
            guard
                try Recovery.laterFrames(
                    in: file, format: cursor.format, after: problem.offset, fileLength: try file.size(), durable: durableMark()
                ).proveDamage
            else {
                return nil
            }
            switch try cursor.next() {
            case .record(let view, let at):
                noteRead(seq: view.seq)
                return .record(view, offset: at)
            case .skipped(let seq, let at, let payload):
                noteRead(seq: seq)
                return .skipped(seq: seq, offset: at, payload: payload)
            case .end:
                throw corruption(
                    FrameProblem(
                        offset: problem.offset, kind: .damaged, reason: "zero bytes where a record should start, before good records"))
            case .problem(let again):
                cursor.discardBuffer()
                throw corruption(again)
            }
        }
    }

    /// Notes where the record just read is (``lastPosition``).
    @inline(__always)
    private func noteRead(seq: UInt64) {
        lastPosition = cursor.lastPosition(seq: seq)
    }

    private func corruption(_ problem: FrameProblem) -> EventLogError {
        let code: EventLogError.Code = problem.kind == .seqGap ? .seqGap : .corruptRecord
        return EventLogError(
            code, "the log is corrupt: \(problem.reason)", path: path, offset: problem.offset,
            lastGoodSeq: cursor.expectedSeq - 1)
    }

    /// What follows the records read so far, once ``next()`` returned `nil`.
    public enum Tail: Sendable, Hashable {
        /// Nothing: the file ends after the last record.
        case none
        /// Only zero bytes: space the writer preallocated (not damage).
        case preallocated(bytes: Int64)
        /// Bytes that are not a complete record and that no good record
        /// follows: a torn tail (or, on a live log, a write in progress).
        case torn(offset: Int64, bytes: Int64, reason: String)
    }

    /// Classifies the bytes after the last record read.
    ///
    /// - Throws: ``EventLogError/Code/corruptRecord`` when a checksummed record starts
    ///   somewhere after them: that is damage in the middle of the log (a follower stops
    ///   at it and waits; `verify` must report it). Also ``EventLogError/Code/corruptRecord``
    ///   or ``EventLogError/Code/seqGap`` when the bytes there are a whole checksummed record
    ///   that cannot be the next one (content that does not decode, another history, or the
    ///   wrong seq), and ``EventLogError/Code/ioError`` when a read fails.
    /// - Complexity: O(bytes after the last record read): zero bytes are checked to the
    ///   end, and a torn tail is told from damage by searching the rest of the file for a
    ///   later frame.
    public func tail() throws(EventLogError) -> Tail {
        let size = try file.size()
        let offset = cursor.offset
        guard size > offset else { return .none }
        var probe = FrameCursor(
            file: file, format: cursor.format, offset: offset, expectedSeq: cursor.expectedSeq,
            previousChecksum: cursor.previousChecksum, verifiesZeroTail: true)
        switch try probe.next() {
        case .end(let preallocated):
            return preallocated > 0 ? .preallocated(bytes: preallocated) : .none
        case .record, .skipped:
            // Completed since the last read: not a tail at all.
            return .none
        case .problem(let problem):
            guard problem.canBeTornWrite else { throw corruption(problem) }
            guard
                try Recovery.laterFrames(in: file, format: cursor.format, after: offset, fileLength: size, durable: durableMark())
                    .proveDamage
            else {
                return .torn(offset: offset, bytes: size - offset, reason: problem.reason)
            }
            // As in `next()`: a frame the writer was finishing is complete once a later one exists.
            var again = FrameCursor(
                file: file, format: cursor.format, offset: offset, expectedSeq: cursor.expectedSeq,
                previousChecksum: cursor.previousChecksum, verifiesZeroTail: true)
            if case .record = try again.next() { return .none }
            throw corruption(problem)
        }
    }

    /// Every record that is complete now, up to `maxCount`; empty when caught up.
    ///
    /// - Throws: What ``next()`` throws. The records read before the failing one are not
    ///   returned, but the reader has moved past them.
    /// - Complexity: O(k) in the records returned (each is copied out), as ``next()`` each.
    public func poll(maxCount: Int = .max) throws(EventLogError) -> [EventRecord] {
        var result: [EventRecord] = []
        while result.count < maxCount, let record = try next() { result.append(record) }
        return result
    }

    /// Skips forward so that the next record read is `seq` (or the end, if the log is shorter).
    ///
    /// - Throws: What ``next()`` throws, for any record on the way (each is checked).
    /// - Complexity: O(s) in the records skipped: a reader has no seq index, so it reads
    ///   every frame from ``nextSeq`` on. A `seq` at or before ``nextSeq`` costs nothing.
    public func skip(toSeq seq: UInt64) throws(EventLogError) {
        try checkNotVisiting()
        while cursor.expectedSeq < seq, try nextView() != nil {}
    }

    /// Scans a whole log under `mode`, calling `visit` for each good record,
    /// and reports what it found. Never changes the file (a writer's open cuts
    /// torn tails; a reader only reports them).
    ///
    /// - Throws: ``EventLogError``: the codes of ``init(path:fileSystem:)`` for a file that
    ///   cannot be opened or has no valid header; ``EventLogError/Code/corruptRecord`` or
    ///   ``EventLogError/Code/seqGap`` for damage that `mode` does not tolerate (see
    ///   ``RecoveryMode``: never in ``RecoveryMode/pointInTime``, which reports it);
    ///   ``EventLogError/Code/ioError`` when a read fails. Whatever `visit` throws is rethrown
    ///   unchanged, and the scan stops there.
    /// - Complexity: O(file size): every frame from seq 1 is read and checked. Damage also
    ///   costs a search of the bytes after it for later frames.
    public static func scan(
        path: String, mode: RecoveryMode = .tolerateCorruptedTail, fileSystem: any LogFileSystem = SystemFileSystem(),
        visit: (EventRecord) throws -> Void = { _ in }
    ) throws -> (header: LogHeader, report: RecoveryReport) {
        let file = try fileSystem.open(path, .readOnly)
        defer { file.close() }
        let header = try LogHeader.read(from: file, path: path)
        let durable = SyncMark.load(forLogAt: path, header: header, file: file)
        let result = try Recovery.scan(file: file, format: FrameFormat(header: header), mode: mode, durable: durable) {
            try visit($0.record)
        }
        return (header, result.report)
    }

    /// Reads every good record of a log, with the report. The default `mode`
    /// tolerates a torn tail; ``RecoveryMode/absoluteConsistency`` refuses it.
    ///
    /// - Throws: What ``scan(path:mode:fileSystem:visit:)`` throws.
    /// - Complexity: O(file size) in time, and every record is held in memory.
    public static func readAll(path: String, mode: RecoveryMode = .tolerateCorruptedTail) throws -> (
        records: [EventRecord], report: RecoveryReport
    ) {
        var records: [EventRecord] = []
        let (_, report) = try scan(path: path, mode: mode) { records.append($0) }
        return (records, report)
    }
}
