import EventLog
import Foundation
import LabelStoreTestSupport
import Testing

@testable import LabelProjection

/// `LOG.checkpoints` (format 3 on) writes each removed label once, in removal
/// blocks, instead of in every checkpoint (docs/SNAPSHOTS.md, "Checkpoints"):
/// on seeded histories where removed ids come back and are removed again,
/// every checkpoint is still the fold (slots numbered alike, tombstones with
/// their removal seqs), carries each removed label's last title and state,
/// and the history tree's frontier at its seq; the blocks hold each removal
/// exactly once.
@Suite struct CheckpointFileRemovalsTests {
    let helpers = SnapshotStoreTests()
    static let interval: UInt64 = 23

    /// `n` writes of every kind, a third of the adds bringing back a removed id.
    func writeWithReAdds(_ n: Int, to store: LabelStore, seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        var removed: [LabelID] = []
        for i in 0..<n {
            let ids = store.snapshot.ids
            switch ids.isEmpty ? 0 : Int.random(in: 0..<6, using: &rng) {
            case 0, 1:
                let back = !removed.isEmpty && Int.random(in: 0..<3, using: &rng) == 0 ? removed.remove(at: 0) : nil
                try store.add("label \(i)", isEnabled: i % 3 != 0, id: back, at: Int.random(in: 0...ids.count, using: &rng))
            case 2: try store.rename(ids.randomElement(using: &rng)!, to: "renamed \(i)")
            case 3: try store.toggle(ids.randomElement(using: &rng)!)
            default:
                let id = ids.randomElement(using: &rng)!
                try store.remove(id)
                removed.append(id)
            }
        }
    }

