import Foundation

/// An index of a log's history: for every label and every actor, the seqs of
/// the records about it; for every block of ``blockSize`` records, where the
/// block starts in the file and the range of its timestamps.
///
/// It answers "which records could match" — `log --label`, `--actor`,
/// `--since`/`--until` — without reading the whole log: the records it names
/// are then read from the log itself (``LogReader/seek(toSeq:atOffset:previousChecksum:)``)
/// and filtered there, so the index narrows a scan and never supplies an
/// answer of its own. The log stays the only truth.
///
/// The index covers the records up to ``covered`` (a ``LogPosition``: seq,
/// offset, frame length and frame checksum). It is kept next to the log as
/// `LOG.index` (format in docs/INDEX.md) and is used only when it proves it
/// belongs to the log: the same log id, and a whole frame of record
/// `covered.seq` with that checksum at that position (in a format 2 log the
/// checksum chains back to seq 1, so it identifies the whole history it
/// covers). Records after `covered` — appended since the index was written —
/// are found by scanning them. See ``HistoryIndexFile``.
///
/// The value holds the file's checked bytes and reads them in place: a label's
/// seqs are found by binary search in a sorted directory, so opening costs a
/// checksum of the file and nothing per label. Immutable and `Sendable`.
public struct HistoryIndex: Sendable, Hashable {
    /// Records per block (the unit of time-range and seq lookups).
    public static let blockSize: UInt64 = 1024

    /// Where one block of records starts, and the timestamps in it.
    public struct Block: Sendable, Hashable {
        /// The byte offset of the block's first record.
        public var offset: Int64
        /// The frame checksum of the record before the block's first (0 before seq 1; format 1 logs: 0).
        public var previousChecksum: UInt32
        /// The smallest timestamp in the block, in ms since 1970 (timestamps need not increase with seq).
        public var minTime: Int64
        /// The largest timestamp in the block, in ms since 1970.
        public var maxTime: Int64
    }

    /// The `LogHeader.logID` of the log indexed.
    public let logID: LabelID
    /// The last record the index covers (`nil` while it covers none).
    public let covered: LogPosition?
    /// The body's bytes (docs/INDEX.md, "Body"), checked when decoded.
    let body: [UInt8]
    /// Where the sections start in ``body``, and their counts.
    let layout: Layout
    /// Every actor (`nil`: records without one) and where its seq list is in ``body``.
    let actorLists: [String?: Int]

    struct Layout: Sendable, Hashable {
        var blockCount: Int
        var blocksStart: Int
        var labelCount: Int
        var labelsStart: Int
        /// Where the seq lists start (directory entries hold offsets relative to it).
        var listsStart: Int
        var reordersList: Int
    }

    /// The last seq covered (0 when none).
    public var coveredSeq: UInt64 { covered?.seq ?? 0 }

    /// The number of blocks (one per ``blockSize`` records covered; the last may be partial).
    public var blockCount: Int { layout.blockCount }

    /// Block `k` (records `k · blockSize + 1` on).
    ///
    /// - Precondition: `0 <= k < blockCount`.
    public func block(_ k: Int) -> Block {
        precondition(k >= 0 && k < layout.blockCount, "block \(k) of \(layout.blockCount)")
        var reader = ByteReaderCursor(body, at: layout.blocksStart + k * Self.blockEntryLength)
        return Block(
            offset: Int64(bitPattern: reader.u64()), previousChecksum: reader.u32(), minTime: Int64(bitPattern: reader.u64()),
            maxTime: Int64(bitPattern: reader.u64()))
    }

    /// The number of labels the covered records name.
    public var labelCount: Int { layout.labelCount }

    /// The ids of every label the covered records name, ascending by their bytes.
    ///
    /// - Complexity: O(labels).
    public var labelIDs: [LabelID] { (0..<layout.labelCount).map { labelEntry($0).id } }

    /// The seqs (ascending) of the covered records whose event names `id` (``LabelEventOf/labelID``).
    ///
    /// - Complexity: O(log labels + k) for its k seqs.
    public func seqs(ofLabel id: LabelID) -> [UInt64] {
        let key = id.bytes
        var low = 0
        var high = layout.labelCount
        while low < high {
            let mid = (low + high) / 2
            let entry = labelEntry(mid)
            if entry.id.bytes == key { return seqList(at: entry.list) }
            if entry.id.bytes.lexicographicallyPrecedes(key) { low = mid + 1 } else { high = mid }
        }
        return []
    }

    /// Every actor of the covered records (`nil`: records without an actor).
    public var actors: [String?] { Array(actorLists.keys) }

