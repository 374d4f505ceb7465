/// Frames a staged append wrote, as they will lie in the log once it is
/// committed (``LogWriter/StagedAppend/writeKeepingFrames(_:)``).
package struct StagedFrames: Sendable {
    /// The file offset of the first byte.
    package let offset: Int64
    /// The frames, whole, back to back.
    package let bytes: [UInt8]
}

/// Reads a new log's records from the frames of its staged append, handed
/// over in file order as they are written: the same views, checks and
/// positions as a ``LogReader`` of the committed log (every frame checked,
/// chained and in seq order; a format version 4 batch frame's records share
/// its position). An import uses it to build the log's history caches while
/// it writes, instead of reading the whole log again after.
///
/// Thread safety: none; one thread hands over frames and reads them.
package final class StagedFrameReader {
    private let frames: FramesInMemory
    private var cursor: FrameCursor
    private let path: String

    /// A reader of the log `header` heads, at its first record (the staged
    /// append must start there: the log held no record before it).
    package init(header: LogHeader, path: String) {
        self.path = path
        frames = FramesInMemory(path: path, start: Int64(header.length))
        cursor = FrameCursor(file: frames, atFirstRecordOf: FrameFormat(header: header), verifiesZeroTail: false)
    }

    /// Hands over the frames written after those handed over before.
    package func append(_ staged: StagedFrames) {
        frames.append(staged)
    }

    /// Calls `body` with each record of the frames handed over that was not
    /// read yet, in seq order, with its position. A view is valid only during its call.
    ///
    /// - Throws: ``EventLogError/Code/corruptRecord`` (or what the cursor
    ///   finds) for frames that do not check out or do not follow each
    ///   other; whatever `body` throws.
    package func forEachView(_ body: (EventRecordView, LogPosition) throws -> Void) throws {
        while true {
            if try cursor.nextRecord(body) { continue }
            switch try cursor.next() {
            case .record(let view, _):
                try body(view, cursor.lastPosition(seq: view.seq))
            case .end:
                return
            case .skipped(let seq, let offset, _):
                throw EventLogError(.corruptRecord, "record seq \(seq) at byte offset \(offset) was skipped, not read", path: path)
            case .problem(let problem):
                throw EventLogError(
                    .corruptRecord, "the staged frame at byte offset \(problem.offset) does not read back: \(problem.reason)", path: path)
            }
        }
    }
}

/// The frames handed to a ``StagedFrameReader``, as a file that holds them
/// at their offsets. Bytes before the last read are dropped (a cursor reads
/// forward). `@unchecked Sendable`: used by one thread, the reader's.
private final class FramesInMemory: LogFile, @unchecked Sendable {
    let path: String
    /// The handed-over frames not yet read past, in file order.
    private var pieces: [StagedFrames] = []
    /// Where the bytes handed over end.
    private var end: Int64

    init(path: String, start: Int64) {
        self.path = path
        end = start
    }

    func append(_ staged: StagedFrames) {
        precondition(staged.offset == end, "staged frames are handed over in file order")
        pieces.append(staged)
        end += Int64(staged.bytes.count)
    }

    func size() -> Int64 { end }

    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(EventLogError) -> Int {
        pieces.removeAll { $0.offset + Int64($0.bytes.count) <= offset }
        var copied = 0
        var at = offset
        for piece in pieces where copied < buffer.count {
            guard at >= piece.offset else {
                throw EventLogError(.ioError, "byte offset \(at) of the staged frames was already dropped", path: path)
            }
            let start = Int(at - piece.offset)
            guard start < piece.bytes.count else { continue }
            let count = min(piece.bytes.count - start, buffer.count - copied)
            piece.bytes.withUnsafeBytes { raw in
                buffer.baseAddress!.advanced(by: copied).copyMemory(from: raw.baseAddress! + start, byteCount: count)
            }
            copied += count
            at += Int64(count)
        }
        return copied
    }

    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(EventLogError) {
        throw EventLogError(.ioError, "staged frames are read, not written", path: path)
    }
    func syncData() {}
    func syncAll() {}
    func truncate(to length: Int64) throws(EventLogError) {
        throw EventLogError(.ioError, "staged frames are read, not cut", path: path)
    }
    func tryLockExclusive() -> Bool { false }
    func close() {}
}