    /// With `concurrent`, the removal blocks are read on another thread while the images are decoded, as for a long history's.
    @Test(arguments: [5, 6, 7] as [UInt64], [false, true])
    func everyCheckpointIsTheFoldWithTheRemovedLabelsWrittenOnce(seed: UInt64, concurrent: Bool) throws {
        let concurrentFrom = concurrent ? 0 : Int.max
        try helpers.withTemporaryDirectory { dir in
            let path = dir + "/labels.log"
            let store = try LabelStore.open(path: path, options: helpers.options())
            try writeWithReAdds(140, to: store, seed: seed)
            // Two updates, so the file is also extended from a checkpoint.
            _ = try CheckpointFile.update(logPath: path, interval: Self.interval)
            try writeWithReAdds(160, to: store, seed: seed &+ 100)
            store.close()
            let update = try CheckpointFile.update(logPath: path, interval: Self.interval)
            #expect(update.extendedFrom != nil)

            let records = try LogReader.readAll(path: path).records
            var heads: [UInt64: HistoryHead] = [:]
            var tree = HistoryTreeBuilder()
            _ = try LogReader(path: path).forEachView { view in
                tree.append(payload: Array(view.payload))
                heads[view.seq] = tree.head
            }
            let reader = try LogReader(path: path)
            let directory = try #require(CheckpointFile.load(for: reader).directory)
            #expect(directory.entries.map(\.seq) == update.seqs && update.seqs.count == records.count / Int(Self.interval))
            var reAdded = 0
            var lastRemoval: [LabelID: RemovedLabel] = [:]
            var fold = LabelList()
            var next = 0
            for entry in directory.entries {
                while next < Int(entry.seq) {
                    let record = records[next]
                    if case .removed(let id, _, let title, let isEnabled) = record.event {
                        lastRemoval[id] = RemovedLabel(title: title, isEnabled: isEnabled)
                    }
                    if case .added(let id, _, _, _) = record.event, lastRemoval[id] != nil { reAdded += 1 }
                    try fold.apply(record)
                    next += 1
                }
                let taken = CheckpointFile.checkpoint(atOrBefore: entry.seq, in: directory, reader: reader, concurrentFrom: concurrentFrom)
                #expect(taken.problems.isEmpty, "seq \(entry.seq): \(taken.problems)")
                let checkpoint = try #require(taken.checkpoint)
                #expect(checkpoint.position.seq == entry.seq)
                #expect(checkpoint.list == fold, "seq \(entry.seq)")
                #expect(
                    checkpoint.list.slots.map(\.id) == fold.slots.map(\.id), "seq \(entry.seq): slots numbered as the fold numbers them")
                let removedNow = Set(fold.knownIDs).subtracting(fold.ids)
                #expect(checkpoint.removed == lastRemoval.filter { removedNow.contains($0.key) }, "seq \(entry.seq)")
                #expect(checkpoint.tree?.head == heads[entry.seq], "seq \(entry.seq): the frontier gives the log's head")
                checkpoint.list._checkInvariants()
                // Only some labels' titles: those labels' and no others.
                let some = Set(removedNow.sorted { $0.description < $1.description }.prefix(3)).union(fold.ids.prefix(2))
                let among = CheckpointFile.checkpoint(
                    atOrBefore: entry.seq, in: directory, reader: reader, removedAmong: some, concurrentFrom: concurrentFrom
                ).checkpoint
                #expect(among?.removed == lastRemoval.filter { removedNow.contains($0.key) && some.contains($0.key) }, "seq \(entry.seq)")
                // Without the titles: the same list, no removed labels.
                let bare = try #require(
                    CheckpointFile.checkpoint(
                        atOrBefore: entry.seq, in: directory, reader: reader, decodingRemoved: false, concurrentFrom: concurrentFrom
                    ).checkpoint)
                #expect(bare.list == fold && bare.removed.isEmpty)
            }
            #expect(reAdded > 0, "the history brings removed ids back")
            let lastCheckpoint = Int(directory.entries.last!.seq)
            let removals = records.prefix(lastCheckpoint).filter { $0.event.kind == .removed }.count
            #expect(directory.removals.map(\.count).reduce(0, +) == UInt64(removals), "each removal is written once")
        }
    }

    @Test(arguments: [false, true])
    func aDamagedRemovalBlockMakesOnlyTheCheckpointsAfterItUnusable(concurrent: Bool) throws {
        try helpers.withTemporaryDirectory { dir in
            let path = dir + "/labels.log"
            let store = try LabelStore.open(path: path, options: helpers.options())
            try writeWithReAdds(200, to: store, seed: 9)
            store.close()
            _ = try CheckpointFile.update(logPath: path, interval: Self.interval)
            let reader = try LogReader(path: path)
            let directory = try #require(CheckpointFile.load(for: reader).directory)
            let block = try #require(directory.removals.dropFirst(2).first)
            let file = CheckpointFile.path(for: path)
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
            bytes[block.offset + block.length / 2] ^= 0x20
            try Data(bytes).write(to: URL(fileURLWithPath: file))
            let damaged = try #require(CheckpointFile.load(for: reader).directory)
            let records = try LogReader.readAll(path: path).records
            for entry in damaged.entries {
                let taken = CheckpointFile.checkpoint(
                    atOrBefore: entry.seq, in: damaged, reader: reader, concurrentFrom: concurrent ? 0 : Int.max)
                let expectedSeq = entry.blocksBefore > 2 ? directory.entries.last { $0.blocksBefore <= 2 }?.seq : entry.seq
                #expect(taken.checkpoint?.position.seq == expectedSeq, "at seq \(entry.seq)")
                if entry.blocksBefore > 2 {
                    #expect(
                        taken.problems.first?.reason.contains("removal block at byte offset \(block.start)") == true, "\(taken.problems)")
                }
                if let checkpoint = taken.checkpoint {
                    #expect(checkpoint.list == (try LabelList(replaying: records.prefix(Int(checkpoint.position.seq)))))
                }
            }
            // The next update keeps the checkpoints before the damage and writes the rest again.
            let update = try CheckpointFile.update(logPath: path, interval: Self.interval)
            #expect(update.extendedFrom == directory.entries.last { $0.blocksBefore <= 2 }?.seq)
            let again = try #require(CheckpointFile.load(for: reader).directory)
            for entry in again.entries {
                #expect(CheckpointFile.checkpoint(atOrBefore: entry.seq, in: again, reader: reader).problems.isEmpty, "at seq \(entry.seq)")
            }
        }
    }
}

