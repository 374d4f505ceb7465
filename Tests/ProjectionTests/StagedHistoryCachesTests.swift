import EventLog
import Foundation
import LabelStoreTestSupport
import Testing

@testable import LabelProjection

/// A new log's history caches built while a streamed append writes it
/// (`StagedHistoryCaches`, what `labelreplay import` uses): `LOG.checkpoints`,
/// `LOG.index`, `LOG.index-delta` and `LOG.tree` are byte for byte the files
/// the updates write from the committed log, in log formats 2 and 4, whatever
/// the chunks; an append that is not committed leaves no file and no
/// temporary, and the caches that were there as they were.
@Suite struct StagedHistoryCachesTests {
    let helpers = SnapshotStoreTests()
    static let interval: UInt64 = 16
    static let cacheSuffixes = [".checkpoints", ".index", ".index-delta", ".tree"]

    /// The entries of a seeded random history of `writes` records (every
    /// kind), and after them a removed label added again, renamed and
    /// removed again (its slot then has two removals).
    func entries(in dir: TemporaryDirectory, writes: Int, seed: UInt64) throws -> [LogEntry] {
        let path = dir.file("reference.labellog")
        let store = try LabelStore.open(path: path, options: helpers.options())
        try helpers.write(writes, to: store, seed: seed)
        let removed = try #require(
            try LogReader.readAll(path: path).records.lazy.compactMap { record -> LabelID? in
                if case .removed(let id, _, _, _) = record.event { return id }
                return nil
            }.first)
        try store.append(entries: [LogEntry(.added(id: removed, title: "back", isEnabled: true, index: 0))])
        try store.rename(removed, to: "back again")
        try store.remove(removed)
        store.close()
        return try LogReader.readAll(path: path).records.map {
            LogEntry($0.event, timestamp: $0.timestamp, actor: $0.actor, note: $0.note)
        }
    }

    /// A new, empty log of format `version` at `path`, open in a store.
    func emptyStore(at path: String, version: UInt16) throws -> LabelStore {
        var options = LogWriter.Options(durability: .noSync, createIfMissing: true)
        options.creationHeader = LogHeader(version: version, logID: LabelID(), createdAt: EventTimestamp(millisecondsSince1970: 1))
        try LogWriter.open(path: path, options: options).close()
        return try LabelStore.open(path: path, options: helpers.options(create: false))
    }

    /// `entries` cut into chunks of seeded random sizes (1 to 70: checkpoints fall inside and at the ends of chunks).
    static func chunks(_ entries: [LogEntry], seed: UInt64) -> [[LogEntry]] {
        var rng = SeededGenerator(seed: seed)
        var result: [[LogEntry]] = []
        var at = 0
        while at < entries.count {
            let n = min(Int.random(in: 1...70, using: &rng), entries.count - at)
            result.append(Array(entries[at..<at + n]))
            at += n
        }
        return result
    }

    func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    func leftovers(in dir: TemporaryDirectory) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(SystemFile.temporaryMarker) }
    }

    static let formatsAndSeeds: [(version: UInt16, seed: UInt64)] = [
        (1, 9), (2, 1), (2, 2), (LogFormat.batchVersion, 3), (LogFormat.batchVersion, 4)
    ]

    @Test(arguments: 0..<5)
    func theCachesBuiltWhileWritingAreTheFilesTheUpdatesWrite(_ run: Int) throws {
        let (version, seed) = Self.formatsAndSeeds[run]
        let dir = TemporaryDirectory()
        let entries = try entries(in: dir, writes: 600, seed: seed)
        let path = dir.file("imported.labellog")
        let store = try emptyStore(at: path, version: version)
        let caches = try StagedHistoryCaches(
            logPath: path, header: try #require(store.storage as? LogWriter).header, interval: Self.interval, fullEvery: 4)
        let seqs = try store.appendStreamed(StreamedAppendTests.source(Self.chunks(entries, seed: seed)), building: caches)
        #expect(seqs == 1...UInt64(entries.count))
        let checkpoints = try caches.finish()
        store.close()
        #expect(checkpoints == Array(stride(from: Self.interval, through: UInt64(entries.count), by: Int(Self.interval))))
        #expect(try leftovers(in: dir).isEmpty)
        let built = try Self.cacheSuffixes.map { try bytes(path + $0) }
        // The updates' files, with the same full-image rule.
        for suffix in Self.cacheSuffixes { try? FileManager.default.removeItem(atPath: path + suffix) }
        _ = try CheckpointFile.update(logPath: path, rebuild: true, interval: Self.interval, fullEvery: 4)
        _ = try HistoryIndexFile.update(logPath: path, rebuild: true)
        _ = try HistoryTreeFile.update(logPath: path)
        let expected = try Self.cacheSuffixes.map { try bytes(path + $0) }
        for (suffix, (got, want)) in zip(Self.cacheSuffixes, zip(built, expected)) {
            #expect(got == want, "\(suffix): \(got.count) bytes built while writing, \(want.count) by the update")
        }
        // And a reader takes every checkpoint as the fold of the log up to its seq.
        let (taken, wrong) = try CheckpointFileAppendTests().takenCheckpoints(path)
        #expect(!taken.isEmpty && wrong.isEmpty, "\(wrong)")
    }

    @Test func anAppendThatIsNotCommittedLeavesTheCachesThatWereThere() throws {
        let dir = TemporaryDirectory()
        let entries = try entries(in: dir, writes: 300, seed: 5)
        let path = dir.file("imported.labellog")
        let store = try emptyStore(at: path, version: 2)
        defer { store.close() }
        // Files a former log of that name left: they stay as they are.
        for suffix in Self.cacheSuffixes { try Data("old \(suffix)".utf8).write(to: URL(fileURLWithPath: path + suffix)) }
        let before = try Self.cacheSuffixes.map { try bytes(path + $0) }
        var chunks = Self.chunks(entries, seed: 6)
        chunks[chunks.count / 2][0] = LogEntry(.toggled(id: testID(999_999), isEnabled: true))
        let caches = try StagedHistoryCaches(
            logPath: path, header: try #require(store.storage as? LogWriter).header, interval: Self.interval)
        #expect(throws: StoreError.self) { try store.appendStreamed(StreamedAppendTests.source(chunks), building: caches) }
        caches.abandon()
        #expect(store.lastSeq == 0)
        #expect(try leftovers(in: dir).isEmpty)
        #expect(try Self.cacheSuffixes.map { try bytes(path + $0) } == before)
        // Abandoning again, or after a commit that was not kept, does nothing more.
        caches.abandon()
        #expect(try leftovers(in: dir).isEmpty)
    }

    @Test func theReaderOfStagedFramesReadsWhatTheCommittedLogHolds() throws {
        let dir = TemporaryDirectory()
        let entries = try entries(in: dir, writes: 400, seed: 8)
        for version in [UInt16(2), LogFormat.batchVersion] {
            let path = dir.file("staged-\(version).labellog")
            let store = try emptyStore(at: path, version: version)
            let writer = try #require(store.storage as? LogWriter)
            let reader = StagedFrameReader(header: writer.header, path: path)
            var staged: [(seq: UInt64, position: LogPosition, payload: [UInt8])] = []
            try writer.appendStaged(expectedLastSeq: 0) { stage in
                var seq: UInt64 = 1
                for chunk in Self.chunks(entries, seed: UInt64(version)) {
                    let records = chunk.enumerated().map {
                        $0.element.record(seq: seq + UInt64($0.offset), now: EventTimestamp(millisecondsSince1970: 5))
                    }
                    seq += UInt64(records.count)
                    reader.append(try #require(try stage.writeKeepingFrames(records)))
                    try reader.forEachView { view, position in staged.append((view.seq, position, Array(view.payload))) }
                }
            }
            store.close()
            let committed = try LogReader(path: path)
            var read: [(seq: UInt64, position: LogPosition, payload: [UInt8])] = []
            while let (view, position) = try committed.nextPositionedView() { read.append((view.seq, position, Array(view.payload))) }
            #expect(staged.count == entries.count && read.count == entries.count)
            #expect(staged.map(\.seq) == read.map(\.seq))
            #expect(staged.map(\.position) == read.map(\.position), "format \(version)")
            #expect(staged.map(\.payload) == read.map(\.payload), "format \(version)")
        }
    }
}
