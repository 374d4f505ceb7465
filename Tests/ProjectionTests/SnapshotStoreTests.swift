import EventLog
import Foundation
import LabelStoreTestSupport
import Testing

@testable import LabelProjection

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Snapshots of a store over a file log: the policy, opening from the newest
/// valid snapshot, and never trusting a damaged, foreign, stale or diverged one.
@Suite struct SnapshotStoreTests {
    func withTemporaryDirectory(_ body: (String) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("snapshots-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try body(directory.path)
    }

    func options(_ policy: SnapshotPolicy = .manual, create: Bool = true) -> LabelStore.Options {
        LabelStore.Options(durability: .noSync, createIfMissing: create, clock: StepClock().now, snapshots: policy)
    }

    /// `n` writes of every kind (adds, renames, toggles, moves, removes), one record each.
    func write(_ n: Int, to store: LabelStore, seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        for i in 0..<n {
            let ids = store.snapshot.ids
            switch ids.isEmpty ? 0 : Int.random(in: 0..<6, using: &rng) {
            case 0, 1: try store.add("label \(i)", isEnabled: i % 3 != 0, at: Int.random(in: 0...ids.count, using: &rng))
            case 2: try store.rename(ids.randomElement(using: &rng)!, to: "renamed \(i)")
            case 3: try store.toggle(ids.randomElement(using: &rng)!)
            case 4 where ids.count > 1:
                let from = Int.random(in: 0..<ids.count, using: &rng)
                try store.move(ids[from], to: (from + Int.random(in: 1..<ids.count, using: &rng)) % ids.count)
            default: try store.remove(ids.randomElement(using: &rng)!)
            }
        }
    }

    /// The fold of the whole log, without snapshots.
    func fullReplay(_ path: String) throws -> LabelList {
        try LabelList(replaying: LogReader.readAll(path: path).records)
    }

    @Test func openingStartsFromTheNewestSnapshotAndFoldsOnlyTheTail() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/labels.log"
            let store = try LabelStore.open(path: path, options: options())
            try write(120, to: store, seed: 1)
            let info = try store.writeSnapshot()
            #expect(info.seq == 120 && info.path == path + ".snapshot-00000000000000000120")
            #expect(
                try SnapshotFiles.read(info.path).header.logOffset == store.ownedWriter!.byteLength,
                "the snapshot records where record 120 ends in the log")
            try write(30, to: store, seed: 2)
            let expected = store.snapshot
            store.close()

