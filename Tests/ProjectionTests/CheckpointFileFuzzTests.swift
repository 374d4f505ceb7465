import EventLog
import Foundation
import LabelStoreTestSupport
import Testing

@testable import LabelProjection

/// A `LOG.checkpoints` of format 5 changed byte by byte — in a checkpoint's
/// image, in a removal block, or in an entry's fields — and, for most
/// changes, resealed with valid checksums so that the content checks run:
/// reading it never traps, every checkpoint refused comes with a reason, and
/// every checkpoint accepted passes the list's internal invariant checks.
/// (A change that is consistent in every way gives a list the checks cannot
/// tell from a true one: docs/SNAPSHOTS.md, "What is trusted".)
@Suite struct CheckpointFileFuzzTests {
    /// Where one block of the file is: its entry, its body, and the image's length in a checkpoint (0 for a removal block).
    struct Block {
        var entry: Int
        var body: Int
        var length: Int
        var imageLength: Int
    }

    /// Byte values that make varints long, lengths huge and states impossible.
    static let extremes: [UInt8] = [0, 0x7F, 0x80, 0xFF]

    /// Writes valid checksums over `block` of `bytes`: the image's own trailer (a checkpoint), the body's in the entry, the entry's.
    static func reseal(_ bytes: inout [UInt8], _ block: Block) {
        func store(_ value: UInt32, at offset: Int) {
            for k in 0..<4 { bytes[offset + k] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(k))) }
        }
        if block.imageLength >= 4 {
            store(CRC32C.checksum(bytes[block.body..<(block.body + block.imageLength - 4)]), at: block.body + block.imageLength - 4)
        }
        store(CRC32C.checksum(bytes[block.body..<(block.body + block.length)]), at: block.entry + 32)
        store(CRC32C.checksum(bytes[block.entry..<(block.entry + 36)]), at: block.entry + 36)
    }

    @Test func changedAndResealedBlocksAreRefusedWithAReasonOrReadAsAConsistentList() throws {
        try SnapshotStoreTests().withTemporaryDirectory { dir in try fuzz(in: dir) }
    }

    /// The test's body, in a directory of its own.
    func fuzz(in dir: String) throws {
        let helpers = SnapshotStoreTests()
        do {
            let path = dir + "/labels.log"
            let store = try LabelStore.open(path: path, options: helpers.options())
            // A list large enough that the checkpoints after the first are deltas, then writes of every kind.
            for i in 0..<40 { try store.add("warm-up \(i)") }
            try CheckpointFileRemovalsTests().writeWithReAdds(160, to: store, seed: 31)
            store.close()
            _ = try CheckpointFile.update(logPath: path, interval: 23)
            let file = CheckpointFile.path(for: path)
            let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
            let reader = try LogReader(path: path)
            let directory = try #require(CheckpointFile.load(for: reader).directory)
            let blocks =
                directory.entries.map { Block(entry: $0.start, body: $0.offset, length: $0.length, imageLength: $0.imageLength) }
                + directory.removals.map { Block(entry: $0.start, body: $0.offset, length: $0.length, imageLength: 0) }
            #expect(directory.removals.count >= 3, "the history removes labels between checkpoints")
            #expect(directory.entries.contains { $0.isDelta }, "some checkpoints are deltas")
            var rng = SeededGenerator(seed: 77)
            var outcomes: [String: Int] = [:]
            for i in 0..<1_500 {
                var bytes = original
                let block = blocks.randomElement(using: &rng)!
                for _ in 0..<Int.random(in: 1...3, using: &rng) {
                    // Mostly the body; one change in eight is in the entry's seq, length or count.
                    let at =
                        Int.random(in: 0..<8, using: &rng) == 0
                        ? block.entry + Int.random(in: 8..<32, using: &rng) : block.body + Int.random(in: 0..<block.length, using: &rng)
                    switch Int.random(in: 0..<3, using: &rng) {
                    case 0: bytes[at] ^= 1 << UInt8.random(in: 0...7, using: &rng)
                    case 1: bytes[at] = UInt8.random(in: 0...255, using: &rng)
                    default: bytes[at] = Self.extremes[Int.random(in: 0..<Self.extremes.count, using: &rng)]
                    }
                }
                if i % 4 != 0 { Self.reseal(&bytes, block) }
                try Data(bytes).write(to: URL(fileURLWithPath: file))
                guard let changed = CheckpointFile.load(for: reader).directory else {
                    outcomes["file not used", default: 0] += 1
                    continue
                }
                if let tail = changed.tail {
                    #expect(!tail.reason.isEmpty)
                    outcomes["tail", default: 0] += 1
                }
                for entry in changed.entries {
                    let taken = CheckpointFile.checkpoint(atOrBefore: entry.seq, in: changed, reader: reader)
                    for problem in taken.problems {
                        #expect(!problem.reason.isEmpty)
                        let kind = problem.reason.contains("does not decode") ? "content refused" : "other refusal"
                        outcomes[kind, default: 0] += 1
                    }
                    if let checkpoint = taken.checkpoint {
                        checkpoint.list._checkInvariants()
                        #expect(checkpoint.list.lastSeq == checkpoint.position.seq && checkpoint.tree?.count == checkpoint.position.seq)
                    }
                }
            }
            #expect(
                outcomes["content refused", default: 0] > 300 && outcomes["other refusal", default: 0] > 100
                    && outcomes["tail", default: 0] > 20,
                "the content checks, the checksums and the entry walk must all be exercised: \(outcomes)")
        }
    }
}
