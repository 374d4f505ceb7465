import EventLog
import Foundation
import LabelStoreTestSupport
import Testing

@testable import LabelProjection

/// Opening from a snapshot resumes the log's scan at the snapshot's record
/// (snapshot format 2 stores where it is), unless the policy or the recovery
/// mode asks for every record to be read; older snapshots still work.
@Suite struct SnapshotResumeTests {
    let helpers = SnapshotStoreTests()

    func options(
        _ policy: SnapshotPolicy = .manual, recovery: RecoveryMode = .tolerateCorruptedTail,
        durability: Durability = .noSync
    ) -> LabelStore.Options {
        LabelStore.Options(durability: durability, recovery: recovery, createIfMissing: true, clock: StepClock().now, snapshots: policy)
    }

    /// A log of 200 durable records (each acknowledged after a sync, so damage
    /// among them is damage, not a lost write) with a snapshot at 150; returns
    /// the snapshot and the final list.
    func makeStore(_ path: String) throws -> (LabelStore.SnapshotInfo, LabelList) {
        let store = try LabelStore.open(path: path, options: options(durability: .syncEachAppend))
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
            #expect(header.version == SnapshotFormat.currentVersion && header.version == 3 && header.coversHistory)
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
            #expect(
                try store.state(atSeq: 10) == LabelList(replaying: LogReader.readAll(path: path).records.prefix(10)),
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
            let recovery: RecoveryMode =
                reason == "policy" ? .tolerateCorruptedTail : reason == "pointInTime" ? .pointInTime : .absoluteConsistency
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

    @Test func aVersion1SnapshotIsStillUsedWithAFullScan() throws {
        try helpers.withTemporaryDirectory { dir in
            let path = dir + "/labels.log"
            let (info, expected) = try makeStore(path)
            // Replace the snapshot with what format version 1 wrote for the same state.
            let v2 = try SnapshotFiles.read(info.path)
            // Version 1 fingerprints the record alone (the current version stores the log's chained checksum).
            let fingerprint = try LogReader.readAll(path: path).records[149].snapshotFingerprint
            let bytes = Self.versionOneSnapshot(
                of: v2.list, logID: v2.header.logID, fingerprint: fingerprint,
                logOffset: v2.header.logOffset)
            try Data(bytes).write(to: URL(fileURLWithPath: info.path))
            let (list, header) = try SnapshotFiles.read(info.path)
            #expect(header.version == 1 && header.logPosition == nil && header.logOffset > 0)
            #expect(list == v2.list && list.slots.map(\.id) == v2.list.slots.map(\.id))

            let store = try LabelStore.open(path: path, options: options())
            #expect(store.snapshotReport.usedSeq == 150 && !store.snapshotReport.resumedScan && store.snapshotReport.replayedRecords == 50)
            #expect(store.snapshot == expected)
            store.close()
        }
    }

    @Test func aVersion1SnapshotWithANonZeroReservedFieldIsInvalid() throws {
        let list = try SnapshotCodecTests.randomList(seed: 3, steps: 40, target: 20)
        let position = LogPosition(seq: list.lastSeq, offset: 1000, length: 40)
        let v2 = list.snapshotBytes(logID: SnapshotCodecTests.logID, fingerprint: 1, logPosition: position)
        let header = try v2.withUnsafeBytes { raw in try LabelList.decodeSnapshot(raw).header }
        #expect(header.logPosition == position)
        var v1 = Self.versionOneSnapshot(of: list, logID: SnapshotCodecTests.logID, fingerprint: 1, logOffset: 1040)
        #expect(try v1.withUnsafeBytes { raw in try LabelList.decodeSnapshot(raw).list } == list)
        v1[44] = 40
        SnapshotCodecTests.reseal(&v1)
        #expect(throws: SnapshotError.self) { _ = try v1.withUnsafeBytes { raw in try LabelList.decodeSnapshot(raw) } }
    }

    /// Format version 1, written independently of the library's encoder:
    /// the 72-byte header (field 44 reserved, zero), then one record per slot
    /// (id · state · varint seq · title if live), the order, and the CRC.
    static func versionOneSnapshot(of list: LabelList, logID: LabelID, fingerprint: UInt32, logOffset: Int64) -> [UInt8] {
        var w = ByteWriter()
        w.bytes.append(contentsOf: Array("LABELSNP".utf8))
        w.u16(1)
        w.u16(list.lastTimestamp == nil ? 0 : 1)
        w.u32(72)
        w.id(logID)
        w.u64(list.lastSeq)
        w.u32(fingerprint)
        w.u32(0)
        w.u64(list.listVersion)
        w.u64(UInt64(bitPattern: list.lastTimestamp?.millisecondsSince1970 ?? 0))
        w.u64(UInt64(logOffset))
        w.varint(UInt64(list.slots.count))
        w.varint(UInt64(list.count))
        w.varint(UInt64(list.enabledCount))
        for (number, slot) in list.slots.enumerated() {
            w.id(slot.id)
            w.u8(slot.isLive ? (slot.isEnabled ? 2 : 1) : 0)
            w.varint(slot.seq)
            if slot.isLive { w.string(list.title(slot: UInt32(number))) }
        }
        for id in list.ids { w.varint(UInt64(list.slot(of: id)!)) }
        let crc = w.bytes.withUnsafeBytes { CRC32C.checksum($0) }
        w.u32(crc)
        return w.bytes
    }
}
