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
/// offset, frame length and frame checksum). It is kept next to the log in
/// two files (format in docs/INDEX.md): the *base*, `LOG.index`, from seq 1,
/// rewritten whole now and then; and `LOG.index-delta`, the *segments*
/// appended since, each covering the records after the part before it, so an
/// update costs the records it adds, not the history's length. It is used
/// only when it proves it belongs to the log: the same log id, and a whole
/// frame of each part's last record, with its checksum, at its position (in
/// a format 2 log the checksum chains back to seq 1, so it identifies the
/// whole history a part covers). Records after `covered` — appended since the
/// index was written — are found by scanning them. See ``HistoryIndexFile``.
///
/// The files are mapped and read in place, and checked lazily: opening checks
/// each part's header, blocks, label fences and actors (all small); a chunk
/// of a label directory, a seq list or a block's record offsets is checked
/// against its own checksum each time it is read. The accessors that read
/// such a part throw ``HistoryIndexFile/Problem`` when it is damaged, so
/// nothing unchecked is ever used. Immutable and `Sendable`.
public struct HistoryIndex: Sendable, Hashable {
    /// Records per block (the unit of time-range and seq lookups): block *k*
    /// holds seqs `k · blockSize + 1` through `(k + 1) · blockSize`.
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

    /// The base, then the segments in seq order (each starts after the one before).
    let parts: [HistoryIndexPart]

    /// Why the delta file's segments from some point on are not used, when they are not (their records are scanned).
    public let deltaProblem: HistoryIndexFile.Problem?

    init(parts: [HistoryIndexPart], deltaProblem: HistoryIndexFile.Problem? = nil) {
        precondition(!parts.isEmpty, "an index has a base")
        self.parts = parts
        self.deltaProblem = deltaProblem
    }

    /// The `LogHeader.logID` of the log indexed.
    public var logID: LabelID { parts[0].logID }

    /// The last record the index covers (`nil` while it covers none).
    public var covered: LogPosition? { parts[parts.count - 1].covered }

    /// The last seq covered (0 when none).
    public var coveredSeq: UInt64 { covered?.seq ?? 0 }

    /// The first seq the index covers: 1, or a based log's first seq.
    public var firstSeq: UInt64 { parts[0].firstSeq }

    /// The number of segments used after the base (0: the base covers everything).
    public var segmentCount: Int { parts.count - 1 }

    /// The number of records the base covers (the segments cover the rest, up to ``coveredSeq``).
    public var baseCoveredSeq: UInt64 { parts[0].coveredSeq }

    /// The part that covers `seq`, if any.
    func part(covering seq: UInt64) -> HistoryIndexPart? {
        guard seq >= 1, seq <= coveredSeq else { return nil }
        return parts.last { $0.firstSeq <= seq }
    }

    /// The number of blocks (one per ``blockSize`` records covered; the last may be partial).
    public var blockCount: Int { Int((coveredSeq + Self.blockSize - 1) / Self.blockSize) }

    /// Block `k` (records `k · blockSize + 1` on): where its first record is,
    /// and the range of the timestamps of its records covered. The blocks are
    /// checked when the index is opened.
    ///
    /// - Precondition: `0 <= k < blockCount`.
    public func block(_ k: Int) -> Block {
        precondition(k >= 0 && k < blockCount, "block \(k) of \(blockCount)")
        var result: Block?
        for part in parts where k >= part.firstBlock && k < part.firstBlock + part.layout.blockCount {
            let piece = part.block(k - part.firstBlock)
            if var merged = result {
                merged.minTime = min(merged.minTime, piece.minTime)
                merged.maxTime = max(merged.maxTime, piece.maxTime)
                result = merged
            } else {
                result = piece
            }
        }
        return result!
    }

    /// The number of distinct labels the covered records name.
    ///
    /// - Throws: ``HistoryIndexFile/Problem`` when a segment's label directory is damaged.
    /// - Complexity: O(1) without segments; O(labels) with them (every directory is read).
    public var labelCount: Int {
        get throws(HistoryIndexFile.Problem) {
            if parts.count == 1 { return parts[0].layout.labelCount }
            return try labelIDs.count
        }
    }

