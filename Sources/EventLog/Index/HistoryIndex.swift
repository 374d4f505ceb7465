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
/// A value type; not shared between threads while being extended.
public struct HistoryIndex: Sendable, Hashable {
    /// Records per block (the unit of time-range and seq lookups).
    public static let blockSize: UInt64 = 1024

    /// Where one block of records starts, and the timestamps in it.
    public struct Block: Sendable, Hashable {
        /// The byte offset of the block's first record.
        public var offset: Int64
        /// The frame checksum of the record before the block's first (0 before seq 1; format 1 logs: 0).
        public var previousChecksum: UInt32
        /// The smallest and largest timestamp in the block, in ms since 1970 (timestamps need not increase with seq).
        public var minTime: Int64
        public var maxTime: Int64
    }

    /// The `LogHeader.logID` of the log indexed.
    public let logID: LabelID
    /// The last record the index covers (`nil` while it covers none).
    public internal(set) var covered: LogPosition?
    /// One entry per ``blockSize`` records from seq 1; the last may be partial.
    public internal(set) var blocks: [Block] = []
    /// For every label, the seqs (ascending) of the records whose event names it (``LabelEvent/labelID``).
    public internal(set) var labels: [LabelID: [UInt64]] = [:]
    /// For every actor, the seqs (ascending) of its records; the `nil` key holds the records without an actor.
    public internal(set) var actors: [String?: [UInt64]] = [:]
    /// The seqs (ascending) of the `reordered` events, which name every label of the list.
    public internal(set) var reorders: [UInt64] = []

    /// An empty index of the log whose id is `logID`.
    public init(logID: LabelID) {
        self.logID = logID
    }

    /// The last seq covered (0 when none).
    public var coveredSeq: UInt64 { covered?.seq ?? 0 }

    /// Adds the record `view`, the record after ``covered``, whose frame is at `position`.
    ///
    /// - Precondition: `view.seq == coveredSeq + 1` and `position.seq == view.seq`.
    mutating func add(_ view: EventRecordView, at position: LogPosition) {
        precondition(view.seq == coveredSeq + 1 && position.seq == view.seq, "a history index grows one record at a time")
        let seq = view.seq
        let time = view.timestamp.millisecondsSince1970
        if (seq - 1) % Self.blockSize == 0 {
            blocks.append(Block(offset: position.offset, previousChecksum: covered?.checksum ?? 0, minTime: time, maxTime: time))
        } else {
            blocks[blocks.count - 1].minTime = min(blocks[blocks.count - 1].minTime, time)
            blocks[blocks.count - 1].maxTime = max(blocks[blocks.count - 1].maxTime, time)
        }
        if let id = view.labelID { labels[id, default: []].append(seq) }
        if view.kind == .reordered { reorders.append(seq) }
        actors[view.actor?.string, default: []].append(seq)
        covered = position
    }

    /// Where to start reading so that the next record is at or before `seq`:
    /// the start of `seq`'s block (`nil` when `seq` is not covered).
    public func start(for seq: UInt64) -> (seq: UInt64, offset: Int64, previousChecksum: UInt32)? {
        guard seq >= 1, seq <= coveredSeq else { return nil }
        let k = Int((seq - 1) / Self.blockSize)
        return (UInt64(k) * Self.blockSize + 1, blocks[k].offset, blocks[k].previousChecksum)
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
            var seqs = labels.flatMap { self.labels[$0] ?? [] }
            if !reorders.isEmpty { seqs += reorders }
            narrow(Array(Set(seqs)).sorted())
        }
        if let actors {
            narrow(Array(Set(actors.flatMap { self.actors[$0] ?? [] })).sorted())
        }
        if since != nil || until != nil {
            let low = since?.millisecondsSince1970 ?? .min
            let high = until?.millisecondsSince1970 ?? .max
            var seqs: [UInt64] = []
            for (k, block) in blocks.enumerated() where block.maxTime >= low && block.minTime <= high {
                let first = UInt64(k) * Self.blockSize + 1
                seqs.append(contentsOf: first...min(first + Self.blockSize - 1, coveredSeq))
            }
            narrow(seqs)
        }
        return result
    }

    /// The ids of every label the covered records name, ascending (for resolving id prefixes).
    public var labelIDs: [LabelID] { labels.keys.sorted() }
}
