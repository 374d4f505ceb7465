/// Sequential, buffered reading of frames from an open log file.
///
/// The cursor never consumes a partial or damaged frame: on any problem it
/// stays at the frame's start offset, so a follower can retry after the
/// writer has finished, and recovery can report the exact offset.
///
/// Records are decoded in place: a ``Step/record(_:offset:)`` view points
/// into the cursor's read buffer and is valid until the cursor is next used
/// (``next()``, ``discardBuffer()``) or dropped. The buffer is reused: a
/// refill moves only the unread tail (at most one partial frame) to its
/// front and reads the next chunk after it.
///
/// A batch frame (format version 4) is checked and decoded whole, into the
/// canonical payloads of its records (``BatchFrameRecords``), which the
/// cursor then hands out one at a time; ``offset`` stays at the frame's
/// start until its last record is handed out. A cursor made at an offset
/// and a seq (``init(file:format:offset:expectedSeq:previousChecksum:chunk:verifiesZeroTail:)``)
/// in a version 4 log takes the frame there as the one that *holds* that
/// seq: a batch frame starting before it has its earlier records skipped,
/// and a frame whose last record is the seq before it is stepped over.
struct FrameCursor {
    /// What the cursor found at its offset.
    enum Step {
        /// A whole record, decoded in place; the cursor moved past it.
        /// `offset` is its frame's (a batch frame's records share it).
        case record(EventRecordView, offset: Int64)
        /// A whole, checksummed record with the right seq that was not decoded
        /// (its seq is below ``FrameCursor/decodeFrom``); the cursor moved past it.
        /// `payload` points into the read buffer, valid as a record's view is.
        case skipped(seq: UInt64, offset: Int64, payload: RecordPayload)
        /// The records end at the cursor: the file ends there, or only
        /// zero bytes follow (preallocated space, `preallocated` bytes of it).
        case end(preallocated: Int64)
        /// The bytes at `offset` are not a good next record.
        case problem(FrameProblem)

        /// Whether this is a ``record(_:offset:)``.
        var isRecord: Bool {
            if case .record = self { return true }
            return false
        }
    }

    let file: any LogFile
    /// How the log's frames are laid out and checksummed.
    let format: FrameFormat
    /// The checksum of the frame before the cursor, when known: a chained
    /// frame must record it. `nil` for a cursor that started mid-log at an
    /// unverified record (the first frame it reads is then taken as is).
    private(set) var previousChecksum: UInt32?
    /// File offset of the next frame.
    private(set) var offset: Int64
    /// The seq the next record must have.
    private(set) var expectedSeq: UInt64
    private var buffer = ReadBuffer()
    /// File offset of the buffer's first byte.
    private var bufferStart: Int64
    /// The bytes the next refill reads at least; doubles with each refill up to ``maxChunk``
    /// (a cursor that jumped to one record reads little; one that reads on reads in large chunks).
    private var chunk: Int
    static let maxChunk = 1 << 20

    /// Records with a lower seq are checked (framing, checksum, seq) but not decoded.
    var decodeFrom: UInt64 = 0

    /// The batch frame whose records the cursor is handing out; `nil` between frames.
    private var batch: BatchFrameRecords?
    /// The ordinal in ``batch`` of the next record to hand out.
    private var batchNext = 0
    /// The batch frame opened last: kept, so the view of the last record
    /// handed out of it stays valid until the cursor is next used.
    private var handedOut: BatchFrameRecords?
    /// The frame that holds the record the cursor returned last (its
    /// position: ``lastPosition``).
    private(set) var lastFrame = FrameExtent(offset: 0, length: 0, checksum: 0)
    /// Whether the next frame read may hold records before ``expectedSeq``
    /// (format version 4, for the first frame of a cursor made at an offset
    /// and a seq): they are stepped over, not returned.
    private var startsInsideFrame = false
    /// The checksum the first frame read must have, when the cursor was made
    /// after a position that names it (``init(file:format:after:chunk:verifiesZeroTail:)``).
    private var firstFrameChecksum: UInt32?

