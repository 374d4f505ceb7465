import EventLog

/// A checkpoint's image of the list in `LOG.checkpoints` format 3
/// (docs/SNAPSHOTS.md, "Checkpoints"): a snapshot image whose body holds the
/// live slots only (header flag ``SnapshotFormat/liveSlotsOnlyFlag``). The
/// removed slots (tombstones), which a long history accumulates and every
/// checkpoint used to repeat, are written once, in the file's removal blocks,
/// and handed back to the decoder as a ``TombstoneTable``.
extension LabelList {
    /// The live-slots-only image of this list after the record at `logPosition`:
    /// the snapshot header, the slot, live and enabled counts, the live slots'
    /// numbers (as gaps), ids, states, seqs, title lengths and titles, the
    /// order, and a CRC-32C of all of it.
    ///
    /// - Complexity: O(s + n + t) for s slots, n live labels and t live title bytes.
    func checkpointImageBytes(logID: LabelID, logPosition: LogPosition) -> [UInt8] {
        var w = ByteWriter(capacity: SnapshotFormat.headerLength + count * 26 + titles.liveBytes + 64)
        writeSnapshotHeader(into: &w, logID: logID, fingerprint: 0, logPosition: logPosition, extraFlags: SnapshotFormat.liveSlotsOnlyFlag)
        w.varint(UInt64(slots.count))
        w.varint(UInt64(count))
        w.varint(UInt64(enabledCount))
        var previous = -1
        for (number, slot) in slots.enumerated() where slot.isLive {
            w.varint(UInt64(number - previous - 1))
            previous = number
        }
        for slot in slots where slot.isLive { withUnsafeBytes(of: slot.id.uuid.uuid) { w.bytes.append(contentsOf: $0) } }
        for slot in slots where slot.isLive { w.u8(slot.isEnabled ? 2 : 1) }
        for slot in slots where slot.isLive { w.varint(slot.seq) }
        for slot in slots where slot.isLive { w.varint(UInt64(slot.title.length)) }
        titles.bytes.withUnsafeBytes { all in
            for slot in slots where slot.isLive && slot.title.length > 0 {
                w.bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: all[slot.title.offset..<slot.title.offset + slot.title.length]))
            }
        }
        order.forEachLeaf { leaf in for number in leaf { w.varint(UInt64(number)) } }
        let crc = w.bytes.withUnsafeBytes { CRC32C.checksum($0) }
        w.u32(crc)
        return w.bytes
    }

    /// Decodes and checks a live-slots-only checkpoint image; `tombstones` is
    /// called with the image's slot and live counts once they are read and
    /// must return the removed slots (every slot number below the slot count
    /// that the image does not hold live).
    ///
    /// - Throws: ``SnapshotError``, as ``decodeSnapshot(_:)`` throws it, and
    ///   ``SnapshotError/Code/invalidContent`` when a slot is neither live nor a
    ///   tombstone, or a tombstone's seq is after the image's.
    /// - Complexity: O(b + s) for b image bytes and s slots, plus what `tombstones` costs.
    static func decodeCheckpointImage(
        _ bytes: UnsafeRawBufferPointer, tombstones: (_ slotCount: Int, _ liveCount: Int) throws(SnapshotError) -> TombstoneTable
    ) throws(SnapshotError) -> (list: LabelList, header: SnapshotHeader) {
        let (header, flags, body) = try decodeSnapshotHeader(bytes, allowing: SnapshotFormat.liveSlotsOnlyFlag)
        guard flags & SnapshotFormat.liveSlotsOnlyFlag != 0 else {
            throw SnapshotError(.invalidContent, "the image holds every slot, not the live ones only")
        }
        var r = body
        let seq = header.seq
        let slotCount = try r.count("the slot count", limit: Int(UInt32.max))
        // A live slot takes at least 21 bytes: its number, id, state, seq, title length and place in the order.
        let liveCount = try r.count("the live count", limit: min(slotCount, r.remaining / 21))
        let enabledCount = try r.count("the enabled count", limit: liveCount)
        var numbers: [Int] = []
        numbers.reserveCapacity(liveCount)
        var next = 0
        for index in 0..<liveCount {
            let number = next + (try r.count("the number of live slot \(index)", limit: slotCount))
            guard number < slotCount else {
                throw SnapshotError(.invalidContent, "live slot \(index) is slot \(number), past the \(slotCount) slots")
            }
            numbers.append(number)
            next = number + 1
        }
        guard liveCount * 17 <= r.remaining else {
            throw SnapshotError(.invalidContent, "\(liveCount) live slots cannot fit in the \(r.remaining) bytes left")
        }
        let (idsStart, statesStart, seqs) = try decodeSlotColumns(&r, count: liveCount, seq: seq, naming: "live slot")
        var list = LabelList()
        let (lengths, base) = try list.decodeTitles(&r, liveCount: liveCount)
        // The removed slots, filled in place by slot number; then the live ones over them.
        list.slots = try tombstones(slotCount, liveCount).slots
        guard list.slots.count == slotCount else {
            throw SnapshotError(.invalidContent, "the removed slots cover \(list.slots.count) slots, not \(slotCount)")
        }
        var enabled = 0
        var titleOffset = base
        for live in 0..<liveCount {
            let number = numbers[live]
            let id = LabelID(bytes: r.base.loadUnaligned(fromByteOffset: idsStart + live * 16, as: UUID16.self))
            let state = r.base[statesStart + live]
            guard state == 1 || state == 2 else {
                throw SnapshotError(.invalidContent, "live slot \(number) (label \(id)) has state \(state)")
            }
            let length = lengths[live]
            let title = length == 0 ? TitleRef.empty : TitleRef(offset: titleOffset, length: length)
            list.slots[number] = .live(id, title: title, isEnabled: state == 2, version: seqs[live])
            titleOffset += length
            if state == 2 { enabled += 1 }
        }
        for (number, slot) in list.slots.enumerated() where !slot.isLive {
            guard slot.seq != 0 else { throw SnapshotError(.invalidContent, "slot \(number) is neither live nor removed at seq \(seq)") }
            guard slot.seq <= seq else {
                throw SnapshotError(.invalidContent, "slot \(number) was removed at seq \(slot.seq), after the image's seq \(seq)")
            }
        }
        if let duplicate = list.buildSlotIndex() {
            throw SnapshotError(.invalidContent, "label \(list.slots[Int(duplicate)].id) has two slots")
        }
        guard enabled == enabledCount else {
            throw SnapshotError(.invalidContent, "the header counts \(enabledCount) enabled labels, the slots \(enabled)")
        }
        try list.decodeOrder(&r, slotCount: slotCount, liveCount: liveCount, enabledCount: enabledCount, header: header)
        return (list, header)
    }
}

/// The removed slots of a list at one checkpoint, by slot number: each one's
/// id and the seq of its last removal up to the checkpoint (later removals of
/// the same slot overwrite earlier ones: a removed id may be added again and
/// removed again), held as the list's slots so the decoder takes them as they
/// are; a slot no removal named holds seq 0. Built from `LOG.checkpoints`'
/// removal blocks.
struct TombstoneTable {
    /// By slot number: a removed slot, or a placeholder with seq 0.
    fileprivate(set) var slots: [LabelList.Slot]

    /// A table for slots `0..<slotCount`, with no tombstone yet.
    init(slotCount: Int) {
        slots = Array(repeating: .removed(TombstoneTable.noID, at: 0), count: slotCount)
    }

    private static let noID = LabelID(bytes: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))

    /// The number of slots the table covers.
    var slotCount: Int { slots.count }

    /// Records that slot `number` (below ``slotCount``) was removed, as label `id`, at `seq`.
    mutating func note(slot number: Int, id: LabelID, seq: UInt64) {
        slots[number] = .removed(id, at: seq)
    }
}
