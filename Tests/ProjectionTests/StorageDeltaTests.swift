import EventLog
import LabelStoreTestSupport
import Testing

@testable import LabelProjection

/// Storage deltas (docs/SNAPSHOTS.md, "A storage delta"), the checkpoints a
/// server list keeps between its full images: on seeded histories of every
/// kind of event (removed ids added again, renames, toggles, moves), a chain
/// of deltas applied on a full image gives the fold at every link, slot
/// numbers and removal seqs included; a delta costs what changed; a delta on
/// another seq, and every damaged or resealed delta, is refused or gives a
/// consistent list — never a trap.
@Suite struct StorageDeltaTests {
    static let historyID = testID(515_151)

    /// The lists after every `step` events of a seeded history of `events` events.
    static func lists(seed: UInt64, events: Int, step: Int, target: Int) throws -> [LabelList] {
        var generator = LargeListReferenceTests.Generator(rng: SeededGenerator(seed: seed), target: target)
        var model = ModelList()
        var list = LabelList()
        var lists: [LabelList] = []
        for _ in 0..<events {
            let event = generator.event(model)
            let seq = model.lastSeq + 1
            try list.apply(record(seq, event))
            model.apply(event, seq: seq)
            if seq % UInt64(step) == 0 { lists.append(list) }
        }
        return lists
    }

    func apply(_ delta: [UInt8], on list: inout LabelList) throws(SnapshotError) -> SnapshotHeader {
        try delta.withUnsafeBytes { raw in Result { () throws(SnapshotError) in try list.applyStorageDelta(raw) } }.get()
    }

    @Test(arguments: [(1, 7, 30), (2, 50, 200), (3, 400, 60)] as [(UInt64, Int, Int)])
    func aChainOfDeltasOnAFullImageGivesTheFoldAtEveryLink(seed: UInt64, step: Int, target: Int) throws {
        let lists = try Self.lists(seed: seed, events: step * 12, step: step, target: target)
        try #require(lists.count == 12)
        let image = lists[0].snapshotBytes(logID: Self.historyID, fingerprint: 0)
        var chain = try image.withUnsafeBytes { raw in Result { () throws(SnapshotError) in try LabelList.decodeSnapshot(raw) } }.get()
            .list
        for k in 1..<lists.count {
            let delta = lists[k].storageDeltaBytes(from: lists[k - 1], historyID: Self.historyID)
            let header = try apply(delta, on: &chain)
            chain._checkInvariants()
            #expect(header.logID == Self.historyID && header.seq == lists[k].lastSeq)
            #expect(chain == lists[k], "link \(k) at seq \(lists[k].lastSeq)")
            #expect(chain.slots.map(\.word) == lists[k].slots.map(\.word), "removal seqs and versions, slot by slot")
            #expect(chain.slots.map(\.id) == lists[k].slots.map(\.id), "slot numbers survive")
        }
        // The whole chain at once (the order carried between the deltas, rebuilt once) gives the same list.
        var whole = try image.withUnsafeBytes { raw in Result { () throws(SnapshotError) in try LabelList.decodeSnapshot(raw) } }.get()
            .list
        let deltas = (1..<lists.count).map { lists[$0].storageDeltaBytes(from: lists[$0 - 1], historyID: Self.historyID) }
        let headers = try whole.applyStorageDeltas(deltas)
        whole._checkInvariants()
        #expect(headers.map(\.seq) == lists.dropFirst().map(\.lastSeq))
        #expect(whole == lists[lists.count - 1] && whole.slots.map(\.word) == lists[lists.count - 1].slots.map(\.word))
        // A damaged delta in the middle is named by its index.
        var damaged = deltas
        damaged[4][damaged[4].count - 9] ^= 0x40
        var broken = lists[0]
        do throws(StorageChainFailure) {
            _ = try broken.applyStorageDeltas(damaged)
            Issue.record("a damaged chain was applied")
        } catch {
            #expect(error.index == 4 && error.error.code == .checksumMismatch, "\(error.index) \(error.error)")
        }
        // The list the chain gives keeps folding as the fold does.
        var folded = lists[lists.count - 1]
        let next = record(folded.lastSeq + 1, .added(id: testID(999_001), title: "after", isEnabled: true, index: 0))
        #expect(try chain.apply(next) == folded.apply(next))
        #expect(chain == folded)
    }

