import EventLog

/// The removal blocks of `LOG.checkpoints` (docs/SNAPSHOTS.md, "Layout"):
/// every label removal, once, in seq order. A checkpoint's image leaves the
/// removed slots out; it takes them from the blocks before it, so the file
/// grows with the removals once instead of once per checkpoint.
extension CheckpointFile {
    /// The removals of one removal block, gathered while the records are
    /// folded (in seq order): per `removed` record, the slot number, the
    /// label's id, the seq, and the state and title that record stated.
    struct PendingRemovals {
        var slots: [UInt32] = []
        var ids: [LabelID] = []
        var seqs: [UInt64] = []
        var enabled: [Bool] = []
        var titles: [String] = []

        var count: Int { slots.count }

        mutating func append(slot: UInt32, id: LabelID, seq: UInt64, title: String, isEnabled: Bool) {
            slots.append(slot)
            ids.append(id)
            seqs.append(seq)
            enabled.append(isEnabled)
            titles.append(title)
        }

        /// The block's bytes, as columns: slot numbers (`u32`), ids (16 bytes
        /// each), seqs (`u64`), states (`u8`: `1` enabled, `0` disabled), title
        /// lengths (varints), then the titles' bytes back to back, compressed
        /// (``ByteWriter/compressedTitles(_:)``) — fixed-width columns first,
        /// so a reader that needs no titles loads them without parsing and
        /// stops before the titles.
        ///
        /// The entries are ordered by slot number, and by seq for one slot
        /// (removed, added again and removed again): a reader notes them
        /// a range of slots at a time (``TombstoneTable/note(_:passSlots:)``).
        func encoded() -> [UInt8] {
            let order = slots.indices.sorted { (slots[$0], seqs[$0]) < (slots[$1], seqs[$1]) }
            var w = ByteWriter(capacity: count * 52)
            for k in order { w.u32(slots[k]) }
            for k in order { w.id(ids[k]) }
            for k in order { w.u64(seqs[k]) }
            for k in order { w.u8(enabled[k] ? 1 : 0) }
            for k in order { w.varint(UInt64(titles[k].utf8.count)) }
            var all: [UInt8] = []
            for k in order { all.append(contentsOf: titles[k].utf8) }
            w.compressedTitles(all)
            return w.bytes
        }
    }
}

/// The removed labels one checkpoint takes from the removal blocks before
/// it: the tombstones its image leaves out and, when asked, the title and
/// state each removed label had when it was last removed (which `diff` and
/// `trace` print and the list does not keep).
struct RemovedLabels {
    /// Whether the titles and states are kept (else they are skipped, not decoded).
    let keepingTitles: Bool
    /// The only labels whose titles are wanted (`nil`: every removed label's).
    let wanted: Set<LabelID>?
    /// The titles of the blocks read (decompressed), while titles are kept:
    /// they are made `String`s only for the labels ``labels(of:)`` returns.
    private var blockTitles: [[UInt8]] = []
    /// By slot number: where its last removal's title is (block, offset,
    /// length) and its state then; `block == UInt32.max` where none is kept.
    private var titleAt: [(block: UInt32, offset: UInt32, length: UInt32, isEnabled: Bool)] = []
    /// While ``read(_:of:count:slotCount:liveCount:)`` runs, the index (in the
    /// directory's removal blocks) of the block being read: after it threw, the one that failed.
    private(set) var failedBlock: Int?

    init(keepingTitles: Bool, wanted: Set<LabelID>? = nil) {
        self.keepingTitles = keepingTitles
        self.wanted = wanted
    }

