/// How the record frames of one log are laid out and checksummed
/// (docs/FORMAT.md, "Record frame"):
///
/// - version 1: `[u32 length][u32 crc][payload]`, `crc` = CRC-32C of the
///   length word and the payload.
/// - version 2: `[u32 word][u32 crc][u32 previous][payload]`. `word` holds the
///   payload length (bits 0–26) and the *continuation* flag (bit 31: the
///   frame was written while an earlier record was not yet known durable);
///   `previous` is the checksum of the frame before (0 before seq 1); `crc` is
///   CRC-32C of the log id, the word, `previous` and the payload. Keying the
///   checksum by the log's random id means bytes inside a title cannot pass
///   for a frame, and chaining `previous` ties each record to the whole
///   history before it.
struct FrameFormat: Sendable, Hashable {
    /// The log's format version (1 to 4; 3 is version 2's frames after a base block).
    let version: UInt16
    /// The CRC-32C state after the log id's 16 bytes (version 2), or 0 (version 1).
    let seed: UInt32
    /// The frame header's size: 8 bytes in version 1, 12 in version 2.
    let headerLength: Int
    /// The first record's seq (1 unless the log is based: format version 3).
    var firstSeq: UInt64 = 1
    /// Where the first record's frame starts (after the header and a based log's base block).
    var firstOffset = Int64(LogFormat.headerLength)
    /// The chained checksum the first record's frame continues (0 before seq 1).
    var firstPrevious: UInt32 = 0

    /// Bit 31 of a version 2 length word: the continuation flag.
    static let continuationFlag: UInt32 = 1 << 31
    /// Bits 27–30 of a version 2 length word: reserved, zero.
    static let reservedBits: UInt32 = 0x7800_0000
    /// Bit 30 of a version 4 length word: the frame is a *batch frame*, whose
    /// payload is a batch frame body holding several records (docs/FORMAT.md,
    /// "Batch frames (version 4)"); without it the frame holds one record, as
    /// in version 2.
    static let batchFlag: UInt32 = 1 << 30
    /// Bits 27–29 of a version 4 length word: reserved, zero.
    static let reservedBitsWithBatches: UInt32 = 0x3800_0000
    /// Bits 0–26 of a version 2 length word: the payload length.
    static let lengthBits: UInt32 = 0x07FF_FFFF

    /// The frames of a version 1 log.
    static let version1 = FrameFormat(version: 1, logID: nil)

    /// The frames of a log of format `version` whose id is `logID`.
    init(version: UInt16, logID: LabelID?) {
        self.version = version
        self.headerLength = LogFormat.frameHeaderLength(version: version)
        if version >= 2, let logID {
            var w = ByteWriter(capacity: 16)
            w.id(logID)
            self.seed = CRC32C.checksum(w.bytes)
        } else {
            self.seed = 0
        }
    }

    /// The frames of the log that `header` heads.
    init(header: LogHeader) {
        self.init(version: header.version, logID: header.logID)
        firstSeq = header.firstSeq
        firstOffset = Int64(header.length)
        firstPrevious = header.previousChecksum
    }

    /// Whether frames carry the continuation flag and the previous frame's checksum.
    var chainsRecords: Bool { version >= 2 }
    /// Whether a frame may be a batch frame (bit 30 of its length word): format version 4.
    var hasBatchFrames: Bool { version >= LogFormat.batchVersion }
    /// The bits of a length word that must be zero.
    var reservedBits: UInt32 { hasBatchFrames ? FrameFormat.reservedBitsWithBatches : FrameFormat.reservedBits }
}

/// Record framing; see ``FrameFormat`` and docs/FORMAT.md.
enum Frame {
    /// A whole frame whose checksum matches.
    struct Whole {
        /// The payload (not yet decoded), inside the buffer given to ``Frame/check(_:at:format:)``.
        var payload: UnsafeRawBufferPointer
        /// The frame's length: header plus payload.
        var length: Int
        /// The frame's stored checksum.
        var checksum: UInt32
        /// The checksum of the frame before, as this frame records it (0 in version 1).
        var previous: UInt32
        /// Whether the frame was written while an earlier record was not yet durable (never in version 1).
        var continues: Bool
        /// Whether the frame is a batch frame (version 4): its payload is a
        /// batch frame body, not one record's payload.
        var isBatch: Bool = false
    }

