import EventLog
import Foundation
import LabelStoreTestSupport
import Testing

@testable import LabelProjection

/// Cutting a log's earliest records off (docs/FORMAT.md, "Based logs"): the
/// archive holds them byte for byte and verifies alone; the log starts from a
/// base whose image is the list at the cut; a store opens it and answers every
/// seq from the cut on as before; the history's head is unchanged (the join is
/// proven by the chain and the tree's frontier); appends continue.
@Suite struct BasedLogTests {
    let helpers = SnapshotStoreTests()

    /// A log of `n` random writes at `path`, and the list at every seq.
    func history(_ n: Int, at path: String, seed: UInt64) throws -> [UInt64: LabelList] {
        let store = try LabelStore.open(path: path, options: helpers.options())
        defer { store.close() }
        try helpers.write(n, to: store, seed: seed)
        var lists: [UInt64: LabelList] = [:]
        for seq in stride(from: UInt64(1), through: store.lastSeq, by: 37) { lists[seq] = try store.state(atSeq: seq) }
        lists[store.lastSeq] = store.snapshot
        return lists
    }

    func head(_ path: String) throws -> HistoryHead { try HistoryProver.head(of: HistoryRecords(path: path)) }

    @Test(arguments: [3, 4] as [UInt64])
    func aCutLogAnswersAsBeforeFromTheCutOnAndItsArchiveJoinsIt(seed: UInt64) throws {
        try helpers.withTemporaryDirectory { dir in
            let path = dir + "/labels.log"
            let archive = dir + "/labels.log.archive-1"
            let lists = try history(900, at: path, seed: seed)
            let (before, _) = try LogReader.readAll(path: path)
            let headBefore = try head(path)
            let cut = UInt64(before.count / 2)
            let headAfterCut = try HistoryProver.head(of: HistoryRecords(path: path), atSeq: cut + 5)

            let report = try LabelStore.cutHistory(path: path, through: cut, archiveTo: archive)
            #expect(report.cut == 1...cut && report.keptRecords == UInt64(before.count) - cut)

            // The archive: the records 1…cut as they were, a log of its own.
            let (archived, archiveReport) = try LogReader.readAll(path: archive)
            #expect(archived == Array(before.prefix(Int(cut))) && archiveReport.damage == nil)
            // The log: based, its records the rest, its head the whole history's.
            let reader = try LogReader(path: path)
            #expect(reader.header.version == LogFormat.basedVersion && reader.header.firstSeq == cut + 1)
            guard case .archived(let name)? = reader.header.base?.disposition else {
                Issue.record("the base does not name the archive")
                return
            }
            #expect(name == "labels.log.archive-1")
            let (kept, _) = try LogReader.readAll(path: path)
            #expect(kept == Array(before.dropFirst(Int(cut))))
            #expect(try head(path) == headBefore, "the log's head after the cut is not the whole history's")
            #expect(try head(archive).seq == cut)

            // A store opens from the base and answers every seq from the cut on as before.
            let store = try LabelStore.open(path: path, options: helpers.options(create: false))
            #expect(store.snapshot == lists[store.lastSeq])
            #expect(try store.head == headBefore, "the store's head of the based log is not the whole history's")
            #expect(try store.historyHead(atSeq: cut + 5) == headAfterCut)
            // An archived seq's head is hashed through the archive beside the log (LabelStore.history()).
            #expect(try store.historyHead(atSeq: cut) == head(archive))
            #expect(try store.historyHead(atSeq: cut - 1).seq == cut - 1)
            for (seq, list) in lists where seq >= cut { #expect(try store.state(atSeq: seq) == list, "seq \(seq)") }
            #expect(try store.state(atSeq: cut) == LabelList.origin(of: reader.header, path: path))
            // Archived seqs are answered from the archive beside the log (LabelStore.history()).
            for (seq, list) in lists where seq < cut { #expect(try store.state(atSeq: seq) == list, "archived seq \(seq)") }
            // Appends continue the chain.
            let id = try store.add("after the cut")
            #expect(store.snapshot.label(id)?.title == "after the cut")
            store.close()
            let reopened = try LabelStore.open(path: path, options: helpers.options(create: false))
            #expect(reopened.snapshot == store.snapshot)
            reopened.close()
            let (all, report2) = try LogReader.readAll(path: path)
            #expect(all.count == kept.count + 1 && report2.damage == nil)

            // The history index of a based log answers as scanning does.
            _ = try HistoryIndexFile.update(logPath: path)
            let index = try #require(HistoryIndexFile.load(for: LogReader(path: path)).index)
            #expect(index.coveredSeq == UInt64(before.count) + 1)
            let label = try #require(all.first { $0.event.labelID != nil }?.event.labelID)
            var found: [EventRecord] = []
            try LogReader(path: path).forEachRecord(matching: HistoryQuery(labels: [label]), using: index) {
                found.append($0)
                return true
            }
            #expect(found == all.filter(HistoryQuery(labels: [label]).matches))
        }
    }

    @Test func aBasedLogIsCutAgainAndRecordsCanBeDropped() throws {
        try helpers.withTemporaryDirectory { dir in
            let path = dir + "/labels.log"
            let lists = try history(600, at: path, seed: 9)
            let headBefore = try head(path)
            let last = try #require(lists.keys.max())
            try LabelStore.cutHistory(path: path, through: 200, archiveTo: dir + "/a1")
            try LabelStore.cutHistory(path: path, through: 400, archiveTo: dir + "/a2")
            // The second archive is itself based: records 201…400 after the first cut's base.
            let second = try LogReader(path: dir + "/a2")
            #expect(second.header.firstSeq == 201 && second.header.base?.cut == 1...200)
            let reader = try LogReader(path: path)
            #expect(reader.header.firstSeq == 401 && reader.header.base?.cut == 201...400)
            #expect(try head(path) == headBefore)
            try LabelStore.cutHistory(path: path, through: 500, archiveTo: nil)
            let dropped = try LogReader(path: path)
            #expect(dropped.header.base?.disposition == .dropped && dropped.header.firstSeq == 501)
            #expect(try head(path) == headBefore)
            let store = try LabelStore.open(path: path, options: helpers.options(create: false))
            #expect(store.snapshot == lists[last])
            store.close()
        }
    }

    @Test func aCutIsRefusedWhileTheLogIsOpenOrTheArchiveExistsAndChangesNothing() throws {
        try helpers.withTemporaryDirectory { dir in
            let path = dir + "/labels.log"
            _ = try history(100, at: path, seed: 5)
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            let store = try LabelStore.open(path: path, options: helpers.options(create: false))
            #expect {
                try LabelStore.cutHistory(path: path, through: 50, archiveTo: dir + "/a")
            } throws: { ($0 as? StoreError)?.message.contains("in use") == true }
            store.close()
            _ = FileManager.default.createFile(atPath: dir + "/taken", contents: Data("x".utf8))
            #expect(throws: StoreError.self) { try LabelStore.cutHistory(path: path, through: 50, archiveTo: dir + "/taken") }
            #expect(throws: StoreError.self) { try LabelStore.cutHistory(path: path, through: 500, archiveTo: dir + "/b") }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
            #expect(!FileManager.default.fileExists(atPath: dir + "/a") && !FileManager.default.fileExists(atPath: dir + "/b"))
        }
    }

    @Test func aTornTailOfABasedLogIsCutOnOpenAndTheBaseStays() throws {
        try helpers.withTemporaryDirectory { dir in
            let path = dir + "/labels.log"
            _ = try history(300, at: path, seed: 11)
            try LabelStore.cutHistory(path: path, through: 250, archiveTo: nil)
            let store = try LabelStore.open(path: path, options: helpers.options(create: false))
            let kept = store.snapshot
            _ = try store.add("torn away")
            store.close()
            // The last frame cut short, as a crash mid-write leaves it.
            let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            try handle.truncate(atOffset: UInt64(size - 5))
            try handle.close()
            let reopened = try LabelStore.open(path: path, options: helpers.options(create: false))
            #expect(reopened.snapshot == kept && reopened.lastSeq == kept.lastSeq)
            _ = try reopened.add("written again")
            reopened.close()
            let (records, report) = try LogReader.readAll(path: path)
            #expect(report.damage == nil && records.first?.seq == 251 && records.last?.seq == kept.lastSeq + 1)
            // Every record cut from a based log with nothing after its base opens too.
            try LabelStore.cutHistory(path: path, through: kept.lastSeq + 1, archiveTo: nil)
            let empty = try LabelStore.open(path: path, options: helpers.options(create: false))
            #expect(empty.lastSeq == kept.lastSeq + 1 && empty.snapshot.count == kept.count + 1)
            _ = try empty.add("first after an empty base")
            empty.close()
        }
    }

    @Test(arguments: [(5, true), (6, false)] as [(UInt64, Bool)])
    func aBasedLogsCheckpointsGiveTheUnarchivedLogsAnswers(seed: UInt64, archived: Bool) throws {
        try helpers.withTemporaryDirectory { dir in
            let path = dir + "/labels.log"
            _ = try history(700, at: path, seed: seed)
            let all = try LogReader.readAll(path: path).records
            let interval: UInt64 = 19
            let cut: UInt64 = 300
            try LabelStore.cutHistory(path: path, through: cut, archiveTo: archived ? dir + "/archive" : nil)
            // The store writes them; the file covers the log from its first seq.
            let store = try LabelStore.open(path: path, options: helpers.options(create: false))
            try helpers.write(60, to: store, seed: seed &+ 1)
            try store.updateHistoryFiles()
            store.close()
            let records = try LogReader.readAll(path: path).records
            let everything = Array(all) + records.drop { $0.seq <= UInt64(all.count) }
            let update = try CheckpointFile.update(logPath: path, rebuild: true, interval: interval, fullEvery: 4)
            #expect(
                update.seqs == Array(stride(from: (cut / interval + 1) * interval, through: UInt64(everything.count), by: Int(interval))))
            let reader = try LogReader(path: path)
            let directory = try #require(CheckpointFile.load(for: reader).directory)
            #expect(directory.firstSeq == cut + 1 && directory.entries.map(\.seq) == update.seqs)
            #expect(directory.entries.contains { $0.isDelta } && directory.entries.contains { !$0.isDelta })
            var lastRemoval: [LabelID: RemovedLabel] = [:]
            for record in everything {
                if record.seq > cut, case .removed(let id, _, let title, let isEnabled) = record.event {
                    lastRemoval[id] = RemovedLabel(title: title, isEnabled: isEnabled)
                }
                guard directory.entries.contains(where: { $0.seq == record.seq }) else { continue }
                let fold = try LabelList(replaying: everything.prefix(Int(record.seq)))
                let taken = CheckpointFile.checkpoint(atOrBefore: record.seq, in: directory, reader: reader)
                #expect(taken.problems.isEmpty, "seq \(record.seq): \(taken.problems)")
                let checkpoint = try #require(taken.checkpoint)
                #expect(checkpoint.list == fold && checkpoint.list.slots.map(\.word) == fold.slots.map(\.word), "seq \(record.seq)")
                #expect(checkpoint.list.slots.map(\.id) == fold.slots.map(\.id), "seq \(record.seq)")
                // The titles of the labels removed after the cut (those before it are in the archive only).
                let removedNow = fold.knownIDs.subtracting(fold.ids)
                #expect(checkpoint.removed == lastRemoval.filter { removedNow.contains($0.key) }, "seq \(record.seq)")
            }
            // A based log's time travel from its checkpoints answers as the unarchived log did.
            let reopened = try LabelStore.open(path: path, options: helpers.options(create: false))
            defer { reopened.close() }
            for seq in stride(from: cut, through: UInt64(everything.count), by: 7) {
                #expect(try reopened.state(atSeq: seq) == (try LabelList(replaying: everything.prefix(Int(seq)))), "seq \(seq)")
            }
        }
    }
}