    /// The ids of every label the covered records name, ascending by their bytes.
    ///
    /// - Throws: ``HistoryIndexFile/Problem`` when a chunk of a label directory is damaged.
    /// - Complexity: O(labels): every chunk of every directory is checked.
    public var labelIDs: [LabelID] {
        get throws(HistoryIndexFile.Problem) {
            if parts.count == 1 { return try parts[0].labelIDs }
            var ids = Set<LabelID>()
            for part in parts { ids.formUnion(try part.labelIDs) }
            return Self.ascendingByBytes(ids)
        }
    }

    /// The ids of the labels the covered records name whose hex digits start
    /// with `nibbles` (each 0–15, at most 32), ascending by their bytes: what
    /// an id prefix can mean, without reading every id.
    ///
    /// - Throws: ``HistoryIndexFile/Problem`` when a chunk of a label directory read is damaged.
    /// - Complexity: O(p · log labels + m) for m matches in the p parts, plus
    ///   checking the chunks of 256 directory entries that can hold them.
    package func labelIDs(startingWith nibbles: [UInt8]) throws(HistoryIndexFile.Problem) -> [LabelID] {
        if parts.count == 1 { return try parts[0].labelIDs(startingWith: nibbles) }
        var ids = Set<LabelID>()
        for part in parts { ids.formUnion(try part.labelIDs(startingWith: nibbles)) }
        return Self.ascendingByBytes(ids)
    }

    /// `ids` in the order of their bytes (the directories' order).
    private static func ascendingByBytes(_ ids: Set<LabelID>) -> [LabelID] {
        ids.map { ($0.byteOrderKey, $0) }.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// The seqs (ascending) of the covered records whose event names `id` (``LabelEventOf/labelID``).
    ///
    /// - Throws: ``HistoryIndexFile/Problem`` when the part of a directory or a seq list read is damaged.
    /// - Complexity: O(p · log labels + k) for its k seqs in the p parts, plus checking one chunk of 256 directory entries per part.
    public func seqs(ofLabel id: LabelID) throws(HistoryIndexFile.Problem) -> [UInt64] {
        var seqs: [UInt64] = []
        for part in parts { seqs += try part.seqs(ofLabel: id) }
        return seqs
    }

    /// Every actor of the covered records (`nil`: records without an actor).
    public var actors: [String?] {
        var seen = Set<String?>()
        return parts.flatMap { $0.actorLists.keys }.filter { seen.insert($0).inserted }
    }

    /// The seqs (ascending) of the covered records by `actor` (`nil`: those without an actor).
    ///
    /// - Throws: ``HistoryIndexFile/Problem`` when the actor's seq list is damaged.
    public func seqs(ofActor actor: String?) throws(HistoryIndexFile.Problem) -> [UInt64] {
        var seqs: [UInt64] = []
        for part in parts { seqs += try part.seqs(ofActor: actor) }
        return seqs
    }

    /// The seqs (ascending) of the `reordered` events, which name every label of the list.
    ///
    /// - Throws: ``HistoryIndexFile/Problem`` when their seq list is damaged.
    public var reorders: [UInt64] {
        get throws(HistoryIndexFile.Problem) {
            var seqs: [UInt64] = []
            for part in parts { seqs += try part.reorders }
            return seqs
        }
    }

    /// Where to start reading so that the next record is at or before `seq`:
    /// the start of `seq`'s block, or, when a segment starts inside that
    /// block, of the segment's piece of it (`nil` when `seq` is not covered).
    public func start(for seq: UInt64) -> (seq: UInt64, offset: Int64, previousChecksum: UInt32)? {
        part(covering: seq)?.start(for: seq)
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
        // The parts' seqs are disjoint and ascending: their candidates follow one another.
        for part in parts {
            guard let seqs = try part.candidates(labels: labels, actors: actors, since: since, until: until) else { return nil }
            result = (result ?? []) + seqs
        }
        return result
    }

    /// Where record `seq`'s frame starts, and the frame before it, from the
    /// record offsets of the part that covers it (``HistoryIndexPart/recordOffsets(of:)``).
    ///
    /// - Precondition: `1 <= seq <= coveredSeq`.
    func recordOffsets(of seq: UInt64) throws(HistoryIndexFile.Problem) -> (offset: Int64, previous: Int64?)? {
        try part(covering: seq)!.recordOffsets(of: seq)
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

    /// Whether both index the same log up to the same record with the same parts and bytes.
    public static func == (a: HistoryIndex, b: HistoryIndex) -> Bool { a.parts == b.parts }

    /// Hashes the parts (log id, seqs covered, lengths).
    public func hash(into hasher: inout Hasher) { hasher.combine(parts) }
}
