import Foundation

/// One part of a ``HistoryIndex``: the base (`LOG.index`, records 1…c) or a
/// segment of the delta file (`LOG.index-delta`, records a…c, the ones after
/// the part before it). Both have the same layout (docs/INDEX.md): a
/// checksummed 128-byte header, then the blocks, the records' offsets, the
/// label fences and directory, the actors and the seq lists — read in place,
/// each part checked against its own checksum before it is used.
///
/// Blocks are the history's: block *k* holds seqs `1024k + 1` through
/// `1024k + 1024`. A part holds the piece of each block within its seqs, so a
/// segment's first and last pieces may be partial; its piece `j` is the
/// history's block ``firstBlock`` + `j`.
///
/// Immutable and `Sendable`.
struct HistoryIndexPart: Sendable, Hashable {
    /// The `LogHeader.logID` of the log indexed.
    let logID: LabelID
    /// The first seq this part covers (1 for the base).
    let firstSeq: UInt64
    /// The last record this part covers (`nil` only for an empty base).
    let covered: LogPosition?
    /// The file's path (named in problems; empty for a part built in memory).
    let path: String
    /// The part's bytes, header included, and the byte offset of its header in its file (0 for the base).
    let bytes: HistoryIndexBytes
    let fileOffset: Int
    /// Where the sections start, and their counts.
    let layout: Layout
    /// Every actor (`nil`: records without one) and its seq list.
    let actorLists: [String?: ListRef]
    /// The seq list of the `reordered` events.
    let reordersList: ListRef

    /// Where the sections are in the part (docs/INDEX.md, "Body").
    struct Layout: Sendable, Hashable {
        var blockCount: Int
        var blocksStart: Int
        var offsetsStart: Int
        var fenceCount: Int
        var fencesStart: Int
        var labelCount: Int
        var labelsStart: Int
        var listsStart: Int
        var listsLength: Int
    }

    /// A seq list's place in the part and its checksum.
    struct ListRef: Sendable, Hashable {
        /// Offset from the start of the seq-list region.
        var offset: UInt64
        var length: UInt32
        var checksum: UInt32
    }

    static var blockSize: UInt64 { HistoryIndex.blockSize }

    /// The last seq covered (`firstSeq - 1` when none).
    var coveredSeq: UInt64 { covered?.seq ?? firstSeq - 1 }

    /// The number of records covered.
    var recordCount: UInt64 { coveredSeq + 1 - firstSeq }

    /// The history's block number of this part's first piece.
    var firstBlock: Int { Int((firstSeq - 1) / Self.blockSize) }

    /// The seqs of piece `j`.
    func seqs(ofPiece j: Int) -> ClosedRange<UInt64> {
        let start = UInt64(firstBlock + j) * Self.blockSize + 1
        return max(start, firstSeq)...min(start + Self.blockSize - 1, coveredSeq)
    }

    /// Piece `j` (the history's block `firstBlock + j`, within this part's seqs).
    ///
    /// - Precondition: `0 <= j < layout.blockCount`.
    func block(_ j: Int) -> HistoryIndex.Block {
        precondition(j >= 0 && j < layout.blockCount, "block \(j) of \(layout.blockCount)")
        let at = layout.blocksStart + j * Self.blockEntryLength
        return HistoryIndex.Block(
            offset: Int64(bitPattern: load(UInt64.self, at)), previousChecksum: load(UInt32.self, at + 8),
            minTime: Int64(bitPattern: load(UInt64.self, at + 12)), maxTime: Int64(bitPattern: load(UInt64.self, at + 20)))
    }

    /// The piece holding `seq`, which this part covers.
    func piece(of seq: UInt64) -> Int { Int((seq - 1) / Self.blockSize) - firstBlock }

    /// Whether this part covers `seq`.
    func covers(_ seq: UInt64) -> Bool { seq >= firstSeq && seq <= coveredSeq }

    /// The ids the directory names, ascending by their bytes.
    var labelIDs: [LabelID] {
        get throws(HistoryIndexFile.Problem) {
            var ids: [LabelID] = []
            ids.reserveCapacity(layout.labelCount)
            for chunk in 0..<layout.fenceCount {
                for k in try checkedChunk(chunk) { ids.append(labelEntry(k).id) }
            }
            return ids
        }
    }

    /// The ids the directory names whose first hex digits are `nibbles`
    /// (each 0–15), ascending: the chunks that can hold them, found among the
    /// fences, each checked.
    func labelIDs(startingWith nibbles: [UInt8]) throws(HistoryIndexFile.Problem) -> [LabelID] {
        guard layout.fenceCount > 0, nibbles.count <= 32 else { return [] }
        // The least and the greatest 16 bytes that start with the digits.
        var low = [UInt8](repeating: 0, count: 16)
        var high = [UInt8](repeating: 0xFF, count: 16)
        for (i, nibble) in nibbles.enumerated() {
            let shift: UInt8 = i.isMultiple(of: 2) ? 4 : 0
            low[i / 2] = low[i / 2] & ~(0x0F << shift) | nibble << shift
            high[i / 2] = high[i / 2] & ~(0x0F << shift) | nibble << shift
        }
        let base = bytes.raw.baseAddress!
        var ids: [LabelID] = []
        // From the chunk that can hold `low` on, while a chunk's first id is at or below `high`.
        var chunk = max(fencesAtOrBelow(low) - 1, 0)
        while chunk < layout.fenceCount, memcmp(base + layout.fencesStart + chunk * Self.fenceEntryLength, high, 16) <= 0 {
            for k in try checkedChunk(chunk) {
                let at = base + layout.labelsStart + k * Self.labelEntryLength
                if memcmp(at, low, 16) >= 0, memcmp(at, high, 16) <= 0 { ids.append(labelEntry(k).id) }
            }
            chunk += 1
        }
        return ids
    }