    /// An id prefix is resolved from a chain's ids alone: the full image's ids
    /// column and each delta's new ids are every id of the list at the chain's
    /// end, in slot order; a chain out of order is refused.
    @Test func aChainsIDsAreEveryIDOfItsListWithoutDecodingIt() throws {
        let lists = try Self.lists(seed: 6, events: 600, step: 100, target: 80)
        let image = lists[0].snapshotBytes(logID: Self.historyID, fingerprint: 0)
        let deltas = (1..<lists.count).map { lists[$0].storageDeltaBytes(from: lists[$0 - 1], historyID: Self.historyID) }
        let found = try #require(try LabelList.storedCheckpointIDs(image: image, deltas: deltas))
        #expect(found.seq == lists[lists.count - 1].lastSeq && found.historyIDs == [Self.historyID])
        #expect(found.ids == lists[lists.count - 1].slots.map(\.id))
        #expect(lists[lists.count - 1].slots.count > lists[0].slots.count, "the deltas add ids")
        #expect(throws: SnapshotError.self) { _ = try LabelList.storedCheckpointIDs(image: image, deltas: Array(deltas.dropFirst())) }
        var damaged = deltas
        damaged[1][damaged[1].count / 2] ^= 1
        #expect(throws: SnapshotError.self) { _ = try LabelList.storedCheckpointIDs(image: image, deltas: damaged) }
    }

    @Test func aDeltaCostsWhatChangedNotTheList() throws {
        var list = LabelList()
        for i in 0..<2_000 {
            try list.apply(record(UInt64(i + 1), .added(id: testID(i + 1), title: "label number \(i)", isEnabled: true, index: i)))
        }
        let before = list
        for i in 0..<20 {
            let seq = list.lastSeq + 1
            try list.apply(record(seq, .renamed(id: testID(i * 50 + 1), oldTitle: "label number \(i * 50)", newTitle: "renamed \(i)")))
        }
        try list.apply(record(list.lastSeq + 1, .moved(id: testID(7), from: 6, to: 1_500)))
        let delta = list.storageDeltaBytes(from: before, historyID: Self.historyID)
        let full = list.snapshotBytes(logID: Self.historyID, fingerprint: 0)
        #expect(delta.count * 50 < full.count, "\(delta.count) bytes of delta against \(full.count) of image")
        var applied = before
        _ = try apply(delta, on: &applied)
        #expect(applied == list)
    }

    @Test func aDeltaOnAnotherSeqOrNotADeltaIsRefused() throws {
        let lists = try Self.lists(seed: 4, events: 90, step: 30, target: 20)
        let delta = lists[2].storageDeltaBytes(from: lists[1], historyID: Self.historyID)
        var wrong = lists[0]
        let error = catching { () throws(SnapshotError) in _ = try apply(delta, on: &wrong) }
        #expect(
            error?.code == .invalidContent && error?.message.contains("applies to seq 60, not to seq 30") == true,
            "\(String(describing: error))")
        var list = lists[1]
        let image = lists[2].snapshotBytes(logID: Self.historyID, fingerprint: 0)
        #expect(catching { () throws(SnapshotError) in _ = try apply(image, on: &list) }?.message.contains("not a storage delta") == true)
        // And a full-image decoder refuses a delta.
        #expect(throws: SnapshotError.self) {
            _ = try delta.withUnsafeBytes { raw in Result { () throws(SnapshotError) in try LabelList.decodeSnapshot(raw) } }.get()
        }
    }

    /// 12,000 seeded mutations of valid deltas (as the snapshot fuzzing
    /// mutates images), half resealed with a correct checksum so the content
    /// checks see them: each is refused with a named error, or gives a list
    /// that passes every internal check.
    @Test func damagedOrResealedDeltasAreRefusedOrGiveAConsistentList() throws {
        var rng = SeededGenerator(seed: 2027)
        let lists = try Self.lists(seed: 5, events: 600, step: 150, target: 60)
        let pairs = (1..<lists.count).map { (lists[$0 - 1], lists[$0].storageDeltaBytes(from: lists[$0 - 1], historyID: Self.historyID)) }
        var applied = 0, rejected = 0
        var codes: [SnapshotError.Code: Int] = [:]
        for i in 0..<12_000 {
            var (list, bytes) = pairs[i % pairs.count]
            for _ in 0..<Int.random(in: 1...3, using: &rng) { SnapshotCodecTests.mutate(&bytes, &rng) }
            if i % 2 == 0 { SnapshotCodecTests.reseal(&bytes) }
            do throws(SnapshotError) {
                let header = try apply(bytes, on: &list)
                list._checkInvariants()
                #expect(list.lastSeq == header.seq && list.count <= list.slots.count)
                applied += 1
            } catch {
                #expect(!error.message.isEmpty)
                codes[error.code, default: 0] += 1
                rejected += 1
            }
        }
        #expect(applied + rejected == 12_000)
        #expect(
            codes[.checksumMismatch, default: 0] > 500 && codes[.invalidContent, default: 0] > 500,
            "both the checksum and the content checks must be exercised: \(codes)")
    }

    func catching(_ body: () throws(SnapshotError) -> Void) -> SnapshotError? {
        do throws(SnapshotError) {
            try body()
            return nil
        } catch {
            return error
        }
    }
}
