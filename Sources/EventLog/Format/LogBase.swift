/// What a *based* log (format version 3, docs/FORMAT.md, "Based logs") says
/// about the records before its first: they were cut off — moved to an
/// archive file or dropped — and the log starts after them from this base.
///
/// The base carries what the history up to the cut is needed for: the
/// history tree's frontier there (so heads and proofs continue over the
/// records after it, and an archive's records can be checked to join it),
/// an *image* of the state there (opaque to this module: the projection
/// encodes and decodes it, docs/SNAPSHOTS.md), and what was cut — the seqs,
/// their time range, and where they went. The chained checksum of the last
/// record cut is in the header (``LogHeader/previousChecksum``): the first
/// record's frame continues it, so the join is proven by the records
/// themselves. Immutable once written; `Sendable`.
public struct LogBase: Sendable, Hashable {
    /// Where the records that were cut went.
    public enum Disposition: Sendable, Hashable {
        /// Moved to the archive file at this path (relative to the log's
        /// directory unless it starts with `/`): a log of its own holding
        /// the records ``LogBase/cut`` names, which `labelreplay verify`
        /// checks alone and against this log.
        case archived(file: String)
        /// Dropped: nothing but this base is left of them.
        case dropped
    }

    /// The seqs that were cut: from the first record of the log they were cut from, through the one before this log's first.
    public var cut: ClosedRange<UInt64>
    /// The smallest and largest timestamps among the records cut.
    public var timeRange: ClosedRange<EventTimestamp>
    /// When the cut was made.
    public var cutAt: EventTimestamp
    /// Where the records cut went.
    public var disposition: Disposition
    /// The history tree's frontier after the last record cut (one hash per set bit of its seq; ``HistoryTreeBuilder/init(count:frontier:)``).
    public var frontier: [HistoryHash]
    /// The state after the last record cut, as the projection encoded it (opaque here).
    public var image: [UInt8]

    /// Creates a base.
    public init(
        cut: ClosedRange<UInt64>, timeRange: ClosedRange<EventTimestamp>, cutAt: EventTimestamp, disposition: Disposition,
        frontier: [HistoryHash], image: [UInt8]
    ) {
        self.cut = cut
        self.timeRange = timeRange
        self.cutAt = cutAt
        self.disposition = disposition
        self.frontier = frontier
        self.image = image
    }

    /// The seq of the last record cut (the log's first seq is one more).
    public var lastCutSeq: UInt64 { cut.upperBound }

    /// The length of the base block's bytes (``encoded()``).
    var encodedLength: Int {
        let name: Int
        switch disposition {
        case .dropped: name = 0
        case .archived(let file): name = file.utf8.count
        }
        return 8 + 40 + 1 + Self.varintLength(UInt64(name)) + name + 1 + 32 * frontier.count + 8 + image.count + 4
    }

    private static func varintLength(_ value: UInt64) -> Int { max(1, (64 - value.leadingZeroBitCount + 6) / 7) }

    /// The block's magic.
    static let magic = Array("LABELBAS".utf8)
    /// The largest base block read (the image of a list of millions of labels fits well within it).
    static let maxLength = 1 << 30

    /// The base block's bytes (docs/FORMAT.md, "Base block"), checksum included.
    package func encoded() -> [UInt8] {
        var w = ByteWriter(capacity: 96 + image.count + 32 * frontier.count)
        w.bytes.append(contentsOf: Self.magic)
        w.u64(cut.lowerBound)
        w.u64(cut.upperBound)
        w.u64(UInt64(bitPattern: timeRange.lowerBound.millisecondsSince1970))
        w.u64(UInt64(bitPattern: timeRange.upperBound.millisecondsSince1970))
        w.u64(UInt64(bitPattern: cutAt.millisecondsSince1970))
        switch disposition {
        case .dropped:
            w.u8(0)
            w.string("")
        case .archived(let file):
            w.u8(1)
            w.string(file)
        }
        w.u8(UInt8(frontier.count))
        for hash in frontier { w.bytes.append(contentsOf: hash.bytes) }
        w.u64(UInt64(image.count))
        w.bytes.append(contentsOf: image)
        w.u32(CRC32C.checksum(w.bytes))
        return w.bytes
    }

    /// Decodes and checks a base block for a log whose first seq is `firstSeq`.
    ///
    /// - Throws: ``DecodeFailure`` naming what is wrong and its offset in the block.
    package static func decode(_ bytes: [UInt8], firstSeq: UInt64) throws(DecodeFailure) -> LogBase {
        guard bytes.count >= 8 + 40 + 2 + 1 + 8 + 4, Array(bytes[0..<8]) == magic else {
            throw DecodeFailure("the base block does not start with its magic (LABELBAS)", at: 0)
        }
        guard
            CRC32C.checksum(bytes[0..<(bytes.count - 4)])
                == bytes.withUnsafeBytes({ UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: bytes.count - 4, as: UInt32.self)) })
        else {
            throw DecodeFailure("the base block's checksum does not match", at: bytes.count - 4)
        }
        let decoded = bytes.withUnsafeBytes { raw in
            Result { () throws(DecodeFailure) -> LogBase in
                try decodeFields(UnsafeRawBufferPointer(rebasing: raw[0..<(raw.count - 4)]), firstSeq: firstSeq)
            }
        }
        return try decoded.get()
    }

    /// The fields of a base block whose checksum was checked (`raw`: the block without it).
    private static func decodeFields(_ raw: UnsafeRawBufferPointer, firstSeq: UInt64) throws(DecodeFailure) -> LogBase {
        do {
            var r = ByteReader(raw, position: 8)
            let first = try r.u64()
            let last = try r.u64()
            guard first >= 1, last >= first, last == firstSeq - 1 else {
                throw DecodeFailure("the base block says seqs \(first)…\(last) were cut, but the log starts at seq \(firstSeq)", at: 8)
            }
            let low = Int64(bitPattern: try r.u64())
            let high = Int64(bitPattern: try r.u64())
            guard low <= high else { throw DecodeFailure("the cut records' time range is negative", at: 24) }
            let cutAt = Int64(bitPattern: try r.u64())
            let kind = try r.u8()
            let file = try r.text(maxBytes: 4_096, what: "archive file name").string
            let disposition: Disposition
            switch kind {
            case 0 where file.isEmpty: disposition = .dropped
            case 1 where !file.isEmpty: disposition = .archived(file: file)
            default: throw DecodeFailure("the disposition \(kind) with archive file name \"\(file)\" is not valid", at: 48)
            }
            let count = Int(try r.u8())
            guard count == last.nonzeroBitCount else {
                throw DecodeFailure("\(count) frontier hashes after seq \(last), which needs \(last.nonzeroBitCount)", at: r.position - 1)
            }
            var frontier: [HistoryHash] = []
            for _ in 0..<count { frontier.append(HistoryHash(bytes: try r.bytes(32))!) }
            let length = try r.u64()
            guard length == UInt64(r.remaining) else {
                throw DecodeFailure("the image's length \(length) is not the \(r.remaining) bytes left", at: r.position - 8)
            }
            let image = Array(try r.bytes(Int(length)))
            return LogBase(
                cut: first...last,
                timeRange: EventTimestamp(millisecondsSince1970: low)...EventTimestamp(millisecondsSince1970: high),
                cutAt: EventTimestamp(millisecondsSince1970: cutAt), disposition: disposition, frontier: frontier, image: image)
        }
    }
}
