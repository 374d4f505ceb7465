import EventLog
import Foundation
import LabelStoreTestSupport
import Testing

@testable import LabelProjection

/// Retention in a store that stays open: after its automatic snapshots, the
/// store cuts its own log (`LogWriter.cutHistory`) while writes go on; the
/// answers, heads and notifications are the ones a store that never cut gives.
@Suite struct OpenRetentionTests {
    let helpers = SnapshotStoreTests()

    func options(retention: LabelStore.Retention?, snapshotEvery: UInt64, create: Bool = true) -> LabelStore.Options {
        var options = helpers.options(SnapshotPolicy(everyRecords: snapshotEvery, everyBytes: 0, onClose: false), create: create)
        options.retention = retention
        return options
    }

    /// The history at `path`: the chain of archives beside it that ends
    /// where the log begins (each ending where the next begins; an archive a
    /// stopped cut left, whose records the log still holds, is not in it),
    /// then the log: every record, and whether each file joins the next.
    static func wholeHistory(_ path: String, directory: String) throws -> (records: [EventRecord], joins: Bool) {
        let archives = try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { $0.hasPrefix("labels.") && $0 != "labels.labellog" && $0.hasSuffix(".labellog") }
            .map { directory + "/" + $0 }
        // By name (`labels.FIRST-LAST.labellog`); the records read below check it.
        func lastSeq(_ archive: String) -> UInt64? {
            archive.split(separator: "/").last?.split(separator: ".").dropFirst().first?.split(separator: "-").last.flatMap { UInt64($0) }
        }
        var chain: [String] = [path]
        while let next = try LogReader(path: chain[0]).header.base?.lastCutSeq {
            guard let archive = archives.first(where: { lastSeq($0) == next }) else { break }
            chain.insert(archive, at: 0)
        }
        var records: [EventRecord] = []
        var joins = try LogReader(path: chain[0]).header.firstSeq == 1
        var checksum: UInt32?
        for file in chain {
            let reader = try LogReader(path: file)
            if let checksum, reader.header.previousChecksum != checksum { joins = false }
            while let record = try reader.next() { records.append(record) }
            checksum = reader.lastPosition?.checksum ?? reader.header.previousChecksum
        }
        return (records, joins)
    }

    @Test func aStoreThatStaysOpenCutsItsLogAfterItsSnapshotsAndAnswersAsAStoreThatKeptEverything() throws {
        try helpers.withTemporaryDirectory { dir in
            let path = dir + "/labels.labellog"
            let policy = LabelStore.Retention(keep: .lastRecords(120), minimumCut: 60)
            let store = try LabelStore.open(path: path, options: options(retention: policy, snapshotEvery: 100))
            try helpers.write(900, to: store, seed: 71)
            store.waitForHistoryFiles()
            // The reference: every record (the archives' and the log's) in a log that was never cut.
            let (all, joins) = try Self.wholeHistory(path, directory: dir)
            #expect(joins && all.map(\.seq) == Array(1...900), "every record is in the archives and the log, chained across each join")
            let copy = try LogWriter.open(path: dir + "/reference.log", options: .init(durability: .noSync, createIfMissing: true))
            try copy.append(all.map { LogEntry($0.event, timestamp: $0.timestamp, actor: $0.actor, note: $0.note) })
            copy.close()
            let kept = try LabelStore.open(
                path: dir + "/reference.log", options: options(retention: nil, snapshotEvery: 100, create: false))
            let report = try #require(store.retentionReport?.cut, "\(String(describing: store.retentionReport))")
            let firstSeq = try LogReader(path: path).header.firstSeq
            #expect(firstSeq > 600 && report.firstSeq == firstSeq, "the open log was cut: it starts at seq \(firstSeq)")
            #expect(store.snapshot == kept.snapshot)
            #expect(try store.head == kept.head)
            for seq in [firstSeq - 1, firstSeq, 850, 900] {
                #expect(try store.state(atSeq: seq) == kept.state(atSeq: seq), "state at \(seq)")
                #expect(try store.historyHead(atSeq: seq) == kept.historyHead(atSeq: seq), "head at \(seq)")
            }
            // Seqs before the log's first are answered from the archives its cuts wrote (the history).
            for seq in [firstSeq - 2, 1, 2, report.cut.lowerBound, report.cut.lowerBound + 1] {
                #expect(try store.state(atSeq: seq) == kept.state(atSeq: seq), "archived state at \(seq)")
            }
            let time = try #require(try kept.storage.read(from: 5, maxCount: 1).first?.timestamp)
            #expect(try store.state(atTime: time) == kept.state(atTime: time), "archived state at \(time.iso8601)")
            // The history files were written again for the new file.
            #expect(FileManager.default.fileExists(atPath: CheckpointFile.path(for: path)))
            kept.close()
            // The writer goes on in the new file; reopened, the log gives the same list and head.
            try store.add("after the cuts")
            let (final, finalHead) = (store.snapshot, try store.head)
            store.close()
            let reopened = try LabelStore.open(path: path, options: options(retention: nil, snapshotEvery: 0, create: false))
            let head = try reopened.head
            #expect(reopened.snapshot == final && head == finalHead)
            reopened.close()
        }
    }