    /// Whether a zero length word is checked to be followed by nothing but
    /// zeros (recovery) or simply taken as the end for now (a follower).
    let verifiesZeroTail: Bool

    /// A cursor at the log's first record.
    init(file: any LogFile, atFirstRecordOf format: FrameFormat, verifiesZeroTail: Bool = true) {
        self.init(
            file: file, format: format, offset: format.firstOffset, expectedSeq: format.firstSeq, previousChecksum: format.firstPrevious,
            verifiesZeroTail: verifiesZeroTail)
    }

    /// A cursor at `offset`, where record `expectedSeq` must start.
    /// `previousChecksum` is the checksum of the frame before it, if known
    /// (0 before seq 1, which the cursor assumes when `expectedSeq` is 1).
    init(
        file: any LogFile, format: FrameFormat, offset: Int64, expectedSeq: UInt64, previousChecksum: UInt32? = nil,
        chunk: Int = maxChunk, verifiesZeroTail: Bool = true
    ) {
        self.file = file
        self.format = format
        self.previousChecksum = expectedSeq == 1 ? 0 : previousChecksum
        self.verifiesZeroTail = verifiesZeroTail
        self.offset = offset
        self.expectedSeq = expectedSeq
        self.bufferStart = offset
        self.chunk = chunk
        self.startsInsideFrame = format.hasBatchFrames && !(offset == format.firstOffset && expectedSeq == format.firstSeq)
    }

    /// A cursor at the record after `position`'s: at the frame after its
    /// frame (whose checksum must be the position's, when it has one), or,
    /// in format version 4, at its frame when that is a batch frame that
    /// holds more records (the frame must then be the one `position` names).
    init(file: any LogFile, format: FrameFormat, after position: LogPosition, chunk: Int = maxChunk, verifiesZeroTail: Bool = true) {
        if format.hasBatchFrames {
            self.init(
                file: file, format: format, offset: position.offset, expectedSeq: position.seq + 1, previousChecksum: nil, chunk: chunk,
                verifiesZeroTail: verifiesZeroTail)
            firstFrameChecksum = position.checksum
        } else {
            self.init(
                file: file, format: format, offset: position.end, expectedSeq: position.seq + 1,
                previousChecksum: position.checksum ?? 0, chunk: chunk, verifiesZeroTail: verifiesZeroTail)
        }
    }

    /// The position of the record the cursor returned last (seq `seq`): its frame.
    func lastPosition(seq: UInt64) -> LogPosition {
        LogPosition(seq: seq, offset: lastFrame.offset, length: lastFrame.length, checksum: lastFrame.checksum)
    }

    /// Reads more bytes so that at least `count` bytes from `offset` are buffered,
    /// or the file ends. Returns the bytes available from `offset`.
    private mutating func fill(atLeast count: Int) throws(EventLogError) -> Int {
        if !isKnownUniquelyReferenced(&buffer) { buffer = buffer.copy() }
        let consumed = Int(offset - bufferStart)
        if consumed > 0 {
            buffer.dropFirst(consumed)
            bufferStart = offset
        }
        if buffer.count >= count { return buffer.count }
        buffer.reserve(max(count, chunk))
        chunk = min(chunk << 1, Self.maxChunk)
        let free = UnsafeMutableRawBufferPointer(start: buffer.base + buffer.count, count: buffer.capacity - buffer.count)
        buffer.count += try file.read(at: bufferStart + Int64(buffer.count), into: free)
        return buffer.count
    }

    /// Whether the bytes at the cursor begin with a zero length word.
    private func startsWithZeroLength() -> Bool {
        let position = Int(offset - bufferStart)
        guard buffer.count - position >= 4 else { return false }
        return buffer.base.loadUnaligned(fromByteOffset: position, as: UInt32.self) == 0
    }

    /// The number of bytes from the cursor to the end of the file if they are
    /// all zero (preallocated space), or `nil` if any is not.
    private func zeroTailLength() throws(EventLogError) -> Int64? {
        let size = try file.size()
        var at = offset
        while at < size {
            let bytes = try file.read(at: at, count: Int(min(size - at, 1 << 20)))
            if bytes.isEmpty { break }
            if bytes.contains(where: { $0 != 0 }) { return nil }
            at += Int64(bytes.count)
        }
        return size - offset
    }

