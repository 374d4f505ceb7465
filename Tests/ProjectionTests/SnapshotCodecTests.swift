import EventLog
import LabelStoreTestSupport
import Testing

@testable import LabelProjection

/// The snapshot encoding: exact round trips, and seeded mutation fuzzing of
/// the decoder (every input decodes to a consistent list or throws a
/// ``SnapshotError``; nothing traps or allocates beyond the input's size).
@Suite struct SnapshotCodecTests {
    static let logID = testID(424_242)

    /// A list folded from `steps` random valid events (adds, removes, moves, toggles, renames, re-adds).
    static func randomList(seed: UInt64, steps: Int, target: Int) throws -> LabelList {
        var generator = LargeListReferenceTests.Generator(rng: SeededGenerator(seed: seed), target: target)
        var model = ModelList()
        var list = LabelList()
        for _ in 0..<steps {
            let event = generator.event(model)
            let seq = model.lastSeq + 1
            try list.apply(record(seq, event))
            model.apply(event, seq: seq)
        }
        return list
    }

    func decode(_ bytes: [UInt8]) throws(SnapshotError) -> (list: LabelList, header: SnapshotHeader) {
        try bytes.withUnsafeBytes { raw in Result { () throws(SnapshotError) in try LabelList.decodeSnapshot(raw) } }.get()
    }

    @Test(arguments: [(0, 0), (1, 5), (2, 300), (3, 3000)] as [(UInt64, Int)])
    func snapshotRoundTripsTheWholeStateIncludingTombstonesAndSlotNumbers(seed: UInt64, steps: Int) throws {
        let list = try Self.randomList(seed: seed, steps: steps, target: 400)
        let bytes = list.snapshotBytes(logID: Self.logID, fingerprint: 0xDEAD_BEEF)
        let (decoded, header) = try decode(bytes)
        decoded._checkInvariants()
        #expect(decoded == list)
        #expect(decoded.slots.map(\.id) == list.slots.map(\.id), "slot numbers survive, so views built on either agree")
        #expect(decoded.knownIDs == list.knownIDs)
        #expect(header.logID == Self.logID && header.seq == list.lastSeq && header.fingerprint == 0xDEAD_BEEF)
        #expect(header.listVersion == list.listVersion && header.lastTimestamp == list.lastTimestamp)
        // Both keep folding alike.
        var a = list, b = decoded
        let next = record(list.lastSeq + 1, .added(id: testID(777_001), title: "after", isEnabled: true, index: 0))
        #expect(try a.apply(next) == b.apply(next))
        #expect(a == b)
    }

