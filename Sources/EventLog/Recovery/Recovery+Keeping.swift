/// Whether recovery keeps a log through a record that a cache (the history
/// index, a checkpoint, a snapshot) recorded, so that a read which jumps to
/// that record answers what a read from seq 1 would.
///
/// A frame that checks out at its recorded position is not enough. In a
/// format version 2 log, a record written while an earlier one was not yet
/// durable carries the continuation flag, and recovery treats damage followed
/// only by such records as a torn tail: it cuts the log at the damage (the
/// next writer's open removes everything from there). A cached position in
/// such an unsynced write — the *group* of frames from the last one without
/// the flag — is therefore kept only if every frame of its group before it
/// is whole, checksummed and chained. Damage before the group's first frame
/// is followed by that frame, which proves it durable: recovery reports it
/// as corruption, not a tail (a cached read does not read it; `verify` does).
extension Recovery {
    /// How many frames a check walks back before it verifies forward instead
    /// (a group that long is an import or a very large batch: reading it
    /// forward, from the start of the log or the last verified record, is
    /// cheaper than searching for each frame's start backwards).
    static let backwardWalkLimit = 16_384

    /// Whether recovery keeps the log at `file` through the record at
    /// `position` (see the extension's comment). `verified`, when it names
    /// a record, is one whose every frame from seq 1 was checked by an
    /// earlier call on the same file; it is updated when this call checks
    /// forward from it.
    ///
    /// - Complexity: one read of the frame, plus the frames of its unsynced
    ///   group before it (at most ``backwardWalkLimit``, searched backwards),
    ///   or else every frame from `verified` (or seq 1) to it, checked forward.
    static func keeps(
        _ file: any LogFile, format: FrameFormat, through position: LogPosition, fileLength: Int64,
        verified: inout LogPosition?
    ) throws(EventLogError) -> RecordKeeping {
        guard let frame = try heldFrame(file, format: format, at: position, fileLength: fileLength) else { return .notHeld }
        guard format.chainsRecords, frame.continues, position.seq > 1 else { return .kept }
        let known = try verified.flatMap { (known) throws(EventLogError) -> LogPosition? in
            try heldFrame(file, format: format, at: known, fileLength: fileLength) == nil ? nil : known
        }
        if let known, known.seq >= position.seq {
            return .kept  // every frame from seq 1 through `known` is intact, this one among them
        }
        var walk = BackwardFrames(file: file, format: format)
        switch try walk.groupStart(
            before: position, firstSeq: frame.seqs.lowerBound, previous: frame.previous, stoppingAt: known, limit: backwardWalkLimit)
        {
        case .reached: return .kept
        case .broken: return .notKept
        case .tooLong: break
        }
        guard try checkForward(file, format: format, from: known, through: position) else { return .notKept }
        verified = position
        return .kept
    }

    /// The frame at `position` if it is exactly one whole, checksummed frame
    /// that holds `position.seq` (its one record, or one of a batch frame's)
    /// (and has `position.checksum`, when known); what
    /// ``holdsRecord(_:format:at:fileLength:)`` checks.
    static func heldFrame(_ file: any LogFile, format: FrameFormat, at position: LogPosition, fileLength: Int64)
        throws(EventLogError) -> (continues: Bool, previous: UInt32, checksum: UInt32, seqs: ClosedRange<UInt64>)?
    {
        guard position.isPlausible(fileLength: fileLength) else { return nil }
        let bytes = try file.read(at: position.offset, count: Int(position.length))
        return bytes.withUnsafeBytes { raw in
            guard case .whole(let frame) = Frame.check(raw, at: 0, format: format), frame.length == raw.count,
                position.checksum == nil || position.checksum == frame.checksum,
                let seqs = Frame.heldSeqs(frame), seqs.contains(position.seq)
            else { return nil }
            return (frame.continues, frame.previous, frame.checksum, seqs)
        }
    }

    /// Whether every frame from the one after `anchor` (seq 1 without one)
    /// through `position` is whole, checksummed, of the next seq and chained,
    /// and the last of them is `position`'s frame.
    private static func checkForward(_ file: any LogFile, format: FrameFormat, from anchor: LogPosition?, through position: LogPosition)
        throws(EventLogError) -> Bool
    {
        var cursor = anchor.map { FrameCursor(file: file, format: format, after: $0) } ?? FrameCursor(file: file, atFirstRecordOf: format)
        cursor.decodeFrom = .max
        while true {
            guard case .skipped(let seq, _, _) = try cursor.next() else { return false }
            if seq == position.seq {
                let frame = cursor.lastFrame
                return frame.offset == position.offset && (position.checksum == nil || frame.checksum == position.checksum)
            }
        }
    }
}

