/// Building a history index: records are added one at a time, in seq order,
/// into per-label and per-actor seq lists, then encoded into the file's bytes
/// (``HistoryIndex`` reads them back in place).
struct HistoryIndexBuilder {
    let logID: LabelID
    private(set) var covered: LogPosition?
    var blocks: [HistoryIndex.Block] = []
    private(set) var labels: [LabelID: [UInt64]] = [:]
    private(set) var actors: [String?: [UInt64]] = [:]
    private(set) var reorders: [UInt64] = []

    /// An empty index of the log whose id is `logID`.
    init(logID: LabelID) { self.logID = logID }

    /// Everything `index` holds, to extend it.
    ///
    /// - Complexity: O(index size).
    init(_ index: HistoryIndex) {
        logID = index.logID
        covered = index.covered
        blocks = (0..<index.blockCount).map(index.block)
        for k in 0..<index.labelCount {
            let entry = index.labelEntry(k)
            labels[entry.id] = index.seqList(at: entry.list)
        }
        for actor in index.actors { actors[actor] = index.seqs(ofActor: actor) }
        reorders = index.reorders
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
        if let id = view.labelID { labels[id, default: []].append(seq) }
        if view.kind == .reordered { reorders.append(seq) }
        actors[view.actor?.string, default: []].append(seq)
        covered = position
    }

    /// The index, as it will be read back from its file.
    func build() -> HistoryIndex { Self.index(from: encoded()) }

    /// The index whose file bytes ``encoded()`` made.
    static func index(from bytes: [UInt8]) -> HistoryIndex {
        guard let index = try? bytes.withUnsafeBytes({ raw in try HistoryIndex.decode(raw, path: "") }) else {
            preconditionFailure("a history index decodes as it was encoded")
        }
        return index
    }

    /// The file's bytes (docs/INDEX.md): the header, then the body.
    func encoded() -> [UInt8] {
        // The seq lists first, in a region of their own; the sections point into it.
        var lists = ByteWriter(capacity: 1 << 16)
        func list(_ seqs: [UInt64]) -> Int {
            let at = lists.bytes.count
            lists.varint(UInt64(seqs.count))
            var last: UInt64 = 0
            for seq in seqs {
                lists.varint(seq - last)
                last = seq
            }
            return at
        }
        let sortedLabels = labels.keys.map { ($0.bytes, $0) }.sorted { $0.0.lexicographicallyPrecedes($1.0) }
        let labelLists = sortedLabels.map { list(labels[$0.1]!) }
        // No actor first, then by name: the same index always has the same bytes.
        let actorKeys = actors.keys.sorted { a, b in
            switch (a, b) {
            case (nil, _): b != nil
            case (_, nil): false
            case (let a?, let b?): a < b
            }
        }
        let actorLists = actorKeys.map { list(actors[$0]!) }
        let reordersList = list(reorders)

        var sections = ByteWriter(
            capacity: 64 + blocks.count * HistoryIndex.blockEntryLength + labels.count * HistoryIndex.labelEntryLength)
        sections.u64(UInt64(blocks.count))
        for block in blocks {
            sections.u64(UInt64(bitPattern: block.offset))
            sections.u32(block.previousChecksum)
            sections.u64(UInt64(bitPattern: block.minTime))
            sections.u64(UInt64(bitPattern: block.maxTime))
        }
        sections.u64(UInt64(labels.count))
        for ((_, id), at) in zip(sortedLabels, labelLists) {
            sections.id(id)
            sections.u64(UInt64(at))
        }
        sections.varint(UInt64(actorKeys.count))
        for (actor, at) in zip(actorKeys, actorLists) {
            if let actor {
                sections.u8(1)
                sections.string(actor)
            } else {
                sections.u8(0)
            }
            sections.u64(UInt64(at))
        }
        sections.u64(UInt64(reordersList))
        sections.u64(UInt64(lists.bytes.count))
        // List offsets are relative to the lists region, which follows the sections.
        let body = sections.bytes + lists.bytes

        var out = ByteWriter(capacity: HistoryIndex.headerLength + body.count)
        out.bytes.append(contentsOf: HistoryIndex.magic)
        out.u16(HistoryIndex.formatVersion)
        out.u16(covered == nil ? 0 : HistoryIndex.coversRecords)
        out.u32(UInt32(HistoryIndex.headerLength))
        out.id(logID)
        out.u64(covered?.seq ?? 0)
        out.u64(UInt64(covered?.offset ?? 0))
        out.u32(UInt32(covered?.length ?? 0))
        out.u32(covered?.checksum ?? 0)
        out.u64(UInt64(body.count))
        out.u32(body.withUnsafeBytes { CRC32C.checksum($0) })
        out.u32(0)
        out.bytes.append(contentsOf: body)
        return out.bytes
    }
}