    /// The outcome of looking at the bytes at one offset.
    enum Check {
        /// A whole frame whose checksum matches.
        case whole(Whole)
        /// The frame runs past the bytes available (a torn tail, or still being written).
        case incomplete(needed: Int)
        /// The length word or checksum is wrong: damaged or never-finished bytes.
        case damaged(String)
    }

    /// The payload length a length word declares, or `nil` if the word is
    /// impossible in `format` (reserved bits set, or out of range).
    @inline(__always)
    static func payloadLength(word: UInt32, format: FrameFormat) -> Int? {
        let length = format.chainsRecords ? word & FrameFormat.lengthBits : word
        guard !format.chainsRecords || word & format.reservedBits == 0,
            length >= UInt32(LogFormat.minPayloadLength), length <= UInt32(LogLimits.maxPayloadBytes)
        else { return nil }
        return Int(length)
    }

    /// Appends the frame of `record` to `out` and returns its checksum. The record must be validated.
    @discardableResult
    static func encode(
        _ record: EventRecord, into out: inout ByteWriter, format: FrameFormat,
        previous: UInt32 = 0, continues: Bool = false
    ) -> UInt32 {
        let start = out.bytes.count
        out.bytes.append(contentsOf: repeatElement(0, count: format.headerLength))
        record.encodePayload(into: &out)
        let length = out.bytes.count - start - format.headerLength
        return out.bytes.withUnsafeMutableBytes { raw in
            seal(raw.baseAddress! + start, payloadLength: length, format: format, previous: previous, continues: continues)
        }
    }

    /// Fills in the header of the frame at `frame`, whose `payloadLength`
    /// payload bytes follow its header, and returns its checksum.
    @inline(__always)
    static func seal(
        _ frame: UnsafeMutableRawPointer, payloadLength: Int, format: FrameFormat,
        previous: UInt32, continues: Bool, batch: Bool = false
    ) -> UInt32 {
        precondition(!batch || format.hasBatchFrames, "a batch frame in a log of format version \(format.version)")
        let crc: UInt32
        if format.chainsRecords {
            let word = UInt32(payloadLength) | (continues ? FrameFormat.continuationFlag : 0) | (batch ? FrameFormat.batchFlag : 0)
            frame.storeBytes(of: word.littleEndian, as: UInt32.self)
            frame.storeBytes(of: previous.littleEndian, toByteOffset: 8, as: UInt32.self)
            crc = CRC32C.update(
                format.seed, UnsafeRawBufferPointer(start: frame, count: 4),
                UnsafeRawBufferPointer(start: frame + 8, count: 4 + payloadLength))
        } else {
            frame.storeBytes(of: UInt32(payloadLength).littleEndian, as: UInt32.self)
            crc = CRC32C.update(
                0, UnsafeRawBufferPointer(start: frame, count: 4),
                UnsafeRawBufferPointer(start: frame + 8, count: payloadLength))
        }
        frame.storeBytes(of: crc.littleEndian, toByteOffset: 4, as: UInt32.self)
        return crc
    }

