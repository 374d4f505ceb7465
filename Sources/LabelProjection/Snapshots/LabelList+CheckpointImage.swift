import EventLog

/// A checkpoint's full image of the list in `LOG.checkpoints` format 5
/// (docs/SNAPSHOTS.md, "Checkpoints"): a snapshot image whose body holds the
/// live slots only (header flag ``SnapshotFormat/liveSlotsOnlyFlag``); it is
/// decoded by ``CheckpointState/init(fullImage:)``. The removed slots
/// (tombstones), which a long history accumulates and every checkpoint used
/// to repeat, are written once, in the file's removal blocks, and handed back
/// to the decoder as a ``TombstoneTable``.
extension LabelList {
    /// The live-slots-only image of this list after the record at `logPosition`:
    /// the snapshot header, the slot, live and enabled counts, the live slots'
    /// numbers (as gaps), ids, states, seqs, title lengths and titles
    /// (compressed, ``ByteWriter/compressedTitles(_:)``), the order, and a
    /// CRC-32C of all of it.
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
        var liveTitles: [UInt8] = []
        liveTitles.reserveCapacity(titles.liveBytes)
        titles.bytes.withUnsafeBytes { all in
            for slot in slots where slot.isLive && slot.title.length > 0 {
                liveTitles.append(
                    contentsOf: UnsafeRawBufferPointer(rebasing: all[slot.title.offset..<slot.title.offset + slot.title.length]))
            }
        }
        w.compressedTitles(liveTitles)
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
        slots = []
        // Room for the slots of the labels a fold from the checkpoint adds.
        slots.reserveCapacity(LabelList.roomToFold(slotCount))
        slots.append(contentsOf: repeatElement(.removed(TombstoneTable.noID, at: 0), count: slotCount))
    }

    private static let noID = LabelID(bytes: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))

    /// The number of slots the table covers.
    var slotCount: Int { slots.count }

    /// Records that slot `number` (below ``slotCount``) was removed, as label `id`, at `seq`.
    mutating func note(slot number: Int, id: LabelID, seq: UInt64) {
        slots[number] = .removed(id, at: seq)
    }

    /// The bytes of one removal block that were checked (docs/SNAPSHOTS.md,
    /// "Layout": `u32` slots, 16-byte ids, `u64` seqs, … in columns), and its
    /// number of entries, which are in ascending (slot, seq) order, every slot
    /// below ``slotCount``.
    struct Block {
        var bytes: [UInt8]
        var count: Int
    }

    /// Records the removals of `blocks`, in seq order (a later removal of a
    /// slot overwrites an earlier one), as ``note(slot:id:seq:)`` would one by
    /// one — but a range of slots at a time, every block's entries for the
    /// range before the next range: the writes of a pass stay within
    /// `passSlots` slots (512 KiB of the table) instead of striding over all
    /// of it for each block. Each block's entries being sorted by slot, a
    /// cursor per block finds where its next pass starts.
    ///
    /// - Complexity: O(e + b · s / passSlots) for e entries in b blocks over s slots.
    mutating func note(_ blocks: [Block], passSlots: Int = 16_384) {
        var cursors = [Int](repeating: 0, count: blocks.count)
        slots.withUnsafeMutableBufferPointer { table in
            var end = 0
            while end < table.count {
                end = min(end + passSlots, table.count)
                for b in blocks.indices {
                    let n = blocks[b].count
                    cursors[b] = blocks[b].bytes.withUnsafeBytes { raw in
                        var k = cursors[b]
                        while k < n {
                            let slot = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: k * 4, as: UInt32.self)))
                            guard slot < end else { break }
                            let id = LabelID.load(from: raw, at: n * 4 + k * 16)
                            let seq = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: n * 20 + k * 8, as: UInt64.self))
                            table[slot] = .removed(id, at: seq)
                            k += 1
                        }
                        return k
                    }
                }
            }
        }
    }
}