    /// Forgets buffered bytes from the cursor on, so the next read sees the
    /// file as it is now (a follower retrying a frame still being written).
    mutating func discardBuffer() {
        if !isKnownUniquelyReferenced(&buffer) { buffer = ReadBuffer() }
        buffer.count = 0
        bufferStart = offset
    }

    /// Reads the next record, or says why there is none.
    @inline(__always)
    mutating func next() throws(EventLogError) -> Step {
        if batch != nil { return nextOfBatch() }
        var available = Int(Int64(buffer.count) - (offset - bufferStart))
        if available < format.headerLength {
            available = try fill(atLeast: format.headerLength)
            if available == 0 { return .end(preallocated: 0) }
        }
        if startsWithZeroLength() {
            if !verifiesZeroTail { return .end(preallocated: 0) }
            if let zeros = try zeroTailLength() { return .end(preallocated: zeros) }
        }
        while true {
            let position = Int(offset - bufferStart)
            switch Frame.check(UnsafeRawBufferPointer(start: buffer.base + position, count: buffer.count - position), at: 0, format: format)
            {
            case .whole(let frame):
                let at = offset
                if let expected = firstFrameChecksum {
                    firstFrameChecksum = nil
                    guard frame.checksum == expected else {
                        return .problem(
                            FrameProblem(
                                offset: offset, kind: .seqGap,
                                reason:
                                    "the frame here has checksum 0x\(String(frame.checksum, radix: 16)), not 0x\(String(expected, radix: 16)) as the position the read resumed after says"
                            ))
                    }
                }
                if frame.isBatch {
                    if let problem = openBatch(frame) { return .problem(problem) }
                    if batch != nil { return nextOfBatch() }
                    continue  // every record of the frame is before the one wanted: stepped over
                }
                if startsInsideFrame {
                    startsInsideFrame = false
                    // A one-record frame where the record after it is wanted: stepped over.
                    var reader = ByteReader(frame.payload)
                    if let seq = try? reader.varint(), seq &+ 1 == expectedSeq {
                        advance(past: frame, records: 0, at: at)
                        continue
                    }
                }
                if expectedSeq >= decodeFrom {
                    let view: EventRecordView
                    do { view = try EventRecordView.parse(frame.payload) } catch {
                        return .problem(
                            FrameProblem(
                                offset: offset, kind: .invalidContent,
                                reason: "record with a valid checksum has invalid content: \(error.reason)"))
                    }
                    guard view.seq == expectedSeq else {
                        return .problem(
                            FrameProblem(
                                offset: offset, kind: .seqGap,
                                reason: "record has seq \(view.seq) where seq \(expectedSeq) was expected"))
                    }
                    if let broken = brokenChain(frame) { return .problem(broken) }
                    advance(past: frame, records: 1, at: at)
                    return .record(view, offset: at)
                }
                // Below `decodeFrom`: only the seq is read.
                var reader = ByteReader(frame.payload)
                let seq: UInt64
                do { seq = try reader.varint() } catch {
                    return .problem(
                        FrameProblem(
                            offset: offset, kind: .invalidContent,
                            reason: "record with a valid checksum has invalid content: \(error.reason)"))
                }
                guard seq == expectedSeq else {
                    return .problem(
                        FrameProblem(
                            offset: offset, kind: .seqGap,
                            reason: "record has seq \(seq) where seq \(expectedSeq) was expected"))
                }
                if let broken = brokenChain(frame) { return .problem(broken) }
                advance(past: frame, records: 1, at: at)
                return .skipped(seq: seq, offset: at, payload: RecordPayload(frame.payload))
            case .incomplete(let needed):
                let before = available
                available = try fill(atLeast: needed)
                if available < needed && available == before {
                    return .problem(
                        FrameProblem(
                            offset: offset, kind: .incomplete,
                            reason: "the last record is incomplete: \(available) of \(needed) bytes present"))
                }
            case .damaged(let reason):
                return .problem(FrameProblem(offset: offset, kind: .damaged, reason: reason))
            }
        }
    }
}