            let reopened = try LabelStore.open(path: path, options: options(create: false))
            let report = reopened.snapshotReport
            #expect(report.usedSeq == 120 && report.usedPath == info.path && report.replayedRecords == 30 && report.ignored.isEmpty)
            #expect(reopened.snapshot == expected)
            #expect(reopened.snapshot == (try fullReplay(path)))
            reopened.snapshot._checkInvariants()
            // Time travel before, at and after the snapshot agrees with a full fold.
            let records = try LogReader.readAll(path: path).records
            for seq in [0, 1, 60, 119, 120, 121, 149, 150] as [UInt64] {
                #expect(try reopened.state(atSeq: seq) == LabelList(replaying: records.prefix(Int(seq))), "state at seq \(seq)")
            }
            let id = try reopened.add("after reopen")
            #expect(reopened.label(id)?.version == 151)
            reopened.close()
        }
    }

    @Test func policyWritesEveryNRecordsAndAtCloseAndKeepsTheNewest() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/labels.log"
            let policy = SnapshotPolicy(everyRecords: 40, everyBytes: 0, onClose: true, minRecordsOnClose: 5, keep: 2)
            let store = try LabelStore.open(path: path, options: options(policy))
            try write(130, to: store, seed: 3)
            #expect(SnapshotFiles.list(for: path).snapshots.map(\.seq) == [120, 80])
            #expect(store.snapshotReport.lastWrittenPath == SnapshotFiles.path(for: path, seq: 120))
            try write(7, to: store, seed: 4)
            store.close()
            #expect(SnapshotFiles.list(for: path).snapshots.map(\.seq) == [137, 120], "closing wrote one; the oldest was pruned")
            let reopened = try LabelStore.open(path: path, options: options(policy, create: false))
            #expect(reopened.snapshotReport.usedSeq == 137 && reopened.snapshotReport.replayedRecords == 0)
            #expect(reopened.snapshot == (try fullReplay(path)))
            reopened.close()
            #expect(SnapshotFiles.list(for: path).snapshots.map(\.seq) == [137, 120], "closing with nothing new writes nothing")
        }
    }

    @Test func aDamagedSnapshotIsIgnoredReportedAndTheOlderOneOrTheLogIsUsed() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/labels.log"
            let store = try LabelStore.open(
                path: path, options: options(SnapshotPolicy(everyRecords: 0, everyBytes: 0, onClose: false, keep: 3)))
            try write(50, to: store, seed: 5)
            let older = try store.writeSnapshot()
            try write(50, to: store, seed: 6)
            let newer = try store.writeSnapshot()
            let expected = store.snapshot
            store.close()
            try flipByte(in: newer.path, at: newer.byteCount / 2)

            let reopened = try LabelStore.open(path: path, options: options(create: false))
            let report = reopened.snapshotReport
            #expect(report.ignored.map(\.path) == [newer.path] && report.ignored.first?.error.code == .checksumMismatch)
            #expect(report.usedPath == older.path && report.replayedRecords == 50)
            #expect(reopened.snapshot == expected)
            reopened.close()

            try flipByte(in: older.path, at: 10)
            let third = try LabelStore.open(path: path, options: options(create: false))
            #expect(third.snapshotReport.usedPath == nil && third.snapshotReport.ignored.count == 2)
            #expect(third.snapshotReport.replayedRecords == 100 && third.snapshot == expected)
            #expect(third.snapshotReport.summary.contains("ignored 2"))
            third.close()
        }
    }

    @Test func aSnapshotOfAnotherLogIsNeverUsed() throws {
        try withTemporaryDirectory { dir in
            let a = dir + "/a.log", b = dir + "/b.log"
            let storeA = try LabelStore.open(path: a, options: options())
            try write(40, to: storeA, seed: 7)
            let snapshotA = try storeA.writeSnapshot()
            storeA.close()
            let storeB = try LabelStore.open(path: b, options: options())
            try write(60, to: storeB, seed: 8)
            let expected = storeB.snapshot
            storeB.close()
            // Put a's snapshot where b's would be.
            try FileManager.default.copyItem(atPath: snapshotA.path, toPath: SnapshotFiles.path(for: b, seq: 40))

            let reopened = try LabelStore.open(path: b, options: options(create: false))
            #expect(reopened.snapshotReport.ignored.first?.error.code == .foreignLog)
            #expect(reopened.snapshotReport.usedPath == nil && reopened.snapshot == expected)
            reopened.close()
        }
    }

    @Test func aSnapshotAheadOfTheLogOrOfALostHistoryIsNeverUsed() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/labels.log"
            let store = try LabelStore.open(path: path, options: options())
            try write(30, to: store, seed: 9)
            let lengthAt30 = store.ownedWriter!.byteLength
            try write(20, to: store, seed: 10)
            let snapshot = try store.writeSnapshot()
            #expect(snapshot.seq == 50)
            let snapshotBytes = try Data(contentsOf: URL(fileURLWithPath: snapshot.path))
            store.close()
            // The log loses its last 20 records (e.g. unsynced when the power went).
            try truncate(path, to: lengthAt30)

            let stale = try LabelStore.open(path: path, options: options(create: false))
            #expect(stale.snapshotReport.ignored.first?.error.code == .stale)
            #expect(stale.snapshot == (try fullReplay(path)) && stale.lastSeq == 30)
            // A stale snapshot is of no history this log can have again: it is retired.
            #expect(!FileManager.default.fileExists(atPath: snapshot.path))
            // A different history grows past the snapshot's seq; the old file, put back, is of another history.
            try write(25, to: stale, seed: 11)
            let expected = stale.snapshot
            stale.close()
            try Data(snapshotBytes).write(to: URL(fileURLWithPath: snapshot.path))

            let diverged = try LabelStore.open(path: path, options: options(create: false))
            #expect(diverged.snapshotReport.ignored.map(\.error.code) == [.historyMismatch])
            #expect(diverged.snapshotReport.usedPath == nil && diverged.snapshot == expected)
            #expect(!FileManager.default.fileExists(atPath: snapshot.path))
            diverged.close()
        }
    }

    @Test func aFailingAutomaticSnapshotNeverFailsTheWriteAndWaitsAnIntervalBeforeRetrying() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/labels.log"
            let store = try LabelStore.open(path: path, options: options(SnapshotPolicy(everyRecords: 5, everyBytes: 0, onClose: false)))
            // A directory where the snapshot at seq 5 would go makes its rename fail.
            try FileManager.default.createDirectory(atPath: SnapshotFiles.path(for: path, seq: 5), withIntermediateDirectories: false)
            try write(5, to: store, seed: 12)
            #expect(store.lastSeq == 5 && store.snapshotReport.lastWriteError != nil)
            #expect(SnapshotFiles.list(for: path).temporary.isEmpty, "the temporary file is removed")
            try write(4, to: store, seed: 13)
            #expect(store.snapshotReport.lastWrittenPath == nil, "no retry before another interval")
            try write(1, to: store, seed: 14)
            #expect(store.snapshotReport.lastWrittenPath == SnapshotFiles.path(for: path, seq: 10))
            #expect(store.snapshotReport.lastWriteError == nil)
            store.close()
        }
    }

    @Test func automaticSnapshotsUnderConcurrentWritersReopenToTheFullReplay() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("snapshots-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.path + "/labels.log"
        let policy = SnapshotPolicy(everyRecords: 50, everyBytes: 0, onClose: true, minRecordsOnClose: 1, keep: 3)
        let store = try await LabelStore.open(path: path, options: options(policy))
        await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<3 {
                group.addTask {
                    for i in 0..<300 {
                        let id = try store.add("w\(writer) \(i)", at: 0)
                        if i % 3 == 0 { try store.toggle(id) }
                    }
                }
            }
        }
        let expected = store.snapshot
        await store.close()
        let listed = SnapshotFiles.list(for: path)
        #expect(
            listed.snapshots.count == 3,
            "\(listed.problem.map { "\($0)" } ?? "listed"): \(SystemFile.directoryEntries(directory.path).sorted()); \(store.snapshotReport.summary)"
        )
        #expect(store.snapshotReport.lastWriteError == nil)
        let reopened = try await LabelStore.open(path: path, options: options(policy, create: false))
        #expect(reopened.snapshotReport.usedSeq == expected.lastSeq && reopened.snapshot == expected)
        #expect(reopened.snapshot == (try fullReplay(path)))
        for entry in SnapshotFiles.list(for: path).snapshots {
            let (list, _) = try SnapshotFiles.read(entry.path)
            #expect(list == (try reopened.state(atSeq: entry.seq)), "snapshot at \(entry.seq) is the fold of the log to that seq")
        }
        await reopened.close()
    }

    /// Listing a log's snapshots while other files of its directory come and
    /// go (the store's background update writes `LOG.index.tmp-…` and renames
    /// it) finds every snapshot every time: a listing that gave up on such a
    /// race found none (seen once in CI: 0 of 3 snapshots right after close).
    @Test func listingSnapshotsWhileOtherFilesComeAndGoFindsThemAll() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/labels.log"
            for seq in [50, 100, 150] as [UInt64] {
                #expect(FileManager.default.createFile(atPath: SnapshotFiles.path(for: path, seq: seq), contents: Data([1])))
            }
            let stop = Locked(false)
            let churn = Thread {
                var k = 0
                while !stop.withLock({ $0 }) {
                    let name = dir + "/labels.log.index.tmp-\(k)"
                    _ = FileManager.default.createFile(atPath: name, contents: nil)
                    rename(name, dir + "/churn-\(k % 50)")
                    unlink(dir + "/churn-\((k + 25) % 50)")
                    k += 1
                }
            }
            churn.start()
            defer { stop.withLock { $0 = true } }
            var short: [String] = []
            for _ in 0..<3_000 {
                let listed = SnapshotFiles.list(for: path)
                if listed.snapshots.count != 3 {
                    short.append("\(listed.snapshots.count): \(listed.problem.map { "\($0)" } ?? "no error")")
                }
            }
            #expect(short.isEmpty, "\(short.count) listings of 3,000 missed snapshots: \(short.prefix(5))")
            // A directory that cannot be listed is said, not taken for one without snapshots.
            let missing = SnapshotFiles.list(for: dir + "/gone/labels.log")
            #expect(
                missing.problem?.code == .fileNotFound && missing.problem?.path == dir + "/gone", "\(String(describing: missing.problem))")
        }
    }

    /// A file named like a snapshot that is a FIFO (or a directory) is ignored and reported,
    /// never opened in a way that blocks: a blocking `open` of a FIFO used to hang the store's opening.
    @Test func aSnapshotPathThatIsAFIFOOrADirectoryIsIgnoredWithoutBlocking() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("snapshots-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/labels.log"
        let store = try await LabelStore.open(path: path, options: options())
        try write(10, to: store, seed: 3)
        let expected = store.snapshot
        await store.close()
        let fifo = SnapshotFiles.path(for: path, seq: 10)
        let folder = SnapshotFiles.path(for: path, seq: 9)
        try #require(mkfifo(fifo, 0o644) == 0)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)

        let outcome = Locked<Result<SnapshotReport, StoreError>?>(nil)
        let options = options(create: false)
        Thread {
            let result = Result { () throws(StoreError) -> SnapshotReport in
                let reopened = try LabelStore.open(path: path, options: options)
                defer { reopened.close() }
                #expect(reopened.snapshot == expected)
                return reopened.snapshotReport
            }
            outcome.withLock { $0 = result }
        }.start()
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(10)
        while outcome.withLock({ $0 == nil }) && clock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        if outcome.withLock({ $0 == nil }) {
            Issue.record("opening the store blocked on a snapshot path that is a FIFO")
            while outcome.withLock({ $0 == nil }) {
                let fd = open(fifo, O_WRONLY | O_NONBLOCK)
                if fd >= 0 { close(fd) }
                try await Task.sleep(for: .milliseconds(5))
            }
        }
        let report = try #require(outcome.withLock { $0 }).get()
        #expect(report.usedPath == nil && report.ignored.map(\.path) == [fifo, folder], "\(report)")
        #expect(report.ignored.first?.error.message.contains("FIFO") == true, "\(report)")
        #expect(report.ignored.last?.error.message.contains("directory") == true, "\(report)")
    }

    @Test func writeSnapshotIsRefusedWithoutAFileLogAndAfterClose() throws {
        let memory = try makeStore()
        #expect(catching { try memory.writeSnapshot() }?.code == .invalidCommand)
        try withTemporaryDirectory { dir in
            let store = try LabelStore.open(path: dir + "/labels.log", options: options())
            try store.add("A")
            store.close()
            #expect(catching { try store.writeSnapshot() }?.code == .closed)
        }
    }

    /// The reference-model run over a file log that snapshots every 37 records:
    /// time travel and catch-up subscriptions then start from snapshots.
    @Test func randomCommandsOverASnapshottingFileLogMatchTheModel() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/labels.log"
            let policy = SnapshotPolicy(everyRecords: 37, everyBytes: 0, onClose: true, minRecordsOnClose: 1, keep: 4)
            let store = try LabelStore.open(path: path, options: options(policy))
            let history = try ReferenceModelTests.run(store, seed: 41, steps: 800, recordRejections: false, catchUpEvery: 50)
            store.close()
            let reopened = try LabelStore.open(path: path, options: options(policy, create: false))
            #expect(reopened.snapshotReport.usedSeq == history.last!.lastSeq)
            #expect(history.last!.matches(reopened.snapshot))
            reopened.close()
        }
    }

    func catching(_ body: () throws -> Void) -> StoreError? {
        do { try body() } catch { return error as? StoreError }
        return nil
    }

    func flipByte(in path: String, at offset: Int) throws {
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        bytes[offset] ^= 0x40
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    func truncate(_ path: String, to length: Int64) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: UInt64(length))
        try handle.close()
    }
}
