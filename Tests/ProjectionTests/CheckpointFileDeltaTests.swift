import EventLog
import Foundation
import LabelStoreTestSupport
import Testing

@testable import LabelProjection

/// `LOG.checkpoints` format 4 on writes most checkpoints as deltas on the one
/// before and a full image every few (docs/SNAPSHOTS.md, "Layout"): on seeded
/// histories of every kind of write — removed ids added again, renames,
/// toggles, moves and whole reorders — every checkpoint and the list at
/// random seqs are the fold from seq 1; every byte of a delta or a full image
/// changed is caught, and only the checkpoints built on it fall back, to the
/// newest one before it.
@Suite struct CheckpointFileDeltaTests {
    let helpers = SnapshotStoreTests()
    static let interval: UInt64 = 19

    /// `n` writes of every kind after `warmUp` adds, a third of the adds
    /// bringing back a removed id, one write in twelve a reorder of the whole list.
    func writeMixed(_ n: Int, to store: LabelStore, seed: UInt64, warmUp: Int = 0) throws {
        var rng = SeededGenerator(seed: seed)
        for i in 0..<warmUp { try store.add("warm-up label \(i) \(seed)", isEnabled: i % 2 == 0) }
        var removed: [LabelID] = []
        for i in 0..<n {
            let ids = store.snapshot.ids
            switch ids.count < 2 ? 0 : Int.random(in: 0..<12, using: &rng) {
            case 0, 1:
                let back = !removed.isEmpty && Int.random(in: 0..<3, using: &rng) == 0 ? removed.remove(at: 0) : nil
                try store.add("label \(i)", isEnabled: i % 3 != 0, id: back, at: Int.random(in: 0...ids.count, using: &rng))
            case 2, 3: try store.rename(ids.randomElement(using: &rng)!, to: "renamed \(i) \(String(repeating: "é", count: i % 5))")
            case 4, 5: try store.toggle(ids.randomElement(using: &rng)!)
            case 6, 7:
                let from = Int.random(in: 0..<ids.count, using: &rng)
                try store.move(ids[from], to: (from + Int.random(in: 1..<ids.count, using: &rng)) % ids.count)
            case 8: try store.reorder(ids.shuffled(using: &rng))
            default:
                let id = ids.randomElement(using: &rng)!
                try store.remove(id)
                removed.append(id)
            }
        }
    }

    /// A log of `warmUp` adds and `writes` mixed writes at `dir/labels.log`, its records.
    func makeLog(in dir: String, writes: Int, seed: UInt64, warmUp: Int = 40) throws -> String {
        let path = dir + "/labels.log"
        let store = try LabelStore.open(path: path, options: helpers.options())
        defer { store.close() }
        try writeMixed(writes, to: store, seed: seed, warmUp: warmUp)
        return path
    }

    @Test(arguments: [(11, 4), (12, 16), (13, 1)] as [(UInt64, Int)])
    func checkpointsAndListsAtRandomSeqsAreTheFoldFromSeqOne(seed: UInt64, fullEvery: Int) throws {
        try helpers.withTemporaryDirectory { dir in
            let path = try makeLog(in: dir, writes: 250, seed: seed)
            // Two updates, so the chain of deltas is also continued from a checkpoint.
            _ = try CheckpointFile.update(logPath: path, interval: Self.interval, fullEvery: fullEvery)
            let more = try LabelStore.open(path: path, options: helpers.options(create: false))
            try writeMixed(200, to: more, seed: seed &+ 7)
            more.close()
            let update = try CheckpointFile.update(logPath: path, interval: Self.interval, fullEvery: fullEvery)
            #expect(update.extendedFrom != nil)
            let records = try LogReader.readAll(path: path).records
            let reader = try LogReader(path: path)
            let directory = try #require(CheckpointFile.load(for: reader).directory)
            let deltas = directory.entries.filter(\.isDelta).count
            if fullEvery == 1 {
                #expect(deltas == 0)
            } else {
                #expect(deltas >= directory.entries.count / 2, "most checkpoints are deltas: \(deltas) of \(directory.entries.count)")
                // No run of a full image and deltas is longer than fullEvery.
                var run = 0
                for entry in directory.entries {
                    run = entry.isDelta ? run + 1 : 1
                    #expect(run <= fullEvery)
                }
            }
            var fold = LabelList()
            var next = 0
            for entry in directory.entries {
                while next < Int(entry.seq) {
                    try fold.apply(records[next])
                    next += 1
                }
                let taken = CheckpointFile.checkpoint(atOrBefore: entry.seq, in: directory, reader: reader, decodingRemoved: false)
                #expect(taken.problems.isEmpty, "seq \(entry.seq): \(taken.problems)")
                let list = try #require(taken.checkpoint?.list)
                #expect(list == fold && list.slots.map(\.id) == fold.slots.map(\.id), "seq \(entry.seq)")
                #expect(list.slots.map(\.word) == fold.slots.map(\.word), "seq \(entry.seq): versions and removal seqs")
                list._checkInvariants()
            }
            // The store's state(atSeq:) at random seqs, through the checkpoints, is the fold from seq 1.
            let store = try LabelStore.open(path: path, options: helpers.options(create: false))
            defer { store.close() }
            var rng = SeededGenerator(seed: seed &* 31)
            for _ in 0..<40 {
                let seq = UInt64.random(in: 1...UInt64(records.count), using: &rng)
                #expect(try store.state(atSeq: seq) == (try LabelList(replaying: records.prefix(Int(seq)))), "seq \(seq)")
            }
        }
    }

