import EventLog
import Foundation
import Testing
@testable import LabelProjection

/// Opening from a snapshot resumes the log's scan at the snapshot's record
/// (snapshot format 2 stores where it is), unless the policy or the recovery
/// mode asks for every record to be read; older snapshots still work.
@Suite struct SnapshotResumeTests {
    let helpers = SnapshotStoreTests()

    func options(_ policy: SnapshotPolicy = .manual, recovery: RecoveryMode = .tolerateCorruptedTail) -> LabelStore.Options {
        LabelStore.Options(durability: .noSync, recovery: recovery, createIfMissing: true, clock: StepClock().now, snapshots: policy)
    }

    /// A log of 200 records with a snapshot at 150; returns the snapshot and the final list.
    func makeStore(_ path: String) throws -> (LabelStore.SnapshotInfo, LabelList) {
        let store = try LabelStore.open(path: path, options: options())
        try helpers.write(150, to: store, seed: 21)
        let info = try store.writeSnapshot()
        try helpers.write(50, to: store, seed: 22)
        let expected = store.snapshot
        store.close()
        return (info, expected)
    }

    @Test func aSnapshotRecordsItsRecordsPositionAndOpeningResumesThere() throws {
        try helpers.withTemporaryDirectory { dir in
            let path = dir + "/labels.log"
            let (info, expected) = try makeStore(path)
            let header = try SnapshotFiles.read(info.path).header
            #expect(header.version == SnapshotFormat.currentVersion && header.version == 2)
            let position = try #require(header.logPosition)
            let scanned = try LogWriter.open(path: path, replayFrom: 150)
            #expect(position.seq == 150)
            #expect(try scanned.read(from: 151, maxCount: 1).count == 1)
            scanned.close()

            let store = try LabelStore.open(path: path, options: options())
            #expect(store.snapshotReport.resumedScan && store.snapshotReport.usedSeq == 150 && store.snapshotReport.replayedRecords == 50)
            #expect(store.snapshotReport.summary.contains("covered records not re-read"))
            let full = try helpers.fullReplay(path)
            #expect(store.snapshot == expected && store.snapshot == full)
            #expect(try store.state(atSeq: 10) == LabelList(replaying: LogReader.readAll(path: path).records.prefix(10)),
                    "time travel before the snapshot reads the records the open skipped")
            store.close()
        }
    }

    @Test(arguments: ["policy", "absoluteConsistency", "pointInTime"])
    func thePolicyOrAStricterRecoveryModeReadsEveryRecord(reason: String) throws {
        try helpers.withTemporaryDirectory { dir in
            let path = dir + "/labels.log"
            let (_, expected) = try makeStore(path)
            var policy = SnapshotPolicy.manual
            policy.scanCoveredRecordsOnOpen = reason == "policy"
            let recovery: RecoveryMode = reason == "policy" ? .tolerateCorruptedTail : reason == "pointInTime" ? .pointInTime : .absoluteConsistency
            let store = try LabelStore.open(path: path, options: options(policy, recovery: recovery))
            #expect(!store.snapshotReport.resumedScan && store.snapshotReport.usedSeq == 150)
            #expect(store.snapshot == expected)
            store.close()
        }
    }

    @Test func damageInTheCoveredRecordsIsNotReadByADefaultOpenButAFullScanFindsIt() throws {
        try helpers.withTemporaryDirectory { dir in
            let path = dir + "/labels.log"
            let (_, expected) = try makeStore(path)
            var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            let damaged = LogFormat.headerLength + 200  // inside an early record
            bytes[damaged] ^= 0x40
            try Data(bytes).write(to: URL(fileURLWithPath: path))

            let store = try LabelStore.open(path: path, options: options())
            #expect(store.snapshotReport.resumedScan && store.snapshot == expected)
            store.close()
            var policy = SnapshotPolicy.manual
            policy.scanCoveredRecordsOnOpen = true
            let error = helpers.catching { _ = try LabelStore.open(path: path, options: options(policy)) }
            guard case .storage(let storage)? = error?.code else {
                Issue.record("a full scan opened a log with damage before its tail: \(String(describing: error))")
                return
            }
            #expect(storage.code == .corruptRecord && (storage.offset ?? 0) <= Int64(damaged))
            #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) == bytes, "a refused open changes nothing")
        }
    }

    @Test func aSnapshotWithoutAPositionIsUsedWithAFullScan() throws {
        try helpers.withTemporaryDirectory { dir in
            let path = dir + "/labels.log"
            let (info, expected) = try makeStore(path)
            // Rewrite the snapshot as format version 1 wrote it: version 1, no record length.
            var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: info.path)))
            bytes[8] = 1
            bytes[44] = 0; bytes[45] = 0; bytes[46] = 0; bytes[47] = 0
            SnapshotCodecTests.reseal(&bytes)
            try Data(bytes).write(to: URL(fileURLWithPath: info.path))
            let header = try SnapshotFiles.read(info.path).header
            #expect(header.version == 1 && header.logPosition == nil && header.logOffset > 0)

            let store = try LabelStore.open(path: path, options: options())
            #expect(store.snapshotReport.usedSeq == 150 && !store.snapshotReport.resumedScan && store.snapshotReport.replayedRecords == 50)
            #expect(store.snapshot == expected)
            store.close()
        }
    }

    @Test func aVersion1SnapshotWithANonZeroReservedFieldIsInvalid() throws {
        let list = try SnapshotCodecTests.randomList(seed: 3, steps: 40, target: 20)
        var bytes = list.snapshotBytes(logID: SnapshotCodecTests.logID, fingerprint: 1,
                                       logPosition: LogPosition(seq: list.lastSeq, offset: 1000, length: 40))
        let header = try bytes.withUnsafeBytes { raw in try LabelList.decodeSnapshot(raw).header }
        #expect(header.logPosition == LogPosition(seq: list.lastSeq, offset: 1000, length: 40))
        bytes[8] = 1
        SnapshotCodecTests.reseal(&bytes)
        #expect(throws: SnapshotError.self) { _ = try bytes.withUnsafeBytes { raw in try LabelList.decodeSnapshot(raw) } }
    }
}
