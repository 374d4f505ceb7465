import EventLog

/// A checkpoint's full image of the list in `LOG.checkpoints` format 4
/// (docs/SNAPSHOTS.md, "Checkpoints"): a snapshot image whose body holds the
/// live slots only (header flag ``SnapshotFormat/liveSlotsOnlyFlag``); it is
/// decoded by ``CheckpointState/init(fullImage:)``. The removed slots
/// (tombstones), which a long history accumulates and every checkpoint used
/// to repeat, are written once, in the file's removal blocks, and handed back
/// to the decoder as a ``TombstoneTable``.
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