    /// Looks at the frame starting at `position` in `buffer`: its length and
    /// checksum. Decoding the payload is the caller's (``EventRecordView/parse(_:)``).
    @inline(__always)
    static func check(_ buffer: UnsafeRawBufferPointer, at position: Int, format: FrameFormat) -> Check {
        let available = buffer.count - position
        let headerLength = format.headerLength
        guard available >= headerLength else { return .incomplete(needed: headerLength) }
        // Compared as UInt32 first: a damaged word need not fit a 32-bit Int.
        let word = buffer.loadUnaligned(fromByteOffset: position, as: UInt32.self).littleEndian
        guard let length = payloadLength(word: word, format: format) else {
            return .damaged(
                "impossible record length word 0x\(String(word, radix: 16)) (valid lengths: \(LogFormat.minPayloadLength)...\(LogLimits.maxPayloadBytes))"
            )
        }
        let total = headerLength + length
        guard available >= total else { return .incomplete(needed: total) }
        let stored = buffer.loadUnaligned(fromByteOffset: position + 4, as: UInt32.self).littleEndian
        let computed = checksum(buffer, at: position, payloadLength: length, format: format)
        guard stored == computed else {
            return .damaged("record checksum mismatch (stored 0x\(String(stored, radix: 16)), computed 0x\(String(computed, radix: 16)))")
        }
        let previous = format.chainsRecords ? buffer.loadUnaligned(fromByteOffset: position + 8, as: UInt32.self).littleEndian : 0
        let payload = UnsafeRawBufferPointer(rebasing: buffer[(position + headerLength)..<(position + total)])
        return .whole(
            Whole(
                payload: payload, length: total, checksum: stored, previous: previous,
                continues: format.chainsRecords && word & FrameFormat.continuationFlag != 0,
                isBatch: format.hasBatchFrames && word & FrameFormat.batchFlag != 0))
    }

    /// The checksum the frame at `position` (whose whole payload is in `buffer`) should have.
    @inline(__always)
    private static func checksum(_ buffer: UnsafeRawBufferPointer, at position: Int, payloadLength: Int, format: FrameFormat) -> UInt32 {
        let word = UnsafeRawBufferPointer(rebasing: buffer[position..<position + 4])
        if format.chainsRecords {
            return CRC32C.update(
                format.seed, word, UnsafeRawBufferPointer(rebasing: buffer[(position + 8)..<(position + 12 + payloadLength)]))
        }
        return CRC32C.update(0, word, UnsafeRawBufferPointer(rebasing: buffer[(position + 8)..<(position + 8 + payloadLength)]))
    }

    /// The seqs a whole frame holds: its record's, or a batch frame's first
    /// through last (from its body's header, checked to be a seq of at least
    /// 1 and a count of 1 to 65,536); `nil` when the payload does not start
    /// with them. Nothing else of the payload is decoded.
    static func heldSeqs(_ frame: Whole) -> ClosedRange<UInt64>? {
        var reader = ByteReader(frame.payload)
        guard let first = try? reader.varint() else { return nil }
        guard frame.isBatch else { return first...first }
        guard first >= 1, let count = try? reader.varint(), count >= 1, count <= UInt64(BatchFrame.maxRecords),
            first <= UInt64.max - (count - 1)
        else { return nil }
        return first...(first + count - 1)
    }

    /// The seq a payload starts with (its first varint), or `nil` if it does
    /// not start with one. The rest of the payload is not decoded.
    static func seq(ofPayload payload: UnsafeRawBufferPointer) -> UInt64? {
        var reader = ByteReader(payload)
        return try? reader.varint()
    }

    /// What a search for good frames sees at one byte offset.
    enum Candidate {
        /// No frame starts here.
        case none
        /// A frame may start here but runs past the buffer: read `length` bytes from here and ``check(_:at:format:)`` them.
        case needsRead(length: Int)
        /// A whole, checksummed frame starts here.
        case valid(length: Int, continues: Bool, previous: UInt32, checksum: UInt32)
    }

