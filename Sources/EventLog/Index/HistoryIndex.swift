import Foundation

/// An index of a log's history: for every label and every actor, the seqs of
/// the records about it; for every block of ``blockSize`` records, where the
/// block starts in the file and the range of its timestamps; for every record,
/// where its frame is.
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
/// The file is mapped and read in place, and checked lazily: opening checks
/// the header, the blocks, the label fences and the actors (all small); a
/// chunk of the label directory, a seq list or a block's record offsets is
/// checked against its own checksum each time it is read. The accessors that
/// read such a part throw ``HistoryIndexFile/Problem`` when it is damaged, so
/// nothing unchecked is ever used. Immutable and `Sendable`.
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
    /// The index file's path (named in problems; empty for an index built in memory).
    let path: String
    /// The file's bytes, header included.
    let bytes: HistoryIndexBytes
    /// Where the sections start, and their counts.
    let layout: Layout
    /// Every actor (`nil`: records without one) and its seq list.
    let actorLists: [String?: ListRef]
    /// The seq list of the `reordered` events.
    let reordersList: ListRef

    /// Where the sections are in the file (docs/INDEX.md, "Body").
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

    /// A seq list's place in the file and its checksum.
    struct ListRef: Sendable, Hashable {
        /// Offset from the start of the seq-list region.
        var offset: UInt64
        var length: UInt32
        var checksum: UInt32
    }

    /// The last seq covered (0 when none).
    public var coveredSeq: UInt64 { covered?.seq ?? 0 }

    /// The number of blocks (one per ``blockSize`` records covered; the last may be partial).
    public var blockCount: Int { layout.blockCount }

    /// Block `k` (records `k · blockSize + 1` on); the blocks are checked when the index is opened.
    ///
    /// - Precondition: `0 <= k < blockCount`.
    public func block(_ k: Int) -> Block {
        precondition(k >= 0 && k < layout.blockCount, "block \(k) of \(layout.blockCount)")
        let at = layout.blocksStart + k * Self.blockEntryLength
        return Block(
            offset: Int64(bitPattern: load(UInt64.self, at)), previousChecksum: load(UInt32.self, at + 8),
            minTime: Int64(bitPattern: load(UInt64.self, at + 12)), maxTime: Int64(bitPattern: load(UInt64.self, at + 20)))
    }

    /// The number of labels the covered records name.
    public var labelCount: Int { layout.labelCount }

    /// The ids of every label the covered records name, ascending by their bytes.
    ///
    /// - Throws: ``HistoryIndexFile/Problem`` when a chunk of the label directory is damaged.
    /// - Complexity: O(labels): every chunk of the directory is checked.
    public var labelIDs: [LabelID] {
        get throws(HistoryIndexFile.Problem) {
            var ids: [LabelID] = []
            ids.reserveCapacity(layout.labelCount)
            for chunk in 0..<layout.fenceCount {
                for k in try checkedChunk(chunk) { ids.append(labelEntry(k).id) }
            }
            return ids
        }
    }

    /// The seqs (ascending) of the covered records whose event names `id` (``LabelEventOf/labelID``).
    ///
    /// - Throws: ``HistoryIndexFile/Problem`` when the part of the directory or the seq list read is damaged.
    /// - Complexity: O(log labels + k) for its k seqs, plus checking one chunk of 256 directory entries.
    public func seqs(ofLabel id: LabelID) throws(HistoryIndexFile.Problem) -> [UInt64] {
        guard let k = try entryIndex(of: id) else { return [] }
        return try seqList(labelEntry(k).list, what: "the seq list of label \(id)")
    }

    /// Every actor of the covered records (`nil`: records without an actor).
    public var actors: [String?] { Array(actorLists.keys) }

    /// The seqs (ascending) of the covered records by `actor` (`nil`: those without an actor).
    ///
    /// - Throws: ``HistoryIndexFile/Problem`` when the actor's seq list is damaged.
    public func seqs(ofActor actor: String?) throws(HistoryIndexFile.Problem) -> [UInt64] {
        guard let list = actorLists[actor] else { return [] }
        return try seqList(list, what: "the seq list of actor \(actor.map { "\"\($0)\"" } ?? "(none)")")
    }

    /// The seqs (ascending) of the `reordered` events, which name every label of the list.
    ///
    /// - Throws: ``HistoryIndexFile/Problem`` when their seq list is damaged.
    public var reorders: [UInt64] {
        get throws(HistoryIndexFile.Problem) { try seqList(reordersList, what: "the seq list of the reorders") }
    }

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
    /// - Throws: ``HistoryIndexFile/Problem`` when a part of the index it reads is damaged.
    /// - Complexity: O(m · f) for the m seqs of the f labels and actors named
    ///   (sorted lists merged), plus O(b) in the blocks for a time range.
    public func candidates(labels: Set<LabelID>?, actors: Set<String?>?, since: EventTimestamp?, until: EventTimestamp?)
        throws(HistoryIndexFile.Problem) -> [UInt64]?
    {
        var result: [UInt64]?
        if let labels {
            var lists = [try reorders]
            for label in labels { lists.append(try seqs(ofLabel: label)) }
            result = Self.union(lists)
        }
        if let actors {
            var lists: [[UInt64]] = []
            for actor in actors { lists.append(try seqs(ofActor: actor)) }
            let seqs = Self.union(lists)
            result = result.map { Self.intersection($0, seqs) } ?? seqs
        }
        if since != nil || until != nil {
            let low = since?.millisecondsSince1970 ?? .min
            let high = until?.millisecondsSince1970 ?? .max
            let overlaps = (0..<layout.blockCount).map { k in
                let block = block(k)
                return block.maxTime >= low && block.minTime <= high
            }
            if let current = result {
                result = current.filter { overlaps[Int(($0 - 1) / Self.blockSize)] }
            } else {
                var seqs: [UInt64] = []
                for k in 0..<layout.blockCount where overlaps[k] {
                    let first = UInt64(k) * Self.blockSize + 1
                    seqs.append(contentsOf: first...min(first + Self.blockSize - 1, coveredSeq))
                }
                result = seqs
            }
        }
        return result
    }

    /// The seqs in any of `lists` (each ascending), ascending, each once.
    static func union(_ lists: [[UInt64]]) -> [UInt64] {
        lists.reduce(into: []) { merged, list in
            var out: [UInt64] = []
            out.reserveCapacity(merged.count + list.count)
            var i = 0
            var j = 0
            while i < merged.count || j < list.count {
                let next = j == list.count || (i < merged.count && merged[i] <= list[j]) ? merged[i] : list[j]
                if i < merged.count && merged[i] == next { i += 1 }
                if j < list.count && list[j] == next { j += 1 }
                out.append(next)
            }
            merged = out
        }
    }

    /// The seqs in both `a` and `b` (each ascending), ascending.
    static func intersection(_ a: [UInt64], _ b: [UInt64]) -> [UInt64] {
        var out: [UInt64] = []
        var i = 0
        var j = 0
        while i < a.count && j < b.count {
            if a[i] == b[j] {
                out.append(a[i])
                i += 1
                j += 1
            } else if a[i] < b[j] {
                i += 1
            } else {
                j += 1
            }
        }
        return out
    }

    /// A little-endian value at byte `offset` of the file.
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

    /// Whether both index the same log up to the same record with the same bytes.
    public static func == (a: HistoryIndex, b: HistoryIndex) -> Bool {
        a.logID == b.logID && a.covered == b.covered && a.bytes.sameBytes(as: b.bytes)
    }

    /// Hashes the log id, the covered record and the file's length.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(logID)
        hasher.combine(covered)
        hasher.combine(bytes.raw.count)
    }
}

extension LabelID {
    /// The id's 16 bytes, in order (the index's directory sorts by them).
    var bytes: [UInt8] { withUnsafeBytes(of: uuid.uuid) { Array($0) } }
}
