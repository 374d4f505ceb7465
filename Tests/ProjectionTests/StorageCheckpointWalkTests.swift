import EventLog
import LabelStoreTestSupport
import Testing

@testable import LabelProjection

/// The walk `verify` takes over a server list's checkpoint rows (each image
/// read once, a delta applied to the list of the row before it) gives the
/// fold at every row, refuses what a reader refuses, and `firstDifference`
/// names how a list differs from the one expected — or nothing for an equal one.
@Suite struct StorageCheckpointWalkTests {
    let historyID = StorageDeltaTests.historyID

    /// A storage holding checkpoint rows, which hands out a row's chain as a
    /// server does (its full image and the deltas down to it).
    final class RowsStorage: CheckpointStorage, @unchecked Sendable {
        let log = InMemoryEventLog()
        let rows: [UInt64: CheckpointRow]
        let checkpointHistoryID: LabelID
        init(_ rows: [CheckpointRow], historyID: LabelID) {
            self.rows = Dictionary(uniqueKeysWithValues: rows.map { ($0.seq, $0) })
            self.checkpointHistoryID = historyID
        }
        var lastSeq: UInt64 { log.lastSeq }
        var checkpointInterval: UInt64 { 0 }
        func refreshLastSeq() throws(EventLogError) -> UInt64 { log.lastSeq }
        func waitForAppends(after seq: UInt64, timeout: Duration) throws(EventLogError) -> Bool { false }
        func read(from seq: UInt64, maxCount: Int) throws(EventLogError) -> [EventRecord] { try log.read(from: seq, maxCount: maxCount) }
        func append(_ entries: [LogEntry], expectedLastSeq: UInt64?) throws(EventLogError) -> [EventRecord] {
            try log.append(entries, expectedLastSeq: expectedLastSeq)
        }
        func checkpoint(atOrBefore seq: UInt64) throws(EventLogError) -> CheckpointLookup {
            guard let newest = rows.keys.filter({ $0 <= seq }).max(), var row = rows[newest] else {
                return CheckpointLookup(checkpoint: nil)
            }
            var deltas: [StoredCheckpoint.Delta] = []
            while let base = row.deltaOn, let earlier = rows[base] {
                deltas.insert(StoredCheckpoint.Delta(seq: row.seq, image: row.image), at: 0)
                row = earlier
            }
            guard row.deltaOn == nil else { return CheckpointLookup(checkpoint: nil, skipped: ["a broken chain"]) }
            return CheckpointLookup(
                checkpoint: StoredCheckpoint(seq: newest, chainValue: 0, image: row.image, imageSeq: row.seq, deltas: deltas))
        }
        func storeCheckpoint(seq: UInt64, image: [UInt8], frontier: HistoryTreeBuilder?) throws(EventLogError) -> Bool { false }
        func checkpointHeads(in seqs: ClosedRange<UInt64>) throws(EventLogError) -> [CheckpointHead] { [] }
    }

    func walk(_ rows: [CheckpointRow], historyID: LabelID? = nil) -> StorageCheckpointWalk {
        StorageCheckpointWalk(storage: RowsStorage(rows, historyID: historyID ?? self.historyID))
    }

    /// Rows of chains over the lists after every `step` events: a full image every `fullEvery`, deltas between.
    func rows(_ lists: [LabelList], fullEvery: Int) -> [CheckpointRow] {
        lists.enumerated().map { k, list in
            k % fullEvery == 0
                ? CheckpointRow(
                    seq: list.lastSeq, chainValue: 0, deltaOn: nil, image: list.snapshotBytes(logID: historyID, fingerprint: 0))
                : CheckpointRow(
                    seq: list.lastSeq, chainValue: 0, deltaOn: lists[k - 1].lastSeq,
                    image: list.storageDeltaBytes(from: lists[k - 1], historyID: historyID))
        }
    }

    @Test(arguments: [(11, 3), (12, 1), (13, 5)] as [(UInt64, Int)])
    func theWalkGivesTheFoldAtEveryRow(seed: UInt64, fullEvery: Int) throws {
        let lists = try StorageDeltaTests.lists(seed: seed, events: 40 * 10, step: 40, target: 60)
        let chain = rows(lists, fullEvery: fullEvery)
        var walk = walk(chain)
        for (row, expected) in zip(chain, lists) {
            let list = try walk.list(of: row).get()
            #expect(list == expected && list.firstDifference(from: expected) == nil, "the row at seq \(row.seq)")
        }
    }