    /// The checkpoints whose lists a damaged piece (entry `damaged`) spoils:
    /// it and the deltas after it up to the next full image.
    func spoiled(by damaged: Int, in entries: [CheckpointFile.Entry]) -> Range<Int> {
        let end = entries[(damaged + 1)...].firstIndex { !$0.isDelta } ?? entries.count
        return damaged..<end
    }

    @Test(arguments: ["full image", "delta", "last delta"])
    func everyByteOfAPieceChangedIsCaughtAndOnlyTheCheckpointsBuiltOnItFallBack(piece: String) throws {
        try helpers.withTemporaryDirectory { dir in
            let path = try makeLog(in: dir, writes: 150, seed: 21, warmUp: 12)
            _ = try CheckpointFile.update(logPath: path, interval: Self.interval, fullEvery: 3)
            let file = CheckpointFile.path(for: path)
            let whole = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
            let reader = try LogReader(path: path)
            let records = try LogReader.readAll(path: path).records
            let entries = try #require(CheckpointFile.load(for: reader).directory).entries
            // A piece with a checkpoint before it and checkpoints built on it.
            func fits(_ k: Int) -> Bool { entries[k].isDelta == (piece != "full image") && k + 1 < entries.count && entries[k + 1].isDelta }
            let damaged = try #require(
                piece == "last delta" ? entries.indices.dropFirst().last(where: fits) : entries.indices.dropFirst().first(where: fits))
            let spoiled = spoiled(by: damaged, in: entries)
            let target = entries[damaged]
            // The last checkpoint it spoils, and the first one after those (if any), which it does not.
            let probes = [spoiled.upperBound - 1, damaged - 1] + (spoiled.upperBound < entries.count ? [spoiled.upperBound] : [])
            var folds: [Int: LabelList] = [:]
            for k in probes { folds[k] = try LabelList(replaying: records.prefix(Int(entries[k].seq))) }
            folds[damaged - 1] = try LabelList(replaying: records.prefix(Int(entries[damaged - 1].seq)))
            for at in target.offset..<target.end {
                var bytes = whole
                bytes[at] ^= 1 << UInt8(at % 8)
                try Data(bytes).write(to: URL(fileURLWithPath: file))
                let directory = try #require(CheckpointFile.load(for: reader).directory)
                #expect(directory.entries.count == entries.count && directory.tail == nil)
                for k in probes {
                    let taken = CheckpointFile.checkpoint(atOrBefore: entries[k].seq, in: directory, reader: reader, decodingRemoved: false)
                    let expected = spoiled.contains(k) ? damaged - 1 : k
                    #expect(taken.checkpoint?.position.seq == entries[expected].seq, "byte \(at), checkpoint \(k)")
                    #expect(taken.checkpoint?.list == folds[expected], "byte \(at), checkpoint \(k)")
                    if spoiled.contains(k) {
                        #expect(
                            taken.problems.count == 1 && taken.problems[0].reason.hasPrefix("the checkpoint at seq \(target.seq) "),
                            "byte \(at): the damaged piece is reported once: \(taken.problems)")
                    } else {
                        #expect(taken.problems.isEmpty, "byte \(at), checkpoint \(k): \(taken.problems)")
                    }
                }
                if at % 97 == 0 {
                    // The next update extends the newest usable checkpoint: when the damage spoils the last ones, it
                    // keeps those before the damage and writes the rest again; else the damaged piece stays (reported
                    // whenever it is tried) until a rebuild.
                    let update = try CheckpointFile.update(logPath: path, interval: Self.interval, fullEvery: 3)
                    let spoilsLast = spoiled.upperBound == entries.count
                    #expect(update.extendedFrom == (spoilsLast ? entries[damaged - 1] : entries[entries.count - 1]).seq, "byte \(at)")
                    #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: file))) == (spoilsLast ? whole : bytes), "byte \(at)")
                }
            }
        }
    }

    @Test func aTornDeltaIsCutByTheNextUpdate() throws {
        try helpers.withTemporaryDirectory { dir in
            let path = try makeLog(in: dir, writes: 120, seed: 23)
            _ = try CheckpointFile.update(logPath: path, interval: Self.interval)
            let file = CheckpointFile.path(for: path)
            let whole = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
            let reader = try LogReader(path: path)
            let entries = try #require(CheckpointFile.load(for: reader).directory).entries
            let last = try #require(entries.last)
            #expect(last.isDelta, "the last checkpoint is a delta")
            for cut in stride(from: last.start, to: last.end, by: 7) {
                // A crash mid-append: the delta's bytes partly there, its entry still zero.
                var torn = Array(whole.prefix(cut))
                for k in last.start..<min(cut, last.start + 40) { torn[k] = 0 }
                try Data(torn).write(to: URL(fileURLWithPath: file))
                let directory = try #require(CheckpointFile.load(for: reader).directory)
                #expect(directory.entries.map(\.seq) == entries.dropLast().map(\.seq), "cut at \(cut)")
                let update = try CheckpointFile.update(logPath: path, interval: Self.interval)
                #expect(update.extendedFrom == entries[entries.count - 2].seq, "cut at \(cut)")
                #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: file))) == whole, "cut at \(cut)")
            }
        }
    }
}
