import CSHA256
import Foundation
import LabelStoreTestSupport
import Testing

@testable import EventLog

/// The history tree hashed many leaves at a time (two SHA-256 streams per
/// instruction sequence, whole chunks on worker threads) gives exactly the
/// hashes of one leaf at a time: against the one-by-one builder on seeded
/// random payloads, starts (a based log's frontier) and wanted heads.
@Suite struct ChunkedTreeHasherTests {
    /// Random payloads: mostly the size of a record (one or two blocks), some empty, some past the paired size.
    func payloads(_ count: Int, using rng: inout SeededGenerator) -> [[UInt8]] {
        (0..<count).map { _ in
            let length =
                switch Int.random(in: 0..<10, using: &rng) {
                case 0: 0
                case 1: Int.random(in: 200...700, using: &rng)
                default: Int.random(in: 40...130, using: &rng)
                }
            return (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
        }
    }

    /// Checks that the chunked hasher over `records` from `start` gives the
    /// frontier and the wanted heads of appending one leaf at a time.
    func expectSameAsOneLeafAtATime(
        start: HistoryTreeBuilder, records: some Collection<[UInt8]>, wanted: Set<UInt64>, chunkSize: Int, _ what: String
    ) {
        var reference = start
        var referenceFound: [UInt64: HistoryHash] = wanted.contains(start.count) ? [start.count: start.root] : [:]
        for record in records {
            reference.append(payload: record)
            if wanted.contains(reference.count) { referenceFound[reference.count] = reference.root }
        }
        let hasher = ChunkedTreeHasher(start: start, wanted: wanted, chunkSize: chunkSize)
        for record in records { record.withUnsafeBytes { hasher.append(payload: $0) } }
        #expect(hasher.finish() == reference, "\(what): the frontier")
        #expect(hasher.found == referenceFound, "\(what): the heads")
    }

    @Test func twoInterleavedCompressionsEqualTwoSingleOnes() throws {
        try #require(SHA256.usesHardware, "this CPU has no SHA instructions: the pair is never used")
        var rng = SeededGenerator(seed: 5)
        for blocks in 1...4 {
            let a = (0..<(64 * blocks)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let b = (0..<(64 * blocks)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let singleA: [UInt32], singleB: [UInt32]
            var stateA = SHA256.initialState, stateB = SHA256.initialState
            a.withUnsafeBytes { SHA256.compress(&stateA, $0.baseAddress!, blocks: blocks) }
            b.withUnsafeBytes { SHA256.compress(&stateB, $0.baseAddress!, blocks: blocks) }
            var pairA = SHA256.initialState, pairB = SHA256.initialState
            withUnsafeMutableBytes(of: &pairA) { wa in
                withUnsafeMutableBytes(of: &pairB) { wb in
                    a.withUnsafeBytes { ra in
                        b.withUnsafeBytes { rb in
                            csha256_hardware_compress2(
                                wa.baseAddress!.assumingMemoryBound(to: UInt32.self), ra.baseAddress!,
                                wb.baseAddress!.assumingMemoryBound(to: UInt32.self), rb.baseAddress!, blocks)
                        }
                    }
                }
            }
            singleA = [stateA.0, stateA.1, stateA.2, stateA.3, stateA.4, stateA.5, stateA.6, stateA.7]
            singleB = [stateB.0, stateB.1, stateB.2, stateB.3, stateB.4, stateB.5, stateB.6, stateB.7]
            #expect([pairA.0, pairA.1, pairA.2, pairA.3, pairA.4, pairA.5, pairA.6, pairA.7] == singleA, "\(blocks) blocks")
            #expect([pairB.0, pairB.1, pairB.2, pairB.3, pairB.4, pairB.5, pairB.6, pairB.7] == singleB, "\(blocks) blocks")
        }
    }

    @Test func batchedLeavesAndPerfectRootsEqualOneAtATime() {
        var rng = SeededGenerator(seed: 8)
        for count in [1, 2, 3, 4, 7, 8, 64, 257] {
            let records = payloads(count, using: &rng)
            let bytes = records.flatMap { $0 }
            var offsets = [0]
            for record in records { offsets.append(offsets.last! + record.count) }
            var hashes = [HistoryHash](repeating: .empty, count: count)
            bytes.withUnsafeBytes { raw in
                offsets.withUnsafeBufferPointer { cuts in
                    hashes.withUnsafeMutableBufferPointer { out in
                        HistoryHash.leaves(
                            raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!, offsets: cuts.baseAddress!, count: count,
                            into: out.baseAddress!)
                    }
                }
            }
            #expect(hashes == records.map { HistoryHash.leaf(payload: $0) }, "\(count) leaves")
            guard count & (count - 1) == 0 else { continue }
            var builder = HistoryTreeBuilder()
            for hash in hashes { builder.append(leaf: hash) }
            let root = hashes.withUnsafeMutableBufferPointer { HistoryHash.perfectRoot($0.baseAddress!, count: count) }
            #expect(root == builder.root, "the root of \(count) leaves")
        }
    }

    @Test(arguments: [1, 2, 4, 16])
    func chunkedHashingGivesTheHeadsOfOneLeafAtATime(chunkSize: Int) {
        var rng = SeededGenerator(seed: UInt64(100 + chunkSize))
        for round in 0..<12 {
            // A start like a based log's: a tree of some records already.
            var start = HistoryTreeBuilder()
            for payload in payloads(Int.random(in: 0...40, using: &rng), using: &rng) { start.append(payload: payload) }
            let records = payloads(Int.random(in: 0...300, using: &rng), using: &rng)
            let last = start.count + UInt64(records.count)
            let wanted = Set((0..<3).map { _ in UInt64.random(in: start.count...max(start.count, last + 2), using: &rng) })
            expectSameAsOneLeafAtATime(
                start: start, records: records, wanted: wanted, chunkSize: chunkSize,
                "round \(round): \(records.count) records from \(start.count), heads at \(wanted.sorted())")
        }
    }

    /// Every start (a based log's frontier: any count, most of no power of
    /// two) and every number of records up to three chunks past it, with no
    /// head wanted, every seq wanted, or the chunks' ends wanted: the
    /// frontier and heads of appending one leaf at a time.
    @Test(arguments: [2, 4, 8])
    func everyStartAndLengthAroundTheChunksGivesTheHeadsOfOneLeafAtATime(chunkSize: Int) {
        var rng = SeededGenerator(seed: UInt64(200 + chunkSize))
        let all = payloads(5 * chunkSize + 4, using: &rng)
        for startCount in 0...(2 * chunkSize + 1) {
            var start = HistoryTreeBuilder()
            for payload in all.prefix(startCount) { start.append(payload: payload) }
            for count in 0...(3 * chunkSize + 2) {
                let records = all[startCount..<startCount + count]
                let last = start.count + UInt64(count)
                let wantedSets: [Set<UInt64>] = [
                    [], Set(start.count...last), Set(stride(from: 0, through: last + UInt64(chunkSize), by: chunkSize).map { UInt64($0) })
                ]
                for wanted in wantedSets {
                    expectSameAsOneLeafAtATime(
                        start: start, records: records, wanted: wanted, chunkSize: chunkSize,
                        "\(count) records from \(startCount), chunks of \(chunkSize), \(wanted.count) heads wanted")
                }
            }
        }
    }

    @Test func aSubtreeAppendedWholeGivesTheFrontierOfItsLeaves() {
        var rng = SeededGenerator(seed: 77)
        for size in [1, 2, 4, 8, 32] as [UInt64] {
            var start = HistoryTreeBuilder()
            for payload in payloads(Int(size) * Int.random(in: 0...5, using: &rng), using: &rng) { start.append(payload: payload) }
            let leaves = payloads(Int(size), using: &rng).map { HistoryHash.leaf(payload: $0) }
            var oneByOne = start
            for leaf in leaves { oneByOne.append(leaf: leaf) }
            var whole = start
            var subtree = HistoryTreeBuilder()
            for leaf in leaves { subtree.append(leaf: leaf) }
            whole.append(subtree: subtree.root, size: size)
            #expect(whole == oneByOne, "a subtree of \(size) at \(start.count)")
        }
    }
}