/// The removal blocks' entries are noted into the tombstone table a range of
/// slots at a time (`TombstoneTable.note(_:passSlots:)`), which relies on
/// each block's entries being in ascending (slot, seq) order: the passes give
/// the table that noting every entry in file order gives, and a block out of
/// that order is refused by name.
@Suite struct TombstoneTableNotingTests {
    /// `count` random removal blocks over `slotCount` slots, seqs ascending from block to block, as the writer encodes them.
    func randomBlocks(count: Int, slotCount: Int, rng: inout SeededGenerator) -> [(block: CheckpointFile.RemovalBlock, bytes: [UInt8])] {
        var seq: UInt64 = 0
        return (0..<count).map { _ in
            var pending = CheckpointFile.PendingRemovals()
            for _ in 0..<Int.random(in: 1...60, using: &rng) {
                seq += UInt64.random(in: 1...3, using: &rng)
                // Few slots, so one slot is often removed in several blocks and twice in one.
                pending.append(
                    slot: UInt32.random(in: 0..<UInt32(slotCount), using: &rng), id: LabelID(), seq: seq, title: "t\(seq)",
                    isEnabled: Bool.random(using: &rng))
            }
            let bytes = pending.encoded()
            let block = CheckpointFile.RemovalBlock(
                seq: seq, offset: 0, length: bytes.count, count: UInt64(pending.count),
                checksum: bytes.withUnsafeBytes { CRC32C.checksum($0) })
            return (block, bytes)
        }
    }

    @Test(arguments: [1, 3, 7, 64] as [Int])
    func notingByRangesOfSlotsGivesTheTableOfNotingInFileOrder(passSlots: Int) throws {
        var rng = SeededGenerator(seed: UInt64(passSlots))
        let slotCount = 50
        let blocks = randomBlocks(count: 12, slotCount: slotCount, rng: &rng)
        var expected = TombstoneTable(slotCount: slotCount)
        var checked: [TombstoneTable.Block] = []
        for (block, bytes) in blocks {
            var removals = RemovedLabels(keepingTitles: false)
            try bytes.withUnsafeBytes { raw in try removals.check(raw, of: block, slotCount: slotCount) }
            checked.append(TombstoneTable.Block(bytes: bytes, count: Int(block.count)))
            let n = Int(block.count)
            for k in 0..<n {
                let slot = bytes.withUnsafeBytes { Int($0.loadUnaligned(fromByteOffset: k * 4, as: UInt32.self)) }
                let id = bytes.withUnsafeBytes { LabelID(bytes: $0.loadUnaligned(fromByteOffset: n * 4 + k * 16, as: UUID16.self)) }
                #expect(bytes.withUnsafeBytes { LabelID.load(from: $0, at: n * 4 + k * 16) } == id, "loaded as its bytes, the same id")
                let seq = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: n * 20 + k * 8, as: UInt64.self) }
                expected.note(slot: slot, id: id, seq: seq)
            }
        }
        var table = TombstoneTable(slotCount: slotCount)
        table.note(checked, passSlots: passSlots)
        #expect(table.slots.map(\.id) == expected.slots.map(\.id))
        #expect(table.slots.map(\.word) == expected.slots.map(\.word))
        #expect(table.slots.contains { $0.seq != 0 })
    }

    @Test func aBlockWhoseEntriesAreOutOfSlotOrderIsRefusedNamingTheEntry() throws {
        var pending = CheckpointFile.PendingRemovals()
        pending.append(slot: 4, id: LabelID(), seq: 10, title: "a", isEnabled: true)
        pending.append(slot: 2, id: LabelID(), seq: 11, title: "b", isEnabled: false)
        var bytes = pending.encoded()  // sorted: slot 2, then slot 4
        // Swap the two entries' slot numbers: ascending order broken, checksum made to match.
        bytes.replaceSubrange(0..<8, with: [4, 0, 0, 0, 2, 0, 0, 0])
        let block = CheckpointFile.RemovalBlock(
            seq: 11, offset: 40, length: bytes.count, count: 2, checksum: bytes.withUnsafeBytes { CRC32C.checksum($0) })
        var removals = RemovedLabels(keepingTitles: false)
        let error = #expect(throws: SnapshotError.self) {
            try bytes.withUnsafeBytes { raw in try removals.check(raw, of: block, slotCount: 8) }
        }
        #expect(error?.code == .invalidContent)
        #expect(error?.message.contains("removal 1 of the block at byte offset 0") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("out of order") == true)
    }
}
