import EventLog
import Foundation
import LabelStoreTestSupport
import Testing

@testable import LabelProjection

/// A store's retention policy (`LabelStore.Options.retention`): applied when
/// it opens its log, it cuts the records the policy lets go to an archive (or
/// drops them) and the store opens from the base with the same list and head;
/// too small a cut, or a failing one, leaves the log as it was and is reported.
@Suite struct RetentionTests {
    let helpers = SnapshotStoreTests()

    /// A log of `n` random writes at `path`, closed; returns the list and head at its end.
    func history(_ n: Int, at path: String, seed: UInt64) throws -> (LabelList, HistoryHead) {
        let store = try LabelStore.open(path: path, options: helpers.options())
        defer { store.close() }
        try helpers.write(n, to: store, seed: seed)
        return (store.snapshot, try store.head)
    }

    func options(_ retention: LabelStore.Retention) -> LabelStore.Options {
        var options = helpers.options(create: false)
        options.retention = retention
        return options
    }

    @Test func aStoreOpeningWithRetentionArchivesAllButTheLastRecordsAndOpensFromTheBase() throws {
        try helpers.withTemporaryDirectory { dir in
            let path = dir + "/labels.labellog"
            let (list, head) = try history(200, at: path, seed: 61)
            let last = list.lastSeq
            let policy = LabelStore.Retention(keep: .lastRecords(50), minimumCut: 10)
            let store = try LabelStore.open(path: path, options: options(policy))
            let report = try #require(store.retentionReport)
            #expect(report.error == nil && report.cut?.cut == 1...(last - 50), "\(report)")
            #expect(try LogReader(path: path).header.firstSeq == last - 49)
            let archive = dir + "/labels.1-\(last - 50).labellog"
            #expect(FileManager.default.fileExists(atPath: archive))
            #expect(try LogReader(path: archive).header.firstSeq == 1)
            let headNow = try store.head
            #expect(store.snapshot == list && headNow == head, "the list and the head are the ones before the cut")
            try store.add("after retention")
            store.close()

            // Reopened: 51 records kept, a cut of 1 is under the minimum: nothing changes.
            let again = try LabelStore.open(path: path, options: options(policy))
            #expect(again.retentionReport?.cut == nil && again.retentionReport?.error == nil)
            #expect(try LogReader(path: path).header.firstSeq == last - 49)
            again.close()
        }
    }