extension FrameCursor {
    /// The next record when it is whole in the bytes already read and good
    /// as ``next()`` checks a record it does not decode (framing, checksum,
    /// its seq, the chained checksum): its seq, offset and payload (valid as
    /// a ``Step/skipped(seq:offset:payload:)`` payload is), and the cursor
    /// moves past it. `nil` for anything else — a frame not read whole yet, a
    /// zero length word, any failed check — without moving: ``next()`` then
    /// says what is there, as it always does. A loop over the records calls
    /// this first, for a `Step` (which has room for a decoded view) costs
    /// copies a frame this size does not need.
    @inline(__always)
    mutating func nextCheckedPayload() -> (seq: UInt64, offset: Int64, payload: UnsafeRawBufferPointer)? {
        guard let frame = bufferedRecordFrame() else { return nil }
        var reader = ByteReader(frame.payload)
        guard let seq = try? reader.varint(), seq == expectedSeq else { return nil }
        let at = offset
        advance(past: frame, records: 1, at: at)
        return (seq, at, frame.payload)
    }

    /// The next record, decoded, when it is whole in the bytes already read
    /// and good as ``next()`` checks a record it decodes (framing, checksum,
    /// content, seq, chained checksum), and not below ``decodeFrom``: the
    /// cursor moves past it and calls `body` with the view and its position
    /// (``lastPosition(seq:)``; the view valid as a ``Step/record(_:offset:)`` view is), and
    /// returns `true`. `false` for anything else, without moving: ``next()``
    /// then says what is there, as it always does. A loop over the records
    /// calls this first: a `Step` is 168 bytes, copied at each hand-off, and
    /// most records need none.
    ///
    /// - Throws: only what `body` throws (the cursor is then past the record).
    @inline(__always)
    mutating func nextRecord(_ body: (EventRecordView, LogPosition) throws -> Void) rethrows -> Bool {
        if batch != nil {
            guard expectedSeq >= decodeFrom else { return false }
            let seq = expectedSeq
            let (records, i) = takeFromBatch()
            try body(records.view(i), lastPosition(seq: seq))
            return true
        }
        guard expectedSeq >= decodeFrom, let frame = bufferedRecordFrame(), let view = try? EventRecordView.parse(frame.payload),
            view.seq == expectedSeq
        else { return false }
        let at = offset
        advance(past: frame, records: 1, at: at)
        try body(view, lastPosition(seq: view.seq))
        return true
    }

    /// The version 2 (one-record) frame at the cursor, when it is whole in
    /// the bytes already read, checksummed and chained to the frame before —
    /// what the fast paths (``nextCheckedPayload()``, ``nextRecord(_:)``) take
    /// without a `Step`; `nil` for anything else (a batch frame, a cursor
    /// inside or at its first frame of a position, a zero length word, a
    /// frame not read whole yet, any failed check). Nothing moves.
    @inline(__always)
    private func bufferedRecordFrame() -> Frame.Whole? {
        if batch != nil || startsInsideFrame || firstFrameChecksum != nil { return nil }
        let position = Int(offset - bufferStart)
        guard buffer.count - position >= format.headerLength, !startsWithZeroLength(),
            case .whole(let frame) = Frame.check(
                UnsafeRawBufferPointer(start: buffer.base + position, count: buffer.count - position), at: 0, format: format),
            !frame.isBatch
        else { return nil }
        if format.chainsRecords, let previousChecksum, frame.previous != previousChecksum { return nil }
        return frame
    }

    /// The problem with a whole frame of the right seq that does not record
    /// the previous frame's checksum (format version 2), if it does not.
    @inline(__always)
    private func brokenChain(_ frame: Frame.Whole) -> FrameProblem? {
        guard format.chainsRecords, let previousChecksum, frame.previous != previousChecksum else { return nil }
        return FrameProblem(
            offset: offset, kind: .brokenChain,
            reason:
                "record \(expectedSeq) does not continue this log's history: it follows a record with checksum 0x\(String(frame.previous, radix: 16)), but the record before it has checksum 0x\(String(previousChecksum, radix: 16))"
        )
    }

