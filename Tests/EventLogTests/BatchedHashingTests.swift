import CSHA256
import LabelStoreTestSupport
import Testing

@testable import EventLog

/// Leaves and nodes hashed many at a time (`csha256_hardware_compress_many`,
/// three interleaved SHA-256 streams, and the staging that groups leaves by
/// their length in blocks) give exactly the single-stream hashes: seeded
/// random messages of every length around the block boundaries, every
/// number of messages around the group and batch sizes, with the CPU's
/// instructions and without them.
@Suite struct BatchedHashingTests {
    /// `count` random bytes.
    static func bytes(_ count: Int, using rng: inout SeededGenerator) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }
    }

    /// The eight words of `state`.
    static func words(_ state: SHA256.State) -> [UInt32] {
        [state.0, state.1, state.2, state.3, state.4, state.5, state.6, state.7]
    }

    @Test(.enabled(if: SHA256.usesHardware, "the CPU has no SHA instructions: the interleaved streams are never used"))
    func manyInterleavedCompressionsEqualSingleOnes() {
        var rng = SeededGenerator(seed: 0x5eed_3)
        for blocks in 1...5 {
            for count in 0...8 {
                let messages = (0..<count).map { _ in Self.bytes(64 * blocks, using: &rng) }
                // Each state starts elsewhere: a message's later blocks, not only its first.
                let starts = (0..<count).map { _ in (0..<8).map { _ in UInt32.random(in: 0...UInt32.max, using: &rng) } }
                let single = zip(messages, starts).map { message, start -> [UInt32] in
                    var state: SHA256.State = (start[0], start[1], start[2], start[3], start[4], start[5], start[6], start[7])
                    message.withUnsafeBytes { SHA256.compress(&state, $0.baseAddress!, blocks: blocks) }
                    return Self.words(state)
                }
                var states: [UInt32] = Array(starts.joined()) + [0xdead_beef]  // a word past the last state stays
                let pointers = messages.map { message in
                    let copy = UnsafeMutableRawPointer.allocate(byteCount: message.count, alignment: 1)
                    message.withUnsafeBytes { copy.copyMemory(from: $0.baseAddress!, byteCount: message.count) }
                    return UnsafeRawPointer(copy) as UnsafeRawPointer?
                }
                defer { for pointer in pointers { UnsafeMutableRawPointer(mutating: pointer!).deallocate() } }
                states.withUnsafeMutableBufferPointer { words in
                    pointers.withUnsafeBufferPointer { data in
                        csha256_hardware_compress_many(words.baseAddress!, data.baseAddress!, count, blocks)
                    }
                }
                for i in 0..<count {
                    #expect(Array(states[8 * i..<8 * i + 8]) == single[i], "message \(i) of \(count), \(blocks) blocks")
                }
                #expect(states.last == 0xdead_beef, "\(count) messages of \(blocks) blocks: nothing written past them")
            }
        }
    }

    /// The leaves of `payloads` through ``HistoryHash/leaves(_:offsets:count:into:hardware:)``.
    static func batchedLeaves(_ payloads: [[UInt8]], hardware: Bool) -> [HistoryHash] {
        let bytes: [UInt8] = Array(payloads.joined()) + [0]  // never an empty buffer
        var offsets = [0]
        for payload in payloads { offsets.append(offsets.last! + payload.count) }
        var hashes = [HistoryHash](repeating: .empty, count: payloads.count + 1)
        bytes.withUnsafeBytes { raw in
            offsets.withUnsafeBufferPointer { cuts in
                hashes.withUnsafeMutableBufferPointer { out in
                    HistoryHash.leaves(
                        raw.baseAddress!, offsets: cuts.baseAddress!, count: payloads.count, into: out.baseAddress!, hardware: hardware)
                }
            }
        }
        #expect(hashes.last == .empty, "nothing written past the last leaf")
        return Array(hashes.dropLast())
    }

    @Test(arguments: [true, false])
    func batchedLeavesEqualOneAtATimeForEveryLengthAndCount(hardware: Bool) {
        var rng = SeededGenerator(seed: hardware ? 21 : 22)
        // Every length from empty to past the batched blocks (0x00 ‖ payload ‖ padding: 1 block up to 54 bytes, 5 from 247).
        let everyLength = (0...320).map { Self.bytes($0, using: &rng) }
        #expect(Self.batchedLeaves(everyLength, hardware: hardware) == everyLength.map { HistoryHash.leaf(payload: $0) })
        let shuffled = everyLength.shuffled(using: &rng)
        #expect(Self.batchedLeaves(shuffled, hardware: hardware) == shuffled.map { HistoryHash.leaf(payload: $0) })
        // Counts around the groups of three and the staging's 24, of one length or mixed, in random order.
        for count in [0, 1, 2, 3, 4, 5, 6, 7, 23, 24, 25, 47, 48, 49, 73, 300] {
            let oneLength = (0..<count).map { _ in Self.bytes(70, using: &rng) }
            let lengths = [0, 53, 54, 55, 60, 117, 118, 119, 200, 246, 247, 400]
            let mixed = (0..<count).map { _ in Self.bytes(lengths.randomElement(using: &rng)!, using: &rng) }
            for payloads in [oneLength, mixed, mixed.shuffled(using: &rng)] {
                #expect(
                    Self.batchedLeaves(payloads, hardware: hardware) == payloads.map { HistoryHash.leaf(payload: $0) },
                    "\(count) leaves of lengths \(payloads.map(\.count).prefix(12))…")
            }
        }
    }

    @Test(arguments: [true, false])
    func batchedPerfectRootsEqualTheBuildersRoot(hardware: Bool) {
        var rng = SeededGenerator(seed: hardware ? 31 : 32)
        for power in 0...11 {
            let count = 1 << power
            var leaves = (0..<count).map { _ in HistoryHash.leaf(payload: Self.bytes(8, using: &rng)) }
            var builder = HistoryTreeBuilder()
            for leaf in leaves { builder.append(leaf: leaf) }
            let root = leaves.withUnsafeMutableBufferPointer { HistoryHash.perfectRoot($0.baseAddress!, count: count, hardware: hardware) }
            #expect(root == builder.root, "the root of \(count) leaves")
        }
    }
}