    /// In log format 4 a write of several records is one batch frame, and a cut of the open log goes
    /// between frames: the policy's seq is moved back to the end of the frame before the one holding it.
    @Test func aFormatFourStoreCutsItsOpenLogBetweenBatchFramesAndAnswersAsAStoreThatKeptEverything() throws {
        try helpers.withTemporaryDirectory { dir in
            let path = dir + "/labels.labellog"
            var options = options(retention: LabelStore.Retention(keep: .lastRecords(120), minimumCut: 60), snapshotEvery: 100)
            options.newLogFormat = LogFormat.batchVersion
            let store = try LabelStore.open(path: path, options: options)
            var rng = SeededGenerator(seed: 83)
            var batchEnds: Set<UInt64> = []
            for i in 0..<130 {
                // Batches of 7 (an add, then renames and toggles of the labels there): 910 records.
                let ids = store.snapshot.ids
                var batch: [LabelCommand] = [.add(title: "label \(i)", isEnabled: i % 2 == 0, at: ids.isEmpty ? 0 : ids.count / 2)]
                for j in 0..<6 where !ids.isEmpty {
                    let id = ids.randomElement(using: &rng)!
                    batch.append(j % 2 == 0 ? .rename(id: id, title: "renamed \(i).\(j)") : .toggle(id: id))
                }
                if let last = try store.execute(batch: batch).last?.seq { batchEnds.insert(last) }
            }
            store.waitForHistoryFiles()
            #expect(try LogReader(path: path).header.version == LogFormat.batchVersion)
            let report = try #require(store.retentionReport?.cut, "\(String(describing: store.retentionReport))")
            #expect(store.retentionReport?.error == nil)
            let firstSeq = try LogReader(path: path).header.firstSeq
            #expect(firstSeq > 600 && report.firstSeq == firstSeq, "the open log was cut: it starts at seq \(firstSeq)")
            #expect(batchEnds.contains(firstSeq - 1), "the cut ends a batch (a frame): seq \(firstSeq - 1)")
            let (all, joins) = try Self.wholeHistory(path, directory: dir)
            #expect(joins && all.map(\.seq) == Array(1...UInt64(all.count)) && all.count == 1 + 129 * 7)
            let copy = try LogWriter.open(path: dir + "/reference.log", options: .init(durability: .noSync, createIfMissing: true))
            try copy.append(all.map { LogEntry($0.event, timestamp: $0.timestamp, actor: $0.actor, note: $0.note) })
            copy.close()
            let kept = try LabelStore.open(
                path: dir + "/reference.log", options: self.options(retention: nil, snapshotEvery: 100, create: false))
            #expect(store.snapshot == kept.snapshot)
            #expect(try store.head == kept.head)
            for seq in [firstSeq - 1, firstSeq, 850, UInt64(all.count), 1, report.cut.lowerBound] {
                #expect(try store.state(atSeq: seq) == kept.state(atSeq: seq), "state at \(seq)")
            }
            kept.close()
            store.close()
        }
    }

    @Test func writesFromOtherThreadsDuringTheCutsAllLand() throws {
        try helpers.withTemporaryDirectory { dir in
            let path = dir + "/labels.labellog"
            var options = options(
                retention: LabelStore.Retention(keep: .lastRecords(200), disposal: .drop, minimumCut: 100), snapshotEvery: 150)
            options.durability = .groupCommit
            let store = try LabelStore.open(path: path, options: options)
            DispatchQueue.concurrentPerform(iterations: 2) { t in
                for i in 0..<600 { try! store.add("thread \(t) label \(i)") }
            }
            // Which snapshots the two threads took depends on the timing (one is skipped while another is
            // written); 150 writes from one thread then take at least one more, after seq 1200, and a cut
            // follows it: the log then starts after seq 900 whatever the timing was.
            for i in 0..<150 { try store.add("last label \(i)") }
            store.waitForHistoryFiles()
            #expect(store.lastSeq == 1350)
            #expect(store.retentionReport?.error == nil, "\(String(describing: store.retentionReport))")
            let reader = try LogReader(path: path)
            #expect(reader.header.base?.disposition == .dropped)
            #expect(reader.header.firstSeq > 900, "the log starts at seq \(reader.header.firstSeq)")
            // The base's list and the records after it fold to the store's list.
            var list = try LabelList.origin(of: reader.header, path: path)
            while let record = try reader.next() { try list.replay(record) }
            #expect(list == store.snapshot && list.count == 1350)
            store.close()
        }
    }

