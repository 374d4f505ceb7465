import Foundation
import LabelStoreTestSupport
import Testing

@testable import EventLog

/// The sync mark (`LOG.synced`): after a sync, the writer says "every byte
/// through record N is durable", so a read that jumps to a cached position
/// inside a long write (an import, a batch) needs no forward check of the
/// write, and recovery calls damage before N corruption (it was durable),
/// never a torn tail. What was not synced is still checked as before.
@Suite struct SyncMarkTests {
    typealias Keeping = CachedPositionKeepingTests

    /// A log of `count` records written in one append, then synced (as `import` and a bulk load do).
    static func writeSynced(_ path: String, count: Int) throws {
        let writer = try LogWriter.open(path: path, options: .init(durability: .noSync, createIfMissing: true))
        defer { writer.close() }
        try writer.append(Keeping.entries(count))
        try writer.sync()
    }

    @Test func aSyncedLongWriteLeavesAMarkAndAnUnsyncedOneNone() throws {
        let dir = TemporaryDirectory()
        let synced = dir.file("synced.labellog")
        try Self.writeSynced(synced, count: 5_000)
        let reader = try LogReader(path: synced)
        let mark = try #require(SyncMark.load(forLogAt: synced, header: reader.header, file: reader.file))
        #expect(try mark == Keeping.positions(synced).last)

        let unsynced = dir.file("unsynced.labellog")
        try writeLog(unsynced, Keeping.entries(5_000), batch: true)
        #expect(!FileManager.default.fileExists(atPath: SyncMark.path(for: unsynced)), "a noSync write never synced claims nothing")

        let short = dir.file("short.labellog")
        try Self.writeSynced(short, count: Int(SyncMark.interval) - 1)
        #expect(!FileManager.default.fileExists(atPath: SyncMark.path(for: short)), "short writes need no mark: a frame proves them")
    }

    @Test func aCachedPositionInsideASyncedWriteIsKeptWithoutAForwardCheck() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let count = Recovery.backwardWalkLimit + 3_000
        try Self.writeSynced(path, count: count)
        let positions = try Keeping.positions(path)