    /// Moves past a good frame at `at` whose `records` records (from the
    /// expected seq on) were handed out: the next record's seq and predecessor.
    @inline(__always)
    private mutating func advance(past frame: Frame.Whole, records: Int, at: Int64) {
        lastFrame = FrameExtent(offset: at, length: Int64(frame.length), checksum: frame.checksum)
        offset += Int64(frame.length)
        expectedSeq += UInt64(records)
        previousChecksum = frame.checksum
    }

    /// Decodes the batch frame `frame` at the cursor and checks it continues
    /// the log: its first seq the expected one (or, for the first frame of a
    /// cursor made inside a version 4 log, a seq whose frame holds the
    /// expected one), its chained checksum. Then ``batch`` holds its records
    /// from the expected seq on; `nil` when every record is before it (the
    /// cursor is then past the frame). Returns the problem instead, if any.
    private mutating func openBatch(_ frame: Frame.Whole) -> FrameProblem? {
        let at = offset
        let records: BatchFrameRecords
        do {
            records = try BatchFrameRecords(
                body: frame.payload, frame: FrameExtent(offset: at, length: Int64(frame.length), checksum: frame.checksum))
        } catch {
            return FrameProblem(
                offset: at, kind: .invalidContent, reason: "batch frame with a valid checksum has invalid content: \(error.message)")
        }
        let loose = startsInsideFrame
        startsInsideFrame = false
        let holds = records.firstSeq <= expectedSeq && expectedSeq <= records.lastSeq + 1
        guard loose ? holds : records.firstSeq == expectedSeq else {
            return FrameProblem(
                offset: at, kind: .seqGap,
                reason: "batch frame holds seqs \(records.firstSeq)…\(records.lastSeq) where seq \(expectedSeq) was expected")
        }
        if !loose || records.firstSeq == expectedSeq, let broken = brokenChain(frame) { return broken }
        let next = Int(expectedSeq - records.firstSeq)
        if next == records.count {
            advance(past: frame, records: 0, at: at)
            return nil
        }
        batch = records
        batchNext = next
        handedOut = records
        return nil
    }

    /// The next record of the batch frame being handed out; past the frame
    /// after its last.
    private mutating func nextOfBatch() -> Step {
        let seq = expectedSeq
        let (records, i) = takeFromBatch()
        guard seq >= decodeFrom else {
            return .skipped(seq: seq, offset: records.frame.offset, payload: RecordPayload(frame: records, index: i))
        }
        return .record(records.view(i), offset: records.frame.offset)
    }

    /// Moves past the next record of the batch frame being handed out (past
    /// the frame after its last); returns the frame and the record's ordinal.
    /// The frame stays alive as ``handedOut`` until the next frame is opened.
    @inline(__always)
    private mutating func takeFromBatch() -> (BatchFrameRecords, Int) {
        let records = batch.unsafelyUnwrapped
        let i = batchNext
        lastFrame = records.frame
        if i + 1 == records.count {
            batch = nil
            offset = records.frame.offset + records.frame.length
            previousChecksum = records.frame.checksum
        } else {
            batchNext = i + 1
        }
        expectedSeq += 1
        return (records, i)
    }
}

/// A frame that is not a good next record.
struct FrameProblem: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        /// The frame runs past the end of the file.
        case incomplete
        /// Impossible length or checksum mismatch.
        case damaged
        /// Checksum right, content undecodable.
        case invalidContent
        /// A good record with the wrong seq.
        case seqGap
        /// A good record that records another predecessor than the record
        /// before it (version 2): a record of another history spliced in.
        case brokenChain
    }
    var offset: Int64
    var kind: Kind
    var reason: String

    /// Whether this kind of problem can be left by an interrupted write.
    var canBeTornWrite: Bool { kind == .incomplete || kind == .damaged }
}
