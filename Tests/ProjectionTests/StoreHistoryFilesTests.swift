import EventLog
import Foundation
import LabelStoreTestSupport
import Testing

@testable import LabelProjection

/// The store keeps the history index and the checkpoints up to date as it
/// appends, and folds time travel from the nearest checkpoint: every answer
/// read through them equals the one computed by scanning the log.
@Suite struct StoreHistoryFilesTests {
    let helpers = SnapshotStoreTests()

    func policy(every records: UInt64) -> SnapshotPolicy {
        SnapshotPolicy(everyRecords: records, everyBytes: 0, onClose: true, minRecordsOnClose: 1)
    }

    /// The records `query` selects, read through `index` (`nil`: scanned).
    func answer(_ path: String, _ query: HistoryQuery, index: HistoryIndex?) throws -> [EventRecord] {
        var found: [EventRecord] = []
        try LogReader(path: path).forEachRecord(matching: query, using: index) {
            found.append($0)
            return true
        }
        return found
    }

    @Test(arguments: [41, 42] as [UInt64])
    func theStoresIndexAfterRandomWritesIsTheRebuiltIndex(seed: UInt64) throws {
        try helpers.withTemporaryDirectory { dir in
            let path = dir + "/labels.log"
            let store = try LabelStore.open(path: path, options: helpers.options(policy(every: 250)))
            for round in 0..<4 {
                try helpers.write(300 + round * 50, to: store, seed: seed &+ UInt64(round))
                store.waitForHistoryFiles()
                // While the store writes, the files cover a prefix of the log, and are used.
                let reader = try LogReader(path: path)
                let index = try #require(HistoryIndexFile.load(for: reader).index, "round \(round)")
                #expect(index.coveredSeq > 0 && index.coveredSeq <= store.lastSeq)
                #expect(CheckpointFile.load(for: reader).directory != nil)
            }
            store.close()
            store.waitForHistoryFiles()
            #expect(store.historyFilesError == nil)
            let kept = try #require(HistoryIndexFile.load(for: try LogReader(path: path)).index)
            #expect(kept.coveredSeq == store.lastSeq, "the snapshot at close brings the index up to date")
            let rebuilt = try HistoryIndexFile.update(logPath: path, rebuild: true).index
            #expect(kept == rebuilt, "the index the store kept is the one rebuilt from the log")
        }
    }

    @Test func afterACrashBetweenAnAppendAndTheIndexUpdateTheAnswersEqualScanning() throws {
        try helpers.withTemporaryDirectory { dir in
            let path = dir + "/labels.log"
            let store = try LabelStore.open(path: path, options: helpers.options(policy(every: 400)))
            try helpers.write(1_000, to: store, seed: 7)
            store.close()
            store.waitForHistoryFiles()
            // Records appended with no index update after them: what a crash right after an append leaves.
            let crashed = try LabelStore.open(path: path, options: helpers.options(.manual, create: false))
            try helpers.write(700, to: crashed, seed: 8)
            crashed.close()
            let index = try #require(HistoryIndexFile.load(for: try LogReader(path: path)).index)
            #expect(index.coveredSeq == 1_000)
            let (all, _) = try LogReader.readAll(path: path)
            var rng = SeededGenerator(seed: 9)
            let ids = Array(Set(all.compactMap(\.event.labelID)))
            for _ in 0..<40 {
                var query = HistoryQuery(labels: Set((0..<Int.random(in: 1...3, using: &rng)).map { _ in ids.randomElement(using: &rng)! }))
                if Bool.random(using: &rng) {
                    let a = all.randomElement(using: &rng)!.timestamp
                    query = HistoryQuery(since: a, until: EventTimestamp(millisecondsSince1970: a.millisecondsSince1970 + 50_000))
                }
                #expect(try answer(path, query, index: index) == all.filter(query.matches), "\(query)")
            }
            // Time travel over the checkpoints that cover a prefix equals the fold.
            let reopened = try LabelStore.open(path: path, options: helpers.options(.manual, create: false))
            defer { reopened.close() }
            for seq in [1, 999, 1_000, 1_001, 1_500, 1_699] as [UInt64] {
                #expect(try reopened.state(atSeq: seq) == LabelList(replaying: all.prefix(Int(seq))), "seq \(seq)")
            }
        }
    }

    @Test(arguments: [51, 52, 53] as [UInt64])
    func stateAtSeqFromTheNearestCheckpointIsTheFold(seed: UInt64) throws {
        try helpers.withTemporaryDirectory { dir in
            let path = dir + "/labels.log"
            let store = try LabelStore.open(path: path, options: helpers.options())
            defer { store.close() }
            try helpers.write(1_300, to: store, seed: seed)
            _ = try CheckpointFile.update(logPath: path, interval: 97)
            try helpers.write(200, to: store, seed: seed &+ 100)
            let (all, _) = try LogReader.readAll(path: path)
            var rng = SeededGenerator(seed: seed)
            for _ in 0..<25 {
                let seq = UInt64.random(in: 0...store.lastSeq, using: &rng)
                #expect(try store.state(atSeq: seq) == LabelList(replaying: all.prefix(Int(seq))), "seq \(seq)")
                // The fold started from the checkpoint at or before it.
                if seq >= 97 && seq <= 1_300 { #expect(store.nearestList(atOrBefore: seq)?.list.lastSeq == seq / 97 * 97) }
            }
            // A damaged checkpoint file is not used, and the answer is the same.
            let checkpoints = CheckpointFile.path(for: path)
            try helpers.flipByte(in: checkpoints, at: 50)
            #expect(try store.state(atSeq: 700) == LabelList(replaying: all.prefix(700)))
            #expect(store.nearestList(atOrBefore: 700) == nil)
        }
    }
}