    /// Hosts writing in turn each write a delta on the checkpoint they wrote
    /// or opened from, not always the row before it: the walk reads that
    /// one's chain from the storage, and still gives the fold.
    @Test func aDeltaOnAnEarlierRowThanTheOneBeforeItIsAppliedToThatOne() throws {
        let lists = try StorageDeltaTests.lists(seed: 15, events: 200, step: 40, target: 30)
        var chain = rows(lists, fullEvery: 5)
        // The row at lists[3] written on lists[1] (skipping lists[2]), as a second host would.
        chain[3] = CheckpointRow(
            seq: lists[3].lastSeq, chainValue: 0, deltaOn: lists[1].lastSeq,
            image: lists[3].storageDeltaBytes(from: lists[1], historyID: historyID))
        var walk = walk(chain)
        for (row, expected) in zip(chain, lists) {
            #expect(try walk.list(of: row).get() == expected, "the row at seq \(row.seq)")
        }
    }

    @Test func aDeltaOnARowThatCannotBeReadAndAnotherHistoryAreRefused() throws {
        let lists = try StorageDeltaTests.lists(seed: 14, events: 120, step: 40, target: 30)
        let chain = rows(lists, fullEvery: 3)
        // The storage lacks the row the delta at lists[2] is on.
        var skipping = walk([chain[0], chain[2]])
        _ = try skipping.list(of: chain[0]).get()
        let skipped = try #require(throws: StorageCheckpointWalk.Failure.self) { try skipping.list(of: chain[2]).get() }
        #expect(
            skipped.message.contains("is a delta on the checkpoint at seq \(lists[1].lastSeq), which cannot be read"), "\(skipped.message)")

        var foreign = walk(chain, historyID: testID(7))
        let refused = try #require(throws: StorageCheckpointWalk.Failure.self) { try foreign.list(of: chain[0]).get() }
        #expect(refused.message.contains("history \(historyID)"), "\(refused.message)")
        // A delta that applies but names another history, after this history's full image.
        var mixed = walk(chain)
        _ = try mixed.list(of: chain[0]).get()
        let otherDelta = CheckpointRow(
            seq: chain[1].seq, chainValue: 0, deltaOn: chain[0].seq,
            image: lists[1].storageDeltaBytes(from: lists[0], historyID: testID(7)))
        let mixedRefusal = try #require(throws: StorageCheckpointWalk.Failure.self) { try mixed.list(of: otherDelta).get() }
        #expect(mixedRefusal.message.contains("holds a delta of history \(testID(7))"), "\(mixedRefusal.message)")
        var damaged = walk(chain)
        var bytes = chain[0].image
        bytes[bytes.count / 2] ^= 0x40
        let broken = CheckpointRow(seq: chain[0].seq, chainValue: 0, deltaOn: nil, image: bytes)
        #expect(throws: StorageCheckpointWalk.Failure.self) { try damaged.list(of: broken).get() }
    }

    @Test func theFirstDifferenceNamesTheLabelThePositionOrTheCount() throws {
        let a = testID(1), b = testID(2), c = testID(3)
        func list(_ events: [LabelEvent]) throws -> LabelList {
            var list = LabelList()
            for (i, event) in events.enumerated() { try list.apply(record(UInt64(i + 1), event)) }
            return list
        }
        let base: [LabelEvent] = [
            .added(id: a, title: "Alpha", isEnabled: true, index: 0), .added(id: b, title: "Beta", isEnabled: false, index: 1)
        ]
        let expected = try list(base + [.removed(id: b, index: 1, title: "Beta", isEnabled: false)])
        #expect(expected.firstDifference(from: expected) == nil)
        let renamed = try list(base + [.renamed(id: a, oldTitle: "Alpha", newTitle: "Other")])
        let title = try #require(renamed.firstDifference(from: expected))
        #expect(title.contains("label \(a)") && title.contains("\"Other\"") && title.contains("\"Alpha\""), "\(title)")
        let other = try list(
            [.added(id: c, title: "Gamma", isEnabled: true, index: 0)] + base.dropFirst() + [.toggled(id: b, isEnabled: true)])
        let position = try #require(other.firstDifference(from: expected))
        #expect(position.contains("position 0 holds label \(c)") && position.contains("label \(a)"), "\(position)")
        let longer = try list(base + [.added(id: c, title: "Gamma", isEnabled: true, index: 2)])
        #expect(try #require(longer.firstDifference(from: expected)).contains("holds 3 live labels where the records give 1"))
        let shorter = try list([
            .added(id: a, title: "Alpha", isEnabled: true, index: 0), .added(id: c, title: "x", isEnabled: true, index: 1),
            .removed(id: c, index: 1, title: "x", isEnabled: true)
        ])
        let removal = try #require(shorter.firstDifference(from: expected))
        #expect(removal.contains("label \(b) was removed at seq 3 by the records"), "\(removal)")
    }
}
