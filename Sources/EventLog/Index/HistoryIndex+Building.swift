/// Building a history index: records are added one at a time, in seq order,
/// into per-label and per-actor seq lists, then encoded into the file's bytes
/// (``HistoryIndex`` reads them back in place).
struct HistoryIndexBuilder {
    let logID: LabelID
    private(set) var covered: LogPosition?
    var blocks: [HistoryIndex.Block] = []
    /// Every record's frame offset, relative to its block's first frame (``HistoryIndex/farRecord``: 4 GiB or more).
    var recordOffsets: [UInt32] = []
    private(set) var labels: [LabelID: [UInt64]] = [:]
    private(set) var actors: [String?: [UInt64]] = [:]
    private(set) var reorders: [UInt64] = []

    /// An empty index of the log whose id is `logID`.
    init(logID: LabelID) { self.logID = logID }

    /// Everything `index` holds, to extend it (every part is checked as it is read).
    ///
    /// - Throws: ``HistoryIndexFile/Problem`` for a damaged part.
    /// - Complexity: O(index size).
    init(_ index: HistoryIndex) throws(HistoryIndexFile.Problem) {
        logID = index.logID
        covered = index.covered
        blocks = (0..<index.blockCount).map(index.block)
        recordOffsets.reserveCapacity(Int(index.coveredSeq))
        for k in 0..<index.blockCount {
            let first = UInt64(k) * HistoryIndex.blockSize + 1
            let block = blocks[k].offset
            for seq in first...min(first + HistoryIndex.blockSize - 1, index.coveredSeq) {
                let offset = try index.recordOffsets(of: seq)?.offset
                recordOffsets.append(offset.map { UInt32($0 - block) } ?? HistoryIndex.farRecord)
            }
        }
        for chunk in 0..<index.layout.fenceCount {
            for k in try index.checkedChunk(chunk) {
                let entry = index.labelEntry(k)
                labels[entry.id] = try index.seqList(entry.list, what: "the seq list of label \(entry.id)")
            }
        }
        for actor in index.actors { actors[actor] = try index.seqs(ofActor: actor) }
        reorders = try index.reorders
    }

    var coveredSeq: UInt64 { covered?.seq ?? 0 }

    /// Adds the record `view`, the record after ``covered``, whose frame is at `position`.
    ///
    /// - Precondition: `view.seq == coveredSeq + 1` and `position.seq == view.seq`.
    mutating func add(_ view: EventRecordView, at position: LogPosition) {
        precondition(view.seq == coveredSeq + 1 && position.seq == view.seq, "a history index grows one record at a time")
        let seq = view.seq
        let time = view.timestamp.millisecondsSince1970
        if (seq - 1) % HistoryIndex.blockSize == 0 {
            blocks.append(.init(offset: position.offset, previousChecksum: covered?.checksum ?? 0, minTime: time, maxTime: time))
        } else {
            blocks[blocks.count - 1].minTime = min(blocks[blocks.count - 1].minTime, time)
            blocks[blocks.count - 1].maxTime = max(blocks[blocks.count - 1].maxTime, time)
        }
        let relative = position.offset - blocks[blocks.count - 1].offset
        recordOffsets.append(relative < Int64(HistoryIndex.farRecord) ? UInt32(relative) : HistoryIndex.farRecord)
        if let id = view.labelID { labels[id, default: []].append(seq) }
        if view.kind == .reordered { reorders.append(seq) }
        actors[view.actor?.string, default: []].append(seq)
        covered = position
    }

    /// The index, as it will be read back from its file.
    func build() -> HistoryIndex { Self.index(from: encoded()) }

    /// The index whose file bytes ``encoded()`` made (checked whole).
    static func index(from bytes: [UInt8], path: String = "") -> HistoryIndex {
        guard let index = try? HistoryIndex.decode(HistoryIndexBytes(copying: bytes), path: path, checkingWholeBody: true) else {
            preconditionFailure("a history index decodes as it was encoded")
        }
        return index
    }
}