    /// The seqs (ascending) of this part's records whose event names `id`.
    func seqs(ofLabel id: LabelID) throws(HistoryIndexFile.Problem) -> [UInt64] {
        guard let k = try entryIndex(of: id) else { return [] }
        return try seqList(labelEntry(k).list, what: "the seq list of label \(id)")
    }

    /// The seqs (ascending) of this part's records by `actor`.
    func seqs(ofActor actor: String?) throws(HistoryIndexFile.Problem) -> [UInt64] {
        guard let list = actorLists[actor] else { return [] }
        return try seqList(list, what: "the seq list of actor \(actor.map { "\"\($0)\"" } ?? "(none)")")
    }

    /// The seqs (ascending) of this part's `reordered` events.
    var reorders: [UInt64] {
        get throws(HistoryIndexFile.Problem) { try seqList(reordersList, what: "the seq list of the reorders") }
    }

    /// Where to start reading so that the next record is at or before `seq`: the start of `seq`'s piece.
    ///
    /// - Precondition: `covers(seq)`.
    func start(for seq: UInt64) -> (seq: UInt64, offset: Int64, previousChecksum: UInt32) {
        let j = piece(of: seq)
        let block = block(j)
        return (seqs(ofPiece: j).lowerBound, block.offset, block.previousChecksum)
    }

    /// This part's seqs that can match every given filter, ascending
    /// (``HistoryIndex/candidates(labels:actors:since:until:)``); `nil` when no filter narrows.
    func candidates(labels: Set<LabelID>?, actors: Set<String?>?, since: EventTimestamp?, until: EventTimestamp?)
        throws(HistoryIndexFile.Problem) -> [UInt64]?
    {
        var result: [UInt64]?
        if let labels {
            var lists = [try reorders]
            for label in labels { lists.append(try seqs(ofLabel: label)) }
            result = HistoryIndex.union(lists)
        }
        if let actors {
            var lists: [[UInt64]] = []
            for actor in actors { lists.append(try seqs(ofActor: actor)) }
            let seqs = HistoryIndex.union(lists)
            result = result.map { HistoryIndex.intersection($0, seqs) } ?? seqs
        }
        if since != nil || until != nil {
            let low = since?.millisecondsSince1970 ?? .min
            let high = until?.millisecondsSince1970 ?? .max
            let overlaps = (0..<layout.blockCount).map { j in
                let block = block(j)
                return block.maxTime >= low && block.minTime <= high
            }
            if let current = result {
                result = current.filter { overlaps[piece(of: $0)] }
            } else {
                var seqs: [UInt64] = []
                for j in 0..<layout.blockCount where overlaps[j] { seqs.append(contentsOf: self.seqs(ofPiece: j)) }
                result = seqs
            }
        }
        return result
    }

    /// A little-endian value at byte `offset` of the part.
    @inline(__always)
    func load<T: FixedWidthInteger>(_: T.Type, _ offset: Int) -> T {
        T(littleEndian: bytes.raw.loadUnaligned(fromByteOffset: offset, as: T.self))
    }

    /// Label entry `k` of the sorted directory: the id and its seq list (read as is: check its chunk first).
    func labelEntry(_ k: Int) -> (id: LabelID, list: ListRef) {
        let at = layout.labelsStart + k * Self.labelEntryLength
        let id = LabelID(UUID(uuid: bytes.raw.loadUnaligned(fromByteOffset: at, as: uuid_t.self)))
        return (id, ListRef(offset: load(UInt64.self, at + 16), length: load(UInt32.self, at + 24), checksum: load(UInt32.self, at + 28)))
    }

    /// Whether both index the same records with the same bytes.
    static func == (a: HistoryIndexPart, b: HistoryIndexPart) -> Bool {
        a.logID == b.logID && a.firstSeq == b.firstSeq && a.covered == b.covered && a.bytes.sameBytes(as: b.bytes)
    }

    /// Hashes the log id, the seqs covered and the part's length.
    func hash(into hasher: inout Hasher) {
        hasher.combine(logID)
        hasher.combine(firstSeq)
        hasher.combine(covered)
        hasher.combine(bytes.raw.count)
    }
}

extension LabelID {
    /// The id's 16 bytes, in order (the index's directory sorts by them).
    var bytes: [UInt8] { withUnsafeBytes(of: uuid.uuid) { Array($0) } }

    /// A key that sorts ids as their 16 bytes do (the directory's order),
    /// with no array made per id: the two halves, read big-endian.
    var byteOrderKey: (UInt64, UInt64) {
        withUnsafeBytes(of: uuid.uuid) { raw in
            (
                UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self)),
                UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            )
        }
    }
}