/// Walks a version 2 log's frames backwards from a known frame: each
/// frame's predecessor is the whole, checksummed frame that ends where it
/// starts and whose checksum it records as `previous`. Found by trying each
/// start its length word could have (a frame's length is at its start, not
/// its end), which costs a load per byte of the frames walked.
struct BackwardFrames {
    let file: any LogFile
    let format: FrameFormat
    /// Bytes of the file from ``bufferStart`` on.
    private var buffer: [UInt8] = []
    private var bufferStart: Int64 = 0
    /// The first read's size; later reads double.
    private static let chunk = 256 << 10

    init(file: any LogFile, format: FrameFormat) {
        self.file = file
        self.format = format
    }

    /// What a walk to the start of an unsynced group found.
    enum GroupStart {
        /// A frame without the continuation flag, seq 1, or the `stoppingAt` record: every frame walked is intact.
        case reached
        /// A frame the walk needed is damaged or missing.
        case broken
        /// The walk went `limit` frames back without reaching the group's start.
        case tooLong
    }

    /// Walks back from the frame at `position` (whose recorded predecessor
    /// checksum is `previous`) through the continuation frames before it.
    mutating func groupStart(
        before position: LogPosition, firstSeq: UInt64, previous: UInt32, stoppingAt known: LogPosition?, limit: Int
    ) throws(EventLogError) -> GroupStart {
        // The first seq of the frame the walk is at (a batch frame, format version 4, holds several).
        var first = firstSeq
        var start = position.offset
        var previous = previous
        if first == format.firstSeq { return .reached }
        for _ in 0..<limit {
            guard let frame = try frame(endingAt: start, checksum: previous), let seqs = frame.seqs, seqs.upperBound == first - 1
            else { return .broken }
            first = seqs.lowerBound
            start = frame.offset
            if !frame.continues || first == format.firstSeq || (known.map { seqs.contains($0.seq) } == true && known?.checksum == previous)
            {
                return .reached
            }
            previous = frame.previous
        }
        return .tooLong
    }

    /// The whole frame that ends at `end` and has checksum `checksum`, if there is one.
    private mutating func frame(endingAt end: Int64, checksum: UInt32) throws(EventLogError)
        -> (offset: Int64, seqs: ClosedRange<UInt64>?, continues: Bool, previous: UInt32)?
    {
        let header = format.headerLength
        let lowest = max(format.firstOffset, end - Int64(header + LogLimits.maxPayloadBytes))
        var start = end - Int64(header + LogFormat.minPayloadLength)
        while start >= lowest {
            if start < bufferStart || end > bufferStart + Int64(buffer.count) {
                try load(from: start, to: end, lowest: lowest)
            }
            let found: (offset: Int64, seqs: ClosedRange<UInt64>?, continues: Bool, previous: UInt32)?? = buffer.withUnsafeBytes { raw in
                let endInBuffer = Int(end - bufferStart)
                var at = Int(start - bufferStart)
                while at >= 0 {
                    let word = raw.loadUnaligned(fromByteOffset: at, as: UInt32.self).littleEndian
                    if let length = Frame.payloadLength(word: word, format: format), header + length == endInBuffer - at,
                        raw.loadUnaligned(fromByteOffset: at + 4, as: UInt32.self).littleEndian == checksum,
                        case .whole(let frame) = Frame.check(UnsafeRawBufferPointer(rebasing: raw[at..<endInBuffer]), at: 0, format: format)
                    {
                        return .some((bufferStart + Int64(at), Frame.heldSeqs(frame), frame.continues, frame.previous))
                    }
                    if bufferStart + Int64(at) == lowest { return .some(nil) }
                    at -= 1
                }
                return nil  // past the buffer's start: load more
            }
            if let found { return found }
            start = bufferStart - 1
        }
        return nil
    }

    /// Reads the bytes from at most `start` (earlier, doubling the last
    /// read, but not before `lowest`) to `end`.
    private mutating func load(from start: Int64, to end: Int64, lowest: Int64) throws(EventLogError) {
        let size = max(Int64(Self.chunk), 2 * Int64(buffer.count), end - start)
        let from = max(lowest, min(start, end - size))
        buffer = try file.read(at: from, count: Int(end - from))
        bufferStart = from
        guard buffer.count == Int(end - from) else {
            throw EventLogError(.ioError, "the log's bytes \(from)..<\(end) could not all be read", path: file.path, offset: from)
        }
    }
}

/// What a check of a position a cache recorded found
/// (``LogReader/keeps(_:)``).
package enum RecordKeeping: Sendable, Hashable {
    /// The log holds the record there and keeps every record up to it.
    case kept
    /// The log does not hold the record there (cut, rewritten, another history).
    case notHeld
    /// The record is there, but an earlier record of the same unsynced
    /// write is damaged or missing: recovery cuts the log before it.
    case notKept

    /// Why a cache that names record `seq` is not used when the log does not keep it.
    package static func notKeptReason(_ seq: UInt64) -> String {
        "the log does not keep record \(seq): an earlier record written before the same sync is damaged or missing, so a read of the log ends before it (a torn tail, which the next writer's open cuts) or fails there"
    }
}