        // Damage early in the write. It was durable (the mark says so): corruption, which a full
        // read reports and recovery refuses to cut; a read that jumps past it does not read it.
        try Keeping.damage(path, record: 5)
        let damaged = readBytes(path)
        let reader = try LogReader(path: path)
        #expect(try reader.keeps(positions[count - 1]) == .kept)
        #expect(try reader.keeps(positions[count / 2]) == .kept)
        #expect(Keeping.fullReadCount(path) == nil, "a full read meets the damage as corruption, not as the end")
        #expect(throws: EventLogError.self) { try LogReader.scan(path: path) }
        #expect(throws: EventLogError.self, "a writer's open does not cut durable records as a torn tail") {
            try LogWriter.open(path: path)
        }
        #expect(readBytes(path) == damaged, "nothing was cut")

        // Without the mark, the same bytes are an unsynced write torn by a crash, as before.
        try FileManager.default.removeItem(atPath: SyncMark.path(for: path))
        #expect(try LogReader(path: path).keeps(positions[count - 1]) == .notKept)
        #expect(Keeping.fullReadCount(path) == 4)
    }

    @Test func recordsWrittenAfterTheMarkAreStillCheckedAsAnUnsyncedWrite() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let writer = try LogWriter.open(path: path, options: .init(durability: .noSync, createIfMissing: true))
        try writer.append(Keeping.entries(5_000))
        try writer.sync()
        try writer.append(Keeping.entries(Recovery.backwardWalkLimit + 2_000))  // never synced
        writer.close()
        let positions = try Keeping.positions(path)
        try Keeping.damage(path, record: 6_000)
        let reader = try LogReader(path: path)
        #expect(try reader.keeps(positions[4_999]) == .kept, "the synced write")
        #expect(try reader.keeps(positions[positions.count - 1]) == .notKept)
        #expect(Keeping.fullReadCount(path) == 5_999, "the unsynced write is a torn tail from the damage")
    }

    @Test func aMarkOfAnotherLogOrAReplacedFileIsIgnored() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("a.labellog")
        let count = Recovery.backwardWalkLimit + 1_000
        try Self.writeSynced(path, count: count)
        let positions = try Keeping.positions(path)

        // The same history copied to a new file (a new inode): the mark describes the old file only.
        let copy = dir.file("copy.labellog")
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        try FileManager.default.copyItem(atPath: SyncMark.path(for: path), toPath: SyncMark.path(for: copy))
        try Keeping.damage(copy, record: 10)
        #expect(try LogReader(path: copy).keeps(positions[count - 1]) == .notKept)

        // Another log's mark beside this one.
        let other = dir.file("other.labellog")
        try writeLog(other, Keeping.entries(count), batch: true)
        try FileManager.default.removeItem(atPath: SyncMark.path(for: copy))
        try FileManager.default.copyItem(atPath: SyncMark.path(for: path), toPath: SyncMark.path(for: other))
        let otherPositions = try Keeping.positions(other)
        try Keeping.damage(other, record: 10)
        #expect(try LogReader(path: other).keeps(otherPositions[count - 1]) == .notKept)

        // A damaged mark file.
        var text = try String(contentsOfFile: SyncMark.path(for: path), encoding: .utf8)
        text = text.replacingOccurrences(of: " \(positions[count - 1].offset) ", with: " \(positions[count - 2].offset) ")
        try text.write(toFile: SyncMark.path(for: path), atomically: false, encoding: .utf8)
        let reader = try LogReader(path: path)
        #expect(SyncMark.load(forLogAt: path, header: reader.header, file: reader.file) == nil)
    }

    @Test func cuttingRecordsTheMarkNamesRemovesIt() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        try Self.writeSynced(path, count: 5_000)
        #expect(FileManager.default.fileExists(atPath: SyncMark.path(for: path)))
        let writer = try LogWriter.open(path: path)
        try writer.discardRecords(after: 4_000)
        #expect(!FileManager.default.fileExists(atPath: SyncMark.path(for: path)))
        // Rewritten records past the old mark: they are checked as any write is.
        try writer.append(Keeping.entries(100))
        writer.close()
        let reader = try LogReader(path: path)
        #expect(SyncMark.load(forLogAt: path, header: reader.header, file: reader.file) == nil)
    }

    @Test func aSalvageThatCutsBelowTheMarkRemovesIt() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        try Self.writeSynced(path, count: 5_000)
        try Keeping.damage(path, record: 100)
        let writer = try LogWriter.open(path: path, options: .init(recovery: .pointInTime))
        #expect(writer.lastSeq == 99)
        #expect(!FileManager.default.fileExists(atPath: SyncMark.path(for: path)))
        writer.close()
        #expect(Keeping.fullReadCount(path) == 99)
    }

    @Test func aWriterOpenMarksWhatItsOpeningSyncMadeDurable() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        try writeLog(path, Keeping.entries(5_000), batch: true)  // noSync: no mark
        #expect(!FileManager.default.fileExists(atPath: SyncMark.path(for: path)))
        let writer = try LogWriter.open(path: path)  // syncs what it found before appending
        writer.close()
        let reader = try LogReader(path: path)
        #expect(SyncMark.load(forLogAt: path, header: reader.header, file: reader.file)?.seq == 5_000)
    }

    @Test func anOpenLogCutGivesTheNewFileItsOwnMark() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        try Self.writeSynced(path, count: 9_000)
        let writer = try LogWriter.open(path: path)
        try writer.cutHistory(through: 100, archiveTo: nil, now: .now()) { [] }
        writer.close()
        let reader = try LogReader(path: path)
        let mark = try #require(SyncMark.load(forLogAt: path, header: reader.header, file: reader.file))
        #expect(try mark == Keeping.positions(path).last)
    }
}
