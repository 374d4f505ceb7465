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
    private let file: any LogFile
    private var cursor: FrameCursor
    /// Whether a ``forEachView(from:_:)`` closure is running: the reader then
    /// refuses to move (that would invalidate the view being visited).
    private var visiting = false

    /// Opens the log at `path` for reading and checks its header. Reading starts at seq 1.
    /// `fileSystem` is the real one unless a test injects faults.
    public init(path: String, fileSystem: any LogFileSystem = SystemFileSystem()) throws(EventLogError) {
        let file = try fileSystem.open(path, .readOnly)
        do {
            let size = try file.size()
            header = try LogHeader.decode(try file.read(at: 0, count: LogFormat.headerLength), fileSize: size, path: path)
        } catch {
            file.close()
            throw error
        }
        self.path = path
        self.file = file
        self.cursor = FrameCursor(file: file, format: FrameFormat(header: header), offset: Int64(LogFormat.headerLength), expectedSeq: 1,
                                  verifiesZeroTail: false)
    }

    deinit { file.close() }

    /// The seq the next record read will have.
    public var nextSeq: UInt64 { cursor.expectedSeq }

    /// The byte offset the next record is read from.
    public var offset: Int64 { cursor.offset }

    /// The file's current size in bytes.
    public func fileSize() throws(EventLogError) -> Int64 { try file.size() }

    /// The next whole record, or `nil` if none is complete yet (end of file,
    /// or a frame still being written or torn at the end). Throws on damage
    /// that good records follow, on content that fails to decode, and on a seq gap.
    public func next() throws(EventLogError) -> EventRecord? {
        try checkNotVisiting()
        return try nextView()?.record
    }

    /// Throws ``EventLogError/Code/readerBusy`` inside a ``forEachView(from:_:)`` closure.
    private func checkNotVisiting() throws(EventLogError) {
        if visiting {
            throw EventLogError(.readerBusy, "the reader is in the middle of forEachView: read from it after that call returns (or open a second reader)", path: path)
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
    /// bytes the view points into. Throws what ``next()`` throws, and what
    /// `body` throws (the reader is then positioned after that record).
    @discardableResult
    public func forEachView(from seq: UInt64 = 1, _ body: (EventRecordView) throws -> Void) throws -> Int {
        try checkNotVisiting()
        try skip(toSeq: seq)
        visiting = true
        defer { visiting = false }
        var visited = 0
        while let view = try nextView() {
            visited += 1
            try body(view)
        }
        return visited
    }

    /// The next whole record decoded in place (valid until the cursor is next used), or `nil`; see ``next()``.
    private func nextView() throws(EventLogError) -> EventRecordView? {
        switch try cursor.next() {
        case .record(let view, _):
            return view
        case .skipped:
            preconditionFailure("a reader's cursor decodes every record")
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
            guard try Recovery.laterFrames(in: file, format: cursor.format, after: problem.offset, fileLength: try file.size()).proveDamage else {
                return nil
            }
            switch try cursor.next() {
            case .record(let view, _):
                return view
            case .skipped:
                preconditionFailure("a reader's cursor decodes every record")
            case .end:
                throw corruption(FrameProblem(offset: problem.offset, kind: .damaged, reason: "zero bytes where a record should start, before good records"))
            case .problem(let again):
                cursor.discardBuffer()
                throw corruption(again)
            }
        }
    }

    private func corruption(_ problem: FrameProblem) -> EventLogError {
        let code: EventLogError.Code = problem.kind == .seqGap ? .seqGap : .corruptRecord
        return EventLogError(code, "the log is corrupt: \(problem.reason)", path: path, offset: problem.offset,
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

    /// Classifies the bytes after the last record read. Throws
    /// ``EventLogError/Code/corruptRecord`` when a checksummed record starts
    /// somewhere after them: that is damage in the middle of the log (a
    /// follower stops at it and waits; `verify` must report it).
    public func tail() throws(EventLogError) -> Tail {
        let size = try file.size()
        let offset = cursor.offset
        guard size > offset else { return .none }
        var probe = FrameCursor(file: file, format: cursor.format, offset: offset, expectedSeq: cursor.expectedSeq,
                                previousChecksum: cursor.previousChecksum, verifiesZeroTail: true)
        switch try probe.next() {
        case .end(let preallocated):
            return preallocated > 0 ? .preallocated(bytes: preallocated) : .none
        case .record, .skipped:
            // Completed since the last read: not a tail at all.
            return .none
        case .problem(let problem):
            guard problem.canBeTornWrite else { throw corruption(problem) }
            guard try Recovery.laterFrames(in: file, format: cursor.format, after: offset, fileLength: size).proveDamage else {
                return .torn(offset: offset, bytes: size - offset, reason: problem.reason)
            }
            // As in `next()`: a frame the writer was finishing is complete once a later one exists.
            var again = FrameCursor(file: file, format: cursor.format, offset: offset, expectedSeq: cursor.expectedSeq,
                                    previousChecksum: cursor.previousChecksum, verifiesZeroTail: true)
            if case .record = try again.next() { return .none }
            throw corruption(problem)
        }
    }

    /// Every record that is complete now, up to `maxCount`; empty when caught up.
    public func poll(maxCount: Int = .max) throws(EventLogError) -> [EventRecord] {
        var result: [EventRecord] = []
        while result.count < maxCount, let record = try next() { result.append(record) }
        return result
    }

    /// Skips forward so that the next record read is `seq` (or the end, if the log is shorter).
    public func skip(toSeq seq: UInt64) throws(EventLogError) {
        try checkNotVisiting()
        while cursor.expectedSeq < seq, try nextView() != nil {}
    }

    /// Scans a whole log under `mode`, calling `visit` for each good record,
    /// and reports what it found. Never changes the file (a writer's open cuts
    /// torn tails; a reader only reports them).
    public static func scan(path: String, mode: RecoveryMode = .tolerateCorruptedTail, fileSystem: any LogFileSystem = SystemFileSystem(),
                            visit: (EventRecord) throws -> Void = { _ in }) throws -> (header: LogHeader, report: RecoveryReport) {
        let file = try fileSystem.open(path, .readOnly)
        defer { file.close() }
        let size = try file.size()
        let header = try LogHeader.decode(try file.read(at: 0, count: LogFormat.headerLength), fileSize: size, path: path)
        let result = try Recovery.scan(file: file, format: FrameFormat(header: header), mode: mode) { try visit($0.record) }
        return (header, result.report)
    }

    /// Reads every good record of a log (tolerating a torn tail), with the report.
    public static func readAll(path: String, mode: RecoveryMode = .tolerateCorruptedTail) throws -> (records: [EventRecord], report: RecoveryReport) {
        var records: [EventRecord] = []
        let (_, report) = try scan(path: path, mode: mode) { records.append($0) }
        return (records, report)
    }
}
