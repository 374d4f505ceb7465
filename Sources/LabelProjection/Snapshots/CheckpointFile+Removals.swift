import EventLog

/// The removal blocks of `LOG.checkpoints` (docs/SNAPSHOTS.md, "Layout"):
/// every label removal, once, in seq order. A checkpoint's image leaves the
/// removed slots out; it takes them from the blocks before it, so the file
/// grows with the removals once instead of once per checkpoint.
extension CheckpointFile {
    /// Appends one removal entry: the slot number, the label's id, the seq
    /// that removed it, its state (`1` enabled, `0` disabled) and its title
    /// as the `removed` event stated them.
    static func encodeRemoval(slot: UInt32, id: LabelID, seq: UInt64, title: String, isEnabled: Bool, into w: inout ByteWriter) {
        w.varint(UInt64(slot))
        w.id(id)
        w.varint(seq)
        w.u8(isEnabled ? 1 : 0)
        w.string(title)
    }
}

/// The removed labels one checkpoint takes from the removal blocks before
/// it: the tombstones its image leaves out and, when asked, the title and
/// state each removed label had when it was last removed (which `diff` and
/// `trace` print and the list does not keep).
struct RemovedLabels {
    /// Whether the titles and states are kept (else they are skipped, not decoded).
    let keepingTitles: Bool
    private var titles: [String] = []
    private var enabled: [Bool] = []

    init(keepingTitles: Bool) { self.keepingTitles = keepingTitles }

    /// Reads and checks `blocks` of the file `directory` describes, which a
    /// checkpoint whose entry counts `count` removals and whose image has
    /// `slotCount` slots, `liveCount` of them live, takes.
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
        guard UInt64(slotCount) <= UInt64(liveCount) + count else {
            throw SnapshotError(.invalidContent, "\(slotCount) slots cannot be \(liveCount) live labels and at most \(count) removed ones")
        }
        var table = TombstoneTable(slotCount: slotCount)
        if keepingTitles {
            titles = Array(repeating: "", count: slotCount)
            enabled = Array(repeating: false, count: slotCount)
        }
        for block in blocks {
            let bytes: [UInt8]
            do throws(EventLogError) {
                bytes = try directory.bytes(at: block.offset, count: block.length, of: "the removal block ending at seq \(block.seq)")
            } catch {
                throw SnapshotError(.checksumMismatch, "the removal block at byte offset \(block.start) cannot be read: \(error.message)")
            }
            try bytes.withUnsafeBytes { raw in
                Result { () throws(SnapshotError) in try parse(raw, of: block, slotCount: slotCount, into: &table) }
            }.get()
        }
        return table
    }

    /// Checks one removal block's bytes `raw` against its checksum and notes its removals in `table`.
    private mutating func parse(
        _ raw: UnsafeRawBufferPointer, of block: CheckpointFile.RemovalBlock, slotCount: Int, into table: inout TombstoneTable
    ) throws(SnapshotError) {
        guard CRC32C.checksum(raw) == block.checksum else {
            throw SnapshotError(.checksumMismatch, "the removal block at byte offset \(block.start) does not match its checksum")
        }
        var r = ByteReader(raw)
        for k in 0..<block.count {
            func what(_ field: String) -> String { "removal \(k) of the block at byte offset \(block.start): \(field)" }
            let slot = try r.count(what("the slot"), limit: max(0, slotCount - 1))
            let id = try r.id(what("the id"))
            let seq = try r.varint(what("the seq"))
            let state = try r.u8(what("the state"))
            guard slot < slotCount, seq >= 1, seq <= block.seq, state <= 1 else {
                throw SnapshotError(
                    .invalidContent, what("slot \(slot) of \(slotCount), seq \(seq) (block up to seq \(block.seq)), state \(state)"))
            }
            if keepingTitles {
                let title = try r.utf8(what("the title"), maxBytes: LogLimits.maxTitleBytes)
                titles[slot] = String(decoding: title, as: UTF8.self)
                enabled[slot] = state == 1
            } else {
                let length = try r.count(what("the title's length"), limit: min(LogLimits.maxTitleBytes, r.remaining))
                r.position += length
            }
            table.note(slot: slot, id: id, seq: seq)
        }
        guard r.remaining == 0 else {
            throw SnapshotError(.invalidContent, "\(r.remaining) unexpected bytes after the removal block at byte offset \(block.start)")
        }
    }

    /// For each removed label of `list` (the checkpoint's list), its title and state at its last removal.
    func labels(of list: LabelList) -> [LabelID: RemovedLabel] {
        guard keepingTitles else { return [:] }
        var removed: [LabelID: RemovedLabel] = [:]
        for (number, slot) in list.slots.enumerated() where !slot.isLive {
            removed[slot.id] = RemovedLabel(title: titles[number], isEnabled: enabled[number])
        }
        return removed
    }
}