    /// A store on `DIR/labels.labellog` that keeps the last 30 records (cuts of 20 at least), after 200 random writes.
    func keepingLast30(in dir: String, snapshotEvery: UInt64, seed: UInt64) throws -> (LabelStore, String) {
        let path = dir + "/labels.labellog"
        let store = try LabelStore.open(
            path: path,
            options: options(retention: LabelStore.Retention(keep: .lastRecords(30), minimumCut: 20), snapshotEvery: snapshotEvery))
        try helpers.write(200, to: store, seed: seed)
        return (store, path)
    }

    @Test func timeTravelWhileTheOpenLogIsCutAnswersOrSaysTheSeqWasCut() throws {
        try helpers.withTemporaryDirectory { dir in
            let (store, path) = try keepingLast30(in: dir, snapshotEvery: 100, seed: 73)
            let stop = Locked(false)
            let answers = Locked<[(UInt64, LabelList)]>([])
            let failures = Locked<[String]>([])
            let reader = Thread {
                var rng = SeededGenerator(seed: 74)
                while !stop.withLock({ $0 }) {
                    let last = store.lastSeq
                    // Often before the newest snapshot, so the fold starts at the one before it, which a cut may pass.
                    let seq = last - UInt64.random(in: 0...29, using: &rng)
                    do {
                        let list = try store.state(atSeq: seq)
                        if list.lastSeq != seq { failures.withLock { $0.append("state at \(seq) is at \(list.lastSeq)") } }
                        answers.withLock { $0.append((seq, list)) }
                        _ = try store.state(atTime: EventTimestamp(millisecondsSince1970: .max))
                    } catch {
                        failures.withLock { $0.append("\(seq): \(error)") }
                    }
                }
            }
            reader.start()
            try helpers.write(1_000, to: store, seed: 75)
            store.waitForHistoryFiles()
            stop.withLock { $0 = true }
            while !reader.isFinished { Thread.sleep(forTimeInterval: 0.01) }
            #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0.prefix(3) })")
            let firstSeq = try LogReader(path: path).header.firstSeq
            #expect(firstSeq > 900, "the log was cut while the reader read")
            let checked = answers.withLock { $0 }.filter { $0.0 >= firstSeq - 1 }
            for (seq, list) in checked.suffix(40) { #expect(try store.state(atSeq: seq) == list, "state at \(seq)") }
            store.close()
        }
    }

    @Test func aReadThatACutOvertakesIsReadAgainFromTheNewBase() throws {
        try helpers.withTemporaryDirectory { dir in
            let (store, _) = try keepingLast30(in: dir, snapshotEvery: 0, seed: 76)
            let expected = try store.state(atSeq: 190)
            var attempts: [UInt64] = []
            let list = try store.readingAcrossCuts { (origin) throws(StoreError) -> LabelList in
                attempts.append(origin.lastSeq)
                // The cut lands between the read's start and its first record.
                if attempts.count == 1 { #expect(store.openRetention?.applyIfDue() == true) }
                var list = origin
                try store.log.fold(&list, through: 190, via: store.storage)
                return list
            }
            #expect(attempts == [0, 170], "read from seq 1, then again from the base at seq 170")
            #expect(list == expected)
            #expect(try store.state(atSeq: 190) == expected)
            store.close()
        }
    }

    @Test func aStreamThatHasNotReadItsNotificationsKeepsTheRecordsItNeeds() async throws {
        let dir = TemporaryDirectory()
        let path = dir.file("labels.labellog")
        var options = options(retention: LabelStore.Retention(keep: .lastRecords(10), disposal: .drop, minimumCut: 10), snapshotEvery: 50)
        options.streamBufferLimit = 16
        let store = try await LabelStore.open(path: path, options: options)
        try await store.add("before the stream")
        let stream = store.changes(for: .membership)
        for i in 0..<400 { try await store.add("label \(i)") }
        store.waitForHistoryFiles()
        // The stream overflowed and will catch up from seq 1: nothing after it was cut.
        #expect(try LogReader(path: path).header.firstSeq <= 2, "the log was cut past a stream that still needs it")
        var seqs: [UInt64] = []
        for await notification in stream {
            seqs.append(notification.seq)
            if seqs.count == 400 { break }
        }
        #expect(seqs == Array(2...401))
        // Read through: the next snapshot cuts.
        for i in 0..<60 { try await store.add("more \(i)") }
        store.waitForHistoryFiles()
        #expect(try LogReader(path: path).header.firstSeq > 400)
        await store.close()
    }
}