    /// Reads and checks `blocks` of the file `directory` describes, which a
    /// checkpoint whose entry counts `count` removals and whose image has
    /// `slotCount` slots, `liveCount` of them live, takes; in a based log,
    /// over the removed slots of its base (``CheckpointFile/Directory/origin``).
    /// A block that fails is named by its index among `blocks` in the error's
    /// ``failedBlock``.
    ///
    /// - Throws: ``SnapshotError``: `checksumMismatch` for a block that does
    ///   not match its checksum or cannot be read; `invalidContent` for a count
    ///   that does not add up or an impossible entry.
    mutating func read(
        _ blocks: ArraySlice<CheckpointFile.RemovalBlock>, of directory: CheckpointFile.Directory, count: UInt64, slotCount: Int,
        liveCount: Int
    ) throws(SnapshotError) -> TombstoneTable {
        let held = blocks.reduce(0 as UInt64) { $0 + $1.count }
        guard held == count else {
            throw SnapshotError(.invalidContent, "its entry counts \(count) removals, the removal blocks before it \(held)")
        }
        let origin = directory.origin
        guard UInt64(slotCount) <= UInt64(liveCount) + count + UInt64(origin?.slotCount ?? 0) else {
            throw SnapshotError(.invalidContent, "\(slotCount) slots cannot be \(liveCount) live labels and at most \(count) removed ones")
        }
        var table = TombstoneTable(slotCount: slotCount)
        if let origin {
            for (number, slot) in origin.slots.prefix(slotCount).enumerated() where !slot.isLive {
                table.note(slot: number, id: slot.id, seq: slot.seq)
            }
        }
        if keepingTitles { titleAt = Array(repeating: (UInt32.max, 0, 0, false), count: slotCount) }
        // Every block is read and checked first, then their removals are
        // noted slot range by slot range (``TombstoneTable/note(_:passSlots:)``): a
        // block's entries are spread over the whole table, and noting them
        // block by block would miss the cache on nearly every one.
        var checked: [TombstoneTable.Block] = []
        checked.reserveCapacity(blocks.count)
        for (index, block) in zip(blocks.indices, blocks) {
            failedBlock = index
            let bytes: [UInt8]
            do throws(EventLogError) {
                bytes = try directory.bytes(at: block.offset, count: block.length, of: "the removal block ending at seq \(block.seq)")
            } catch {
                throw SnapshotError(.checksumMismatch, "the removal block at byte offset \(block.start) cannot be read: \(error.message)")
            }
            try bytes.withUnsafeBytes { raw in
                Result { () throws(SnapshotError) in try check(raw, of: block, slotCount: slotCount) }
            }.get()
            checked.append(TombstoneTable.Block(bytes: bytes, count: Int(block.count)))
        }
        failedBlock = nil
        table.note(checked)
        return table
    }

    /// Checks one removal block's bytes `raw`: its checksum, and each entry
    /// (a slot below `slotCount`, entries in ascending slot order and, for
    /// one slot, ascending seq order, seqs in `1...block.seq`, states 0 or 1);
    /// while titles are kept, notes where each removal's title is.
    mutating func check(_ raw: UnsafeRawBufferPointer, of block: CheckpointFile.RemovalBlock, slotCount: Int) throws(SnapshotError) {
        guard CRC32C.checksum(raw) == block.checksum else {
            throw SnapshotError(.checksumMismatch, "the removal block at byte offset \(block.start) does not match its checksum")
        }
        let n = Int(block.count)
        func at(_ k: Int, _ field: String) -> String { "removal \(k) of the block at byte offset \(block.start): \(field)" }
        // The fixed-width columns: slots, ids, seqs, states.
        guard n * 29 <= raw.count else {
            throw SnapshotError(.invalidContent, "the removal block at byte offset \(block.start) is too short for its \(n) removals")
        }
        let seqsStart = n * 20, statesStart = n * 28
        var previous = (slot: -1, seq: 0 as UInt64)
        for k in 0..<n {
            let slot = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: k * 4, as: UInt32.self)))
            let seq = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: seqsStart + k * 8, as: UInt64.self))
            let state = raw[statesStart + k]
            guard slot < slotCount, seq >= 1, seq <= block.seq, state <= 1 else {
                throw SnapshotError(
                    .invalidContent, at(k, "slot \(slot) of \(slotCount), seq \(seq) (block up to seq \(block.seq)), state \(state)"))
            }
            guard (slot, seq) > previous else {
                throw SnapshotError(
                    .invalidContent, at(k, "slot \(slot) at seq \(seq) follows slot \(previous.slot) at seq \(previous.seq), out of order"))
            }
            previous = (slot, seq)
        }
        var r = ByteReader(raw, position: n * 29)
        // The titles come last: without them, nothing more is read.
        guard keepingTitles else { return }
        var decompressed = TitleArena()
        let (lengths, start) = try LabelList.decodeCompressedTitles(&r, count: n, naming: "the title of removal", into: &decompressed)
        var position = start
        let blockIndex = UInt32(blockTitles.count)
        blockTitles.append(decompressed.bytes)
        for k in 0..<n {
            let slot = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: k * 4, as: UInt32.self)))
            titleAt[slot] = (blockIndex, UInt32(position), UInt32(lengths[k]), raw[statesStart + k] == 1)
            position += lengths[k]
        }
        guard r.remaining == 0 else {
            throw SnapshotError(.invalidContent, "\(r.remaining) unexpected bytes after the removal block at byte offset \(block.start)")
        }
    }

    /// For each removed label of `list` (the checkpoint's list) that is
    /// ``wanted``, its title and state at its last removal.
    func labels(of list: LabelList) -> [LabelID: RemovedLabel] {
        guard keepingTitles else { return [:] }
        var removed: [LabelID: RemovedLabel] = [:]
        for (number, slot) in list.slots.enumerated() where !slot.isLive && wanted?.contains(slot.id) != false {
            let at = titleAt[number]
            guard at.block != UInt32.max else { continue }
            let title = blockTitles[Int(at.block)].withUnsafeBytes { raw in
                String(decoding: raw[Int(at.offset)..<Int(at.offset + at.length)], as: UTF8.self)
            }
            removed[slot.id] = RemovedLabel(title: title, isEnabled: at.isEnabled)
        }
        return removed
    }
}