    @Test func retentionByAgeCutsTheRecordsBeforeTheFirstOneStampedWithinTheDuration() throws {
        try helpers.withTemporaryDirectory { dir in
            let path = dir + "/labels.log"
            _ = try history(120, at: path, seed: 62)
            let (records, _) = try LogReader.readAll(path: path)
            let pivot = records[79]  // seq 80
            let now = EventTimestamp(millisecondsSince1970: pivot.timestamp.millisecondsSince1970 + 3_600_000)
            let expected = records.prefix { $0.timestamp < pivot.timestamp }.last?.seq
            let report = try LabelStore.applyRetention(
                path: path, LabelStore.Retention(keep: .within(.seconds(3_600)), disposal: .drop, minimumCut: 1), now: now)
            #expect(report?.cut == 1...(try #require(expected)), "\(String(describing: report))")
            let reader = try LogReader(path: path)
            #expect(reader.header.base?.disposition == .dropped && reader.header.firstSeq == expected! + 1)
            #expect(!(try FileManager.default.contentsOfDirectory(atPath: dir)).contains { $0.hasSuffix(".labellog") })
            // Nothing is older than the duration now: a second pass cuts nothing.
            #expect(
                try LabelStore.applyRetention(path: path, LabelStore.Retention(keep: .within(.seconds(3_600)), minimumCut: 1), now: now)
                    == nil)
        }
    }

    @Test func aStoreOpeningWithRetentionByAgeCutsWhenTheOldestRecordsAreOldEnough() throws {
        try helpers.withTemporaryDirectory { dir in
            let path = dir + "/labels.labellog"
            let (list, head) = try history(150, at: path, seed: 64)
            let (records, _) = try LogReader.readAll(path: path)
            let pivot = records[99].timestamp.millisecondsSince1970  // seq 100
            var options = options(LabelStore.Retention(keep: .within(.seconds(60)), minimumCut: 40))
            // Nothing is a minute old yet: nothing is due, the log stays as it is.
            options.clock = { EventTimestamp(millisecondsSince1970: records[0].timestamp.millisecondsSince1970 + 59_000) }
            let early = try LabelStore.open(path: path, options: options)
            #expect(early.retentionReport?.cut == nil && early.retentionReport?.error == nil)
            early.close()
            #expect(try LogReader(path: path).header.firstSeq == 1)
            // A minute after seq 100: the records stamped before it go.
            options.clock = { EventTimestamp(millisecondsSince1970: pivot + 60_000) }
            let store = try LabelStore.open(path: path, options: options)
            defer { store.close() }
            let expected = try #require(records.prefix { $0.timestamp.millisecondsSince1970 < pivot }.last?.seq)
            #expect(store.retentionReport?.cut?.cut == 1...expected, "\(String(describing: store.retentionReport))")
            let headNow = try store.head
            #expect(store.snapshot == list && headNow == head)
            #expect(try LogReader(path: path).header.firstSeq == expected + 1)
        }
    }

    @Test func aRetentionThatCannotRunLeavesTheLogAndTheStoreOpens() throws {
        try helpers.withTemporaryDirectory { dir in
            let path = dir + "/labels.labellog"
            let (list, _) = try history(100, at: path, seed: 63)
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            // The archive's name is taken (say, by an earlier cut that crashed before replacing the log).
            let taken = LabelStore.archivePath(forLog: path, directory: nil, cut: 1...(list.lastSeq - 20))
            try Data("someone's file".utf8).write(to: URL(fileURLWithPath: taken))
            let store = try LabelStore.open(path: path, options: options(LabelStore.Retention(keep: .lastRecords(20), minimumCut: 1)))
            defer { store.close() }
            let error = try #require(store.retentionReport?.error)
            guard case .storage(let cause) = error.code else {
                Issue.record("not a storage error: \(error)")
                return
            }
            #expect(cause.code == .fileExists && cause.message.contains("archive"), "\(cause)")
            #expect(store.snapshot == list)
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)).prefix(before.count) == before, "the log was changed")
            #expect(try Data(contentsOf: URL(fileURLWithPath: taken)) == Data("someone's file".utf8))
        }
    }

    /// A log of 100 random writes at `DIR/labels.labellog` and, beside it, what
    /// a cut of all but its last 20 records writes first: the archive, byte for
    /// byte the log's first records (made by cutting a copy); the log is not cut.
    func logWithItsFirstArchive(in dir: String, seed: UInt64) throws -> (path: String, list: LabelList, lastCut: UInt64, archive: String) {
        let path = dir + "/labels.labellog"
        let (list, _) = try history(100, at: path, seed: seed)
        let lastCut = list.lastSeq - 20
        let copy = dir + "/copy.labellog"
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        let archive = LabelStore.archivePath(forLog: path, directory: nil, cut: 1...lastCut)
        try LabelStore.cutHistory(path: copy, through: lastCut, archiveTo: archive)
        return (path, list, lastCut, archive)
    }

    @Test func anArchiveLeftByACutThatStoppedBeforeReplacingTheLogIsWrittenAgain() throws {
        try helpers.withTemporaryDirectory { dir in
            let (path, list, lastCut, leftover) = try logWithItsFirstArchive(in: dir, seed: 65)
            #expect(LabelStore.isLeftoverArchive(leftover, of: path, through: lastCut))
            #expect(!LabelStore.isLeftoverArchive(leftover, of: path, through: lastCut - 1))
            let store = try LabelStore.open(path: path, options: options(LabelStore.Retention(keep: .lastRecords(20), minimumCut: 1)))
            defer { store.close() }
            #expect(
                store.retentionReport?.error == nil && store.retentionReport?.cut?.cut == 1...lastCut,
                "\(String(describing: store.retentionReport))")
            #expect(store.snapshot == list)
            #expect(try LogReader.readAll(path: leftover).records.count == Int(lastCut))
        }
    }

    @Test func retentionRemovesALeftoverArchiveOnlyHoldingTheLogsLock() throws {
        try helpers.withTemporaryDirectory { dir in
            // An archive of the log's first records, as a cut of the store holding the log writes before it
            // replaces the log: retention run from elsewhere meanwhile must not remove it.
            let (path, _, lastCut, archive) = try logWithItsFirstArchive(in: dir, seed: 66)
            let holder = try LabelStore.open(path: path, options: helpers.options(create: false))
            let policy = LabelStore.Retention(keep: .lastRecords(20), minimumCut: 1)
            #expect(throws: StoreError.self) { try LabelStore.applyRetention(path: path, policy) }
            #expect(FileManager.default.fileExists(atPath: archive), "the archive was removed while another writer held the log")
            holder.close()
            // Holding the lock, the same call removes it and cuts.
            #expect(try LabelStore.applyRetention(path: path, policy)?.cut == 1...lastCut)
            #expect(try LogReader.readAll(path: archive).records.count == Int(lastCut))
        }
    }

    @Test func archiveNamesFollowTheLogsStem() {
        #expect(LabelStore.archivePath(forLog: "/a/b/labels.labellog", directory: nil, cut: 1...9) == "/a/b/labels.1-9.labellog")
        #expect(LabelStore.archivePath(forLog: "labels.log", directory: nil, cut: 3...4) == "labels.log.3-4.labellog")
        #expect(LabelStore.archivePath(forLog: "/a/x.labellog", directory: "/old", cut: 1...2) == "/old/x.1-2.labellog")
    }
}