    /// The seqs (ascending) of the covered records by `actor` (`nil`: those without an actor).
    public func seqs(ofActor actor: String?) -> [UInt64] { actorLists[actor].map { seqList(at: $0) } ?? [] }

    /// The seqs (ascending) of the `reordered` events, which name every label of the list.
    public var reorders: [UInt64] { seqList(at: layout.reordersList) }

    /// Where to start reading so that the next record is at or before `seq`:
    /// the start of `seq`'s block (`nil` when `seq` is not covered).
    public func start(for seq: UInt64) -> (seq: UInt64, offset: Int64, previousChecksum: UInt32)? {
        guard seq >= 1, seq <= coveredSeq else { return nil }
        let k = Int((seq - 1) / Self.blockSize)
        let block = block(k)
        return (UInt64(k) * Self.blockSize + 1, block.offset, block.previousChecksum)
    }

    /// The covered seqs that can match every given filter, ascending: records
    /// about any of `labels` (a `reordered` event is a candidate for every
    /// label), by any of `actors` (`nil`: without an actor), stamped within
    /// `since...until`. A filter that is `nil` does not narrow. `nil` when no
    /// filter narrows at all (then every covered record is a candidate).
    ///
    /// - Complexity: O(m log m) in the seqs of the labels and actors named,
    ///   plus O(b) in the blocks for a time range.
    public func candidates(labels: Set<LabelID>?, actors: Set<String?>?, since: EventTimestamp?, until: EventTimestamp?) -> [UInt64]? {
        var result: [UInt64]?
        func narrow(_ seqs: [UInt64]) {
            guard let current = result else {
                result = seqs
                return
            }
            let keep = Set(seqs)
            result = current.filter { keep.contains($0) }
        }
        if let labels {
            narrow(Array(Set(labels.flatMap { seqs(ofLabel: $0) } + reorders)).sorted())
        }
        if let actors {
            narrow(Array(Set(actors.flatMap { seqs(ofActor: $0) })).sorted())
        }
        if since != nil || until != nil {
            let low = since?.millisecondsSince1970 ?? .min
            let high = until?.millisecondsSince1970 ?? .max
            var seqs: [UInt64] = []
            for k in 0..<layout.blockCount {
                let block = block(k)
                guard block.maxTime >= low && block.minTime <= high else { continue }
                let first = UInt64(k) * Self.blockSize + 1
                seqs.append(contentsOf: first...min(first + Self.blockSize - 1, coveredSeq))
            }
            narrow(seqs)
        }
        return result
    }

    /// Label entry `k` of the sorted directory: the id and where its seq list is.
    func labelEntry(_ k: Int) -> (id: LabelID, list: Int) {
        var reader = ByteReaderCursor(body, at: layout.labelsStart + k * Self.labelEntryLength)
        let id = reader.id()
        return (id, layout.listsStart + Int(reader.u64()))
    }

    /// The seq list at `offset` of ``body`` (checked when the index was decoded).
    func seqList(at offset: Int) -> [UInt64] {
        var reader = ByteReaderCursor(body, at: offset)
        let count = reader.varint()
        var seqs: [UInt64] = []
        seqs.reserveCapacity(Int(count))
        var seq: UInt64 = 0
        for _ in 0..<count {
            seq += reader.varint()
            seqs.append(seq)
        }
        return seqs
    }
}

extension LabelID {
    /// The id's 16 bytes, in order (the index's directory sorts by them).
    var bytes: [UInt8] { withUnsafeBytes(of: uuid.uuid) { Array($0) } }
}

/// Reading the index body's already-checked bytes in place (no failure paths:
/// ``HistoryIndex/decode(_:path:)`` proved every offset and varint sound).
struct ByteReaderCursor {
    let bytes: [UInt8]
    var position: Int

    init(_ bytes: [UInt8], at position: Int) {
        self.bytes = bytes
        self.position = position
    }

    mutating func u32() -> UInt32 {
        defer { position += 4 }
        return (0..<4).reduce(0) { $0 | UInt32(bytes[position + $1]) << (8 * $1) }
    }

    mutating func u64() -> UInt64 {
        defer { position += 8 }
        return (0..<8).reduce(0) { $0 | UInt64(bytes[position + $1]) << (8 * $1) }
    }

    mutating func varint() -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = bytes[position]
            position += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
    }

    mutating func id() -> LabelID {
        defer { position += 16 }
        return bytes.withUnsafeBytes { LabelID(UUID(uuid: $0.loadUnaligned(fromByteOffset: position, as: uuid_t.self))) }
    }
}