    @Test func decoderNamesWhatIsWrong() throws {
        let list = try Self.randomList(seed: 5, steps: 50, target: 30)
        let bytes = list.snapshotBytes(logID: Self.logID, fingerprint: 1)
        #expect(throws: SnapshotError(.notASnapshot, "the file does not start with the snapshot magic \"LABELSNP\"")) {
            _ = try decode(Array("LABELLOG".utf8))
        }
        #expect((try? decode([])) == nil)
        var flipped = bytes
        flipped[flipped.count / 2] ^= 0x10
        #expect(throws: SnapshotError.self) { _ = try decode(flipped) }
        #expect(catching { _ = try decode(flipped) }?.code == .checksumMismatch)
        #expect(catching { _ = try decode(Array(bytes.dropLast(7))) }?.code == .checksumMismatch)
        var newer = bytes
        newer[8] = 9
        Self.reseal(&newer)
        #expect(catching { _ = try decode(newer) }?.code == .unsupportedVersion)
        var absurd = bytes
        absurd[SnapshotFormat.headerLength] = 0xFF  // the slot count becomes a huge varint prefix
        absurd.insert(contentsOf: [0xFF, 0xFF, 0xFF, 0x0F], at: SnapshotFormat.headerLength + 1)
        Self.reseal(&absurd)
        let error = catching { _ = try decode(absurd) }
        #expect(error?.code == .invalidContent && error?.message.contains("slot count") == true)
    }

    @Test func aSnapshotNamingOneIDInTwoSlotsIsRefused() throws {
        var list = LabelList()
        try list.apply(record(1, .added(id: testID(1), title: "A", isEnabled: true, index: 0)))
        try list.apply(record(2, .added(id: testID(2), title: "B", isEnabled: true, index: 1)))
        var bytes = list.snapshotBytes(logID: Self.logID, fingerprint: 0)
        let first = withUnsafeBytes(of: testID(1).uuid.uuid) { Array($0) }, second = withUnsafeBytes(of: testID(2).uuid.uuid) { Array($0) }
        let at = (0...(bytes.count - 16)).first { Array(bytes[$0..<($0 + 16)]) == second }!
        bytes.replaceSubrange(at..<(at + 16), with: first)
        Self.reseal(&bytes)
        let error = catching { _ = try decode(bytes) }
        #expect(error?.code == .invalidContent && error?.message.contains("two slots") == true)
    }

    @Test func anOrderNamingARemovedSlotOrOneSlotTwiceIsRefusedAndAnyPermutationOfTheLiveSlotsIsRead() throws {
        var list = LabelList()
        for (n, title) in ["A", "B", "C"].enumerated() {
            try list.apply(record(UInt64(n + 1), .added(id: testID(n + 1), title: title, isEnabled: true, index: n)))
        }
        try list.apply(record(4, .removed(id: testID(2), index: 1, title: "B", isEnabled: true)))
        let bytes = list.snapshotBytes(logID: Self.logID, fingerprint: 0)
        // The order is the body's last section: one one-byte varint per live label, then the 4-byte trailer.
        let order = bytes.count - 6
        #expect(Array(bytes[order..<(order + 2)]) == [0, 2])
        func withOrder(_ numbers: [UInt8]) -> [UInt8] {
            var changed = bytes
            changed.replaceSubrange(order..<(order + 2), with: numbers)
            Self.reseal(&changed)
            return changed
        }
        for (numbers, slot) in [([0, 1], 1), ([0, 0], 0), ([2, 2], 2)] as [([UInt8], Int)] {
            let error = catching { _ = try decode(withOrder(numbers)) }
            #expect(
                error?.code == .invalidContent && error?.message.contains("position 1 names slot \(slot)") == true,
                "\(numbers): \(String(describing: error))")
        }
        let swapped = try decode(withOrder([2, 0])).list
        swapped._checkInvariants()
        #expect(swapped.labels.map(\.title) == ["C", "A"])
    }

    @Test func titlesAreCheckedOneByOneEvenThoughTheyAreStoredBackToBack() throws {
        var list = LabelList()
        try list.apply(record(1, .added(id: testID(1), title: "\u{E9}", isEnabled: true, index: 0)))  // C3 A9
        try list.apply(record(2, .added(id: testID(2), title: "a", isEnabled: true, index: 1)))
        var bytes = list.snapshotBytes(logID: Self.logID, fingerprint: 0)
        // Header, three one-byte counts, two ids, two states, two one-byte seqs: then the two title lengths.
        let lengths = SnapshotFormat.headerLength + 3 + 32 + 2 + 2
        #expect(bytes[lengths] == 2 && bytes[lengths + 1] == 1)
        bytes[lengths] = 1
        bytes[lengths + 1] = 2  // the blob C3 A9 61 stays valid UTF-8, but "\u{C3}" alone and "\u{A9}a" are not
        Self.reseal(&bytes)
        let error = catching { _ = try decode(bytes) }
        #expect(
            error?.code == .invalidContent && error?.message.contains("starts inside a character") == true, "\(String(describing: error))")
    }

    @Test func bulkBuiltIndexFindsEverySlotLikeIncrementalInserts() {
        let ids = (0..<5000).map { testID($0) }
        var index = SlotIndex()
        #expect(index.build(count: ids.count) { ids[Int($0)] } == nil)
        index._checkInvariants(slotCount: ids.count) { ids[Int($0)] }
        #expect(index.find(testID(99_999)) { ids[Int($0)] } == nil)
        let doubled = ids + [ids[1234]]
        #expect(index.build(count: doubled.count) { doubled[Int($0)] } == 5000)
    }

    func catching(_ body: () throws -> Void) -> SnapshotError? {
        do { try body() } catch { return error as? SnapshotError }
        return nil
    }

    /// Recomputes the trailing checksum, so a mutation reaches the content checks.
    static func reseal(_ bytes: inout [UInt8]) {
        guard bytes.count >= 4 else { return }
        let crc = bytes[..<(bytes.count - 4)].withUnsafeBytes { CRC32C.checksum($0) }
        withUnsafeBytes(of: crc.littleEndian) { bytes.replaceSubrange((bytes.count - 4)..., with: $0) }
    }

    /// 24,000 seeded mutations of valid snapshots: bit flips, byte overwrites,
    /// truncations, insertions, deletions, and absurd varints; half resealed
    /// with a correct checksum so the content decoder sees them.
    @Test func fuzzedSnapshotsDecodeToAConsistentListOrThrowAClearError() throws {
        var rng = SeededGenerator(seed: 2026)
        let seeds = try [
            Self.randomList(seed: 7, steps: 0, target: 0),
            Self.randomList(seed: 8, steps: 40, target: 20),
            Self.randomList(seed: 9, steps: 400, target: 120)
        ]
        .map { $0.snapshotBytes(logID: Self.logID, fingerprint: 7) }
        var decoded = 0, rejected = 0
        var codes: [SnapshotError.Code: Int] = [:]
        for i in 0..<24_000 {
            var bytes = seeds[i % seeds.count]
            let mutations = Int.random(in: 1...3, using: &rng)
            for _ in 0..<mutations { Self.mutate(&bytes, &rng) }
            if i % 2 == 0 { Self.reseal(&bytes) }
            do throws(SnapshotError) {
                let (list, header) = try decode(bytes)
                list._checkInvariants()
                #expect(list.lastSeq == header.seq && list.count <= list.slots.count)
                decoded += 1
            } catch {
                #expect(!error.message.isEmpty)
                codes[error.code, default: 0] += 1
                rejected += 1
            }
        }
        #expect(decoded + rejected == 24_000)
        #expect(
            codes[.checksumMismatch, default: 0] > 1000 && codes[.invalidContent, default: 0] > 1000,
            "both the checksum and the content checks must be exercised: \(codes)")
    }

    static func mutate(_ bytes: inout [UInt8], _ rng: inout SeededGenerator) {
        guard !bytes.isEmpty else {
            bytes = [UInt8.random(in: 0...255, using: &rng)]
            return
        }
        let at = Int.random(in: 0..<bytes.count, using: &rng)
        switch Int.random(in: 0..<8, using: &rng) {
        case 0, 1: bytes[at] ^= 1 << UInt8.random(in: 0...7, using: &rng)
        case 2: bytes[at] = UInt8.random(in: 0...255, using: &rng)
        case 3: bytes.removeSubrange(Int.random(in: 0...bytes.count, using: &rng)...)
        case 4: bytes.insert(UInt8.random(in: 0...255, using: &rng), at: at)
        case 5: bytes.remove(at: at)
        case 6: bytes.replaceSubrange(at..<min(bytes.count, at + 5), with: [0xFF, 0xFF, 0xFF, 0xFF, 0x7F])
        default:
            // Aim at the counts right after the header.
            let counts = min(bytes.count - 1, SnapshotFormat.headerLength + Int.random(in: 0...3, using: &rng))
            bytes[counts] = UInt8.random(in: 0...255, using: &rng)
        }
    }
}
