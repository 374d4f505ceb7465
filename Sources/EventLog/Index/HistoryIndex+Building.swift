/// Building a history index part: records are added one at a time, in seq
/// order, into per-label and per-actor seq lists, then encoded into the
/// part's bytes (``HistoryIndexPart`` reads them back in place). A base
/// starts at seq 1; a segment starts after the record a previous part covers.
struct HistoryIndexBuilder {
    let logID: LabelID
    /// The first seq the part covers.
    let firstSeq: UInt64
    /// Whether the part is a segment of the delta file (else a base).
    let isSegment: Bool
    /// The last record added (for a segment with none added yet: the previous part's last).
    private(set) var covered: LogPosition?
    /// The chained checksum before the first record (a based log's), for the first piece while nothing is added.
    private var startChecksum: UInt32 = 0
    /// The pieces of blocks covered: piece `j` is the history's block `firstBlock + j`.
    var blocks: [HistoryIndex.Block] = []
    /// Every record's frame offset, relative to its piece's first frame (``HistoryIndexPart/farRecord``: 4 GiB or more).
    var recordOffsets: [UInt32] = []
    private(set) var labels: [LabelID: [UInt64]] = [:]
    private(set) var actors: [String?: [UInt64]] = [:]
    private(set) var reorders: [UInt64] = []

    /// An empty base of the log whose id is `logID`, from its first seq
    /// (above 1 in a based log, whose first record continues `previousChecksum`).
    init(logID: LabelID, firstSeq: UInt64 = 1, previousChecksum: UInt32 = 0) {
        self.logID = logID
        self.firstSeq = firstSeq
        isSegment = false
        startChecksum = previousChecksum
    }

    /// An empty segment of the log whose id is `logID`, to cover the records after `previous`.
    init(logID: LabelID, after previous: LogPosition) {
        self.logID = logID
        firstSeq = previous.seq + 1
        isSegment = true
        covered = previous
    }

    /// A base holding everything `index` holds (its base and segments), to
    /// extend it or to merge it (every part is checked as it is read).
    ///
    /// - Throws: ``HistoryIndexFile/Problem`` for a damaged part.
    /// - Complexity: O(index size).
    init(_ index: HistoryIndex) throws(HistoryIndexFile.Problem) {
        self.init(logID: index.logID, firstSeq: index.parts[0].firstSeq)
        recordOffsets.reserveCapacity(Int(index.coveredSeq + 1 - firstSeq))
        for part in index.parts {
            for j in 0..<part.layout.blockCount {
                let piece = part.block(j)
                var relative = try part.pieceOffsets(j)
                if j == 0, part.firstBlock == blocks.count - 1 {
                    // The piece continues the last block: its offsets are made relative to the block's start.
                    let shift = piece.offset - blocks[blocks.count - 1].offset
                    relative = relative.map {
                        $0 == HistoryIndexPart.farRecord || Int64($0) + shift >= Int64(HistoryIndexPart.farRecord)
                            ? HistoryIndexPart.farRecord : UInt32(Int64($0) + shift)
                    }
                    blocks[blocks.count - 1].minTime = min(blocks[blocks.count - 1].minTime, piece.minTime)
                    blocks[blocks.count - 1].maxTime = max(blocks[blocks.count - 1].maxTime, piece.maxTime)
                } else {
                    blocks.append(piece)
                }
                recordOffsets += relative
            }
            for chunk in 0..<part.layout.fenceCount {
                for k in try part.checkedChunk(chunk) {
                    let entry = part.labelEntry(k)
                    labels[entry.id, default: []] += try part.seqList(entry.list, what: "the seq list of label \(entry.id)")
                }
            }
            for (actor, list) in part.actorLists {
                actors[actor, default: []] += try part.seqList(list, what: "the seq list of an actor")
            }
            reorders += try part.reorders
            covered = part.covered
        }
    }

    var coveredSeq: UInt64 { covered?.seq ?? firstSeq - 1 }

    /// The number of records added.
    var recordCount: UInt64 { coveredSeq + 1 - firstSeq }

    /// Adds the record `view`, the record after ``covered``, whose frame is at `position`.
    ///
    /// - Precondition: `view.seq == coveredSeq + 1` and `position.seq == view.seq`.
    mutating func add(_ view: EventRecordView, at position: LogPosition) {
        precondition(view.seq == coveredSeq + 1 && position.seq == view.seq, "a history index grows one record at a time")
        let seq = view.seq
        let time = view.timestamp.millisecondsSince1970
        if (seq - 1) % HistoryIndex.blockSize == 0 || blocks.isEmpty {
            blocks.append(
                .init(offset: position.offset, previousChecksum: covered?.checksum ?? startChecksum, minTime: time, maxTime: time))
        } else {
            blocks[blocks.count - 1].minTime = min(blocks[blocks.count - 1].minTime, time)
            blocks[blocks.count - 1].maxTime = max(blocks[blocks.count - 1].maxTime, time)
        }
        let relative = position.offset - blocks[blocks.count - 1].offset
        recordOffsets.append(relative < Int64(HistoryIndexPart.farRecord) ? UInt32(relative) : HistoryIndexPart.farRecord)
        if let id = view.labelID { labels[id, default: []].append(seq) }
        if view.kind == .reordered { reorders.append(seq) }
        actors[view.actor?.string, default: []].append(seq)
        covered = position
    }

    /// The index this base builds, as it will be read back from its file.
    ///
    /// - Precondition: `!isSegment`.
    func build() -> HistoryIndex {
        precondition(!isSegment, "a segment is not an index of its own")
        return HistoryIndex(parts: [Self.part(from: encoded(), segment: false)])
    }

    /// The part whose bytes ``encoded()`` made (checked whole), read from byte `fileOffset` of the file at `path`.
    static func part(from bytes: [UInt8], segment: Bool, path: String = "", fileOffset: Int = 0) -> HistoryIndexPart {
        part(from: HistoryIndexBytes(copying: bytes), segment: segment, path: path, fileOffset: fileOffset)
    }

    /// The part in `bytes`, which ``encoded()`` made (checked whole).
    static func part(from bytes: HistoryIndexBytes, segment: Bool, path: String, fileOffset: Int) -> HistoryIndexPart {
        guard
            let part = try? HistoryIndexPart.decode(
                bytes, path: path, fileOffset: fileOffset, segment: segment, checkingWholeBody: true)
        else {
            preconditionFailure("a history index part decodes as it was encoded")
        }
        return part
    }
}