    /// Whether a plausible, checksummed frame starts at `position` (content
    /// not decoded). `fileRemaining` is how many bytes the file has from
    /// `position` on: a frame longer than that is not a candidate.
    static func candidate(_ buffer: UnsafeRawBufferPointer, at position: Int, fileRemaining: Int64, format: FrameFormat) -> Candidate {
        let available = buffer.count - position
        let headerLength = format.headerLength
        guard available >= headerLength + LogFormat.minPayloadLength else { return .none }
        let word = buffer.loadUnaligned(fromByteOffset: position, as: UInt32.self).littleEndian
        guard let length = payloadLength(word: word, format: format), Int64(headerLength + length) <= fileRemaining else { return .none }
        // Before checksumming up to 64 MiB: does the payload start like a record
        // (seq ≥ 1, a timestamp, a known kind, known flags)? Random bytes rarely do,
        // so a scan for good frames past damage stays linear in practice.
        let prefix = UnsafeRawBufferPointer(
            rebasing: buffer[(position + headerLength)..<min(buffer.count, position + headerLength + length)])
        let batch = format.hasBatchFrames && word & FrameFormat.batchFlag != 0
        guard
            batch
                ? startsLikeABatchBody(prefix, whole: prefix.count == length) : startsLikeAPayload(prefix, whole: prefix.count == length)
        else { return .none }
        guard headerLength + length <= available else { return .needsRead(length: headerLength + length) }
        guard case .whole(let frame) = check(buffer, at: position, format: format) else { return .none }
        return .valid(length: frame.length, continues: frame.continues, previous: frame.previous, checksum: frame.checksum)
    }

    /// Whether `body` begins like a batch frame body (docs/FORMAT.md, "Batch
    /// frames (version 4)"): a varint first seq of at least 1, a varint count
    /// of 1 to 65,536, a varint first time, and a first record whose kind byte
    /// names a known kind with no unknown flag bits. When `whole` is false,
    /// `body` is only the start of the body, and running out of bytes is not
    /// held against it.
    static func startsLikeABatchBody(_ body: UnsafeRawBufferPointer, whole: Bool = true) -> Bool {
        var prefix = PrefixReader(body)
        guard let seq = prefix.varint() else { return prefix.ranOut && !whole }
        guard seq >= 1, let count = prefix.varint() else { return prefix.ranOut && !whole }
        guard count >= 1, count <= UInt64(BatchFrame.maxRecords) else { return false }
        guard prefix.varint() != nil else { return prefix.ranOut && !whole }
        guard prefix.position < body.count else { return !whole }
        let kind = body[prefix.position]
        return LabelEvent.Kind(code: kind & BatchFrame.kindMask) != nil
            && kind & ~(BatchFrame.kindMask | BatchFrame.actorFlag | BatchFrame.noteFlag | BatchFrame.sameTitleFlag) == 0
    }

    /// Whether `payload` begins with a record's envelope: a varint seq of at
    /// least 1, a varint timestamp, a known kind code and known flag bits.
    /// When `whole` is false, `payload` is only the start of the payload, and
    /// running out of bytes is not held against it.
    static func startsLikeAPayload(_ payload: UnsafeRawBufferPointer, whole: Bool = true) -> Bool {
        var prefix = PrefixReader(payload)
        guard let seq = prefix.varint() else { return prefix.ranOut && !whole }
        guard seq >= 1 else { return false }
        guard prefix.varint() != nil else { return prefix.ranOut && !whole }
        let i = prefix.position
        guard i + 2 <= payload.count else { return !whole }
        return LabelEvent.Kind(code: payload[i]) != nil && payload[i + 1] & ~(EventRecord.actorFlag | EventRecord.noteFlag) == 0
    }

    /// Varints read from the start of bytes that may be only a prefix of what
    /// they begin: running out is told apart from a bad varint (``ranOut``).
    /// Lenient (an overlong varint is read): a first look, not a decoder.
    private struct PrefixReader {
        let bytes: UnsafeRawBufferPointer
        /// The next byte to read.
        private(set) var position = 0
        /// Whether a read ran past the bytes.
        private(set) var ranOut = false

        init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

        /// The next varint, or `nil` when the bytes end inside it (``ranOut``) or it runs past 10 bytes.
        mutating func varint() -> UInt64? {
            var value: UInt64 = 0
            for shift in stride(from: UInt64(0), through: 63, by: 7) {
                guard position < bytes.count else {
                    ranOut = true
                    return nil
                }
                let byte = bytes[position]
                position += 1
                value |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return value }
            }
            return nil
        }
    }
}
