import Foundation
import LabelStoreTestSupport
import Testing

@testable import EventLog

/// A position a cache recorded (the history index's covered record, a
/// checkpoint's, a snapshot's) is trusted only where recovery keeps the log:
/// a record of an unsynced write whose earlier record is damaged is cut with
/// it as a torn tail, so no read may jump to it (`LogReader.keeps`,
/// `Recovery.keeps`).
@Suite struct CachedPositionKeepingTests {
    /// `count` adds of distinct labels; entry `big`, if given, a reorder of about `bigBytes` bytes.
    static func entries(_ count: Int, big: Int? = nil, bigBytes: Int = 0) -> [LogEntry] {
        (0..<count).map { n in
            if n == big { return LogEntry(.reordered(order: (0..<bigBytes / 16).map { _ in LabelID() })) }
            return LogEntry(.added(id: LabelID(), title: String(repeating: "t", count: 8 + n % 13), isEnabled: true, index: 0))
        }
    }

    /// Every record's position, read from seq 1.
    static func positions(_ path: String) throws -> [LogPosition] {
        let reader = try LogReader(path: path)
        var positions: [LogPosition] = []
        while let (_, position) = try reader.nextPositionedView() { positions.append(position) }
        return positions
    }

    /// Flips one payload byte of record `seq` (1-based), in place.
    static func damage(_ path: String, record seq: Int) throws {
        var bytes = readBytes(path)
        let offset = frameOffsets(bytes)[seq - 1] + LogFormat.frameHeaderLength + 3
        bytes[offset] ^= 0x40
        try overwriteInPlace(path, bytes)
    }

    /// How many records a read from seq 1 returns, or `nil` if it throws.
    static func fullReadCount(_ path: String) -> Int? {
        guard let reader = try? LogReader(path: path) else { return nil }
        var count = 0
        do {
            while try reader.next() != nil { count += 1 }
        } catch { return nil }
        return count
    }

    @Test func aRecordOfAnUnsyncedWriteAfterADamagedOneIsNotKeptAndItsIndexIsIgnored() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        try writeLog(path, Self.entries(3_000), batch: true)
        try HistoryIndexFile.update(logPath: path)
        let positions = try Self.positions(path)
        #expect(try LogReader(path: path).keeps(positions[2_999]) == .kept)

        try Self.damage(path, record: 1_000)
        #expect(Self.fullReadCount(path) == 999, "the full read stops at the torn tail")
        let reader = try LogReader(path: path)
        #expect(try reader.keeps(positions[2_999]) == .notKept)
        #expect(try reader.keeps(positions[2_399]) == .notKept)
        #expect(try reader.keeps(positions[998]) == .kept, "records before the damage are kept")
        guard case .ignored(let problem) = HistoryIndexFile.load(for: reader) else {
            Issue.record("an index covering records the log cuts was used")
            return
        }
        #expect(problem.reason.contains("does not keep record 3000"))

        // `index` no longer extends the index over the cut: it rebuilds what the log keeps.
        let update = try HistoryIndexFile.update(logPath: path)
        #expect(update.index.coveredSeq == 999)
    }

    @Test func aWriterDoesNotResumeAtASnapshotPositionThatRecoveryCuts() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        try writeLog(path, Self.entries(500), batch: true)
        let resumeAt = try Self.positions(path)[449]
        try Self.damage(path, record: 200)
        var seen = 0
        let writer = try LogWriter.open(path: path, options: .init(durability: .noSync), resumeAt: resumeAt) { _ in seen += 1 }
        defer { writer.close() }
        #expect(writer.lastSeq == 199, "the torn tail from record 200 is cut, not resumed over")
        #expect(seen == 199)
        #expect(writer.recoveryReport.resumedAfter == nil)
    }

    @Test func damageBeforeTheUnsyncedWriteIsCorruptionThatOnlyAFullReadReads() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        try writeLog(path, Self.entries(400), batch: true, syncEvery: 100)
        let positions = try Self.positions(path)

        let damagedEarlier = dir.file("earlier.labellog")
        try FileManager.default.copyItem(atPath: path, toPath: damagedEarlier)
        try Self.damage(damagedEarlier, record: 50)
        #expect(Self.fullReadCount(damagedEarlier) == nil, "durable records follow the damage: corruption")
        #expect(try LogReader(path: damagedEarlier).keeps(positions[249]) == .kept, "record 250's own write is intact")

        let damagedSameWrite = dir.file("same.labellog")
        try FileManager.default.copyItem(atPath: path, toPath: damagedSameWrite)
        try Self.damage(damagedSameWrite, record: 210)
        #expect(try LogReader(path: damagedSameWrite).keeps(positions[249]) == .notKept)
        #expect(try LogReader(path: damagedSameWrite).keeps(positions[200]) == .kept, "the write's first record")
        #expect(try LogReader(path: damagedSameWrite).keeps(positions[209]) == .notHeld, "the damaged record itself")
    }

    @Test func aWriteLongerThanTheBackwardWalkIsCheckedForwardFromSeqOne() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let count = Recovery.backwardWalkLimit + 3_000
        try writeLog(path, Self.entries(count), batch: true)
        let positions = try Self.positions(path)
        let reader = try LogReader(path: path)
        #expect(try reader.keeps(positions[count - 1]) == .kept)
        #expect(try reader.keeps(positions[count / 2]) == .kept)

        try Self.damage(path, record: 5)
        #expect(try LogReader(path: path).keeps(positions[count - 1]) == .notKept)
        #expect(try LogReader(path: path).keeps(positions[3]) == .kept)
    }

    @Test(arguments: [1_000, 300_000, 3_000_000])
    func framesAreFoundBackwardsAcrossRecordsOfAnySize(bigBytes: Int) throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        try writeLog(path, Self.entries(60, big: 30, bigBytes: bigBytes), batch: true)
        let positions = try Self.positions(path)
        #expect(try LogReader(path: path).keeps(positions[59]) == .kept)
        try Self.damage(path, record: 31)
        #expect(try LogReader(path: path).keeps(positions[59]) == .notKept)
        #expect(try LogReader(path: path).keeps(positions[29]) == .kept)
    }

    @Test func aDurableWritesRecordsAreKeptWithoutWalkingBack() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        try writeLog(path, Self.entries(50))  // each record synced before the next: no continuations
        let positions = try Self.positions(path)
        try Self.damage(path, record: 10)
        #expect(Self.fullReadCount(path) == nil, "corruption: a full read fails")
        #expect(try LogReader(path: path).keeps(positions[49]) == .kept, "a cached read does not read record 10")
        #expect(try LogReader(path: path).keeps(positions[9]) == .notHeld)
    }
}
