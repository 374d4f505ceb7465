import Foundation
import LabelStoreTestSupport
import Testing

@testable import EventLog

/// The history index in segments (docs/INDEX.md, "The delta file"): an
/// update appends a segment of the records since the last one; the segments
/// answer exactly as one index over the same records would, and as scanning
/// does; a merge writes the base that building from seq 1 writes, byte for
/// byte; a torn, damaged or foreign delta file is reported or ignored and
/// never changes an answer, and the next update repairs it.
@Suite struct HistoryIndexSegmentTests {
    typealias T = HistoryIndexTests

    /// A log of `base` records indexed, then `rounds` appends of `each` records, each followed by an update.
    static func segmentedLog(
        base: Int, rounds: Int, each: Int, seed: UInt64, ids: [LabelID], dir: TemporaryDirectory
    ) throws -> (path: String, changes: [HistoryIndexFile.Update.Change]) {
        let path = dir.file()
        var rng = SeededGenerator(seed: seed)
        try T.append(T.randomEntries(base, rng: &rng, ids: ids), to: path)
        #expect(try HistoryIndexFile.update(logPath: path).change == .rebuilt)
        var changes: [HistoryIndexFile.Update.Change] = []
        for _ in 0..<rounds {
            try T.append(T.randomEntries(Int.random(in: 1...each, using: &rng), rng: &rng, ids: ids), to: path)
            changes.append(try HistoryIndexFile.update(logPath: path).change)
        }
        return (path, changes)
    }

    /// Every random query answered through `index` is the scanning answer.
    static func expectAnswersEqualScanning(_ path: String, index: HistoryIndex, seed: UInt64, ids: [LabelID]) throws {
        var rng = SeededGenerator(seed: seed)
        let (all, _) = try LogReader.readAll(path: path)
        for n in 0..<40 {
            let query = T.randomQuery(rng: &rng, ids: ids)
            let from = n % 3 == 0 ? UInt64.random(in: 1...UInt64(all.count), using: &rng) : 1
            let expected = all.filter { $0.seq >= from && query.matches($0) }
            #expect(try T.answer(path, query, index: index, from: from) == expected, "query \(n) from \(from)")
        }
    }

    @Test(arguments: [11, 12, 13])
    func segmentsAnswerAsScanningAndMergeIntoTheRebuiltBase(seed: UInt64) throws {
        let dir = TemporaryDirectory()
        let ids = (0..<300).map { _ in LabelID() }
        // Appends of up to 700 records: segments start and end inside blocks of 1,024.
        let (path, changes) = try Self.segmentedLog(base: 16_000, rounds: 6, each: 650, seed: seed, ids: ids, dir: dir)
        #expect(changes == Array(repeating: .appendedSegment, count: 6))
        let index = try #require(HistoryIndexFile.load(for: LogReader(path: path)).index)
        #expect(index.segmentCount == 6 && index.baseCoveredSeq == 16_000 && index.deltaProblem == nil)
        let (all, _) = try LogReader.readAll(path: path)
        #expect(index.coveredSeq == UInt64(all.count))
        try Self.expectAnswersEqualScanning(path, index: index, seed: seed, ids: ids)

        // One index over the same records, built from seq 1: the same answers to every accessor.
        let rebuilt = try HistoryIndexBuilder(index).build()
        let scratch = dir.file("scratch.labellog")
        try FileManager.default.copyItem(atPath: path, toPath: scratch)
        let fromScratch = try HistoryIndexFile.update(logPath: scratch, rebuild: true).index
        #expect(rebuilt == fromScratch, "merging the segments is not building from seq 1")
        #expect(try index.labelIDs == fromScratch.labelIDs && index.labelCount == fromScratch.labelCount)
        #expect(Set(index.actors) == Set(fromScratch.actors) && index.blockCount == fromScratch.blockCount)
        #expect((0..<index.blockCount).map(index.block) == (0..<fromScratch.blockCount).map(fromScratch.block))
        for id in ids.prefix(50) { #expect(try index.seqs(ofLabel: id) == fromScratch.seqs(ofLabel: id)) }
        for actor in fromScratch.actors { #expect(try index.seqs(ofActor: actor) == fromScratch.seqs(ofActor: actor)) }
        #expect(try index.reorders == fromScratch.reorders)
        for seq in stride(from: UInt64(1), through: index.coveredSeq, by: 37) {
            #expect(try index.recordOffsets(of: seq)?.offset == fromScratch.recordOffsets(of: seq)?.offset, "seq \(seq)")
        }
    }

    @Test func theSegmentsAreMergedWhenTheyGrowAndTheMergedBaseIsTheRebuiltOne() throws {
        let dir = TemporaryDirectory()
        let ids = (0..<100).map { _ in LabelID() }
        let (path, changes) = try Self.segmentedLog(
            base: 8_000, rounds: HistoryIndexFile.maxSegments + 1, each: 60, seed: 5, ids: ids, dir: dir)
        // Up to maxSegments segments, then one merge (each round adds at most 60 records: far below a quarter of the base).
        #expect(
            Array(changes.prefix(HistoryIndexFile.maxSegments)) == Array(repeating: .appendedSegment, count: HistoryIndexFile.maxSegments))
        #expect(changes.last == .merged)
        let index = try #require(HistoryIndexFile.load(for: LogReader(path: path)).index)
        #expect(index.segmentCount == 0)
        let baseBytes = try Data(contentsOf: URL(fileURLWithPath: HistoryIndexFile.path(for: path)))
        let rebuilt = try HistoryIndexFile.update(logPath: path, rebuild: true)
        #expect(rebuilt.change == .rebuilt && rebuilt.index == index)
        #expect(try Data(contentsOf: URL(fileURLWithPath: HistoryIndexFile.path(for: path))) == baseBytes)

        // A quarter of the base in one append merges too.
        var rng = SeededGenerator(seed: 6)
        try T.append(T.randomEntries(Int(index.coveredSeq) / 4 + 1, rng: &rng, ids: ids), to: path)
        #expect(try HistoryIndexFile.update(logPath: path).change == .merged)
        #expect(try HistoryIndexFile.update(logPath: path).change == .unchanged)
    }

    @Test func anAppendThatDidNotFinishIsNotUsedAndTheNextUpdateDropsIt() throws {
        let dir = TemporaryDirectory()
        let ids = (0..<50).map { _ in LabelID() }
        let (path, _) = try Self.segmentedLog(base: 5_000, rounds: 3, each: 200, seed: 7, ids: ids, dir: dir)
        let deltaPath = HistoryIndexFile.deltaPath(for: path)
        let good = try Array(Data(contentsOf: URL(fileURLWithPath: deltaPath)))
        let full = try #require(HistoryIndexFile.load(for: LogReader(path: path)).index)
        let lastEntry = try #require(Self.entryOffsets(good).last)
        // The entry written but its last byte that is not zero (a torn write leaves zeros; a byte
        // that is zero anyway, one time in 256 for the checksum's last, would leave the entry whole).
        let lastNonZero = try #require((lastEntry..<(lastEntry + 40)).last { good[$0] != 0 })
        // The last segment's bytes written (whole or in part), its entry not yet (zero) or torn.
        let torn: [(bytes: [UInt8], reported: Bool)] = [
            (Array(good[..<lastEntry]) + [UInt8](repeating: 0, count: 40) + good[(lastEntry + 40)...], false),
            (Array(good[..<lastEntry]) + [UInt8](repeating: 0, count: 40) + good[(lastEntry + 40)..<(good.count - 100)], false),
            (Array(good[..<(lastEntry + 1)]) + [UInt8](repeating: 0, count: 39) + good[(lastEntry + 40)...], true),
            (Array(good[..<lastNonZero]) + [UInt8](repeating: 0, count: lastEntry + 40 - lastNonZero) + good[(lastEntry + 40)...], true),
            (Array(good[..<(lastEntry + 20)]), true)
        ]
        for (n, (bytes, reported)) in torn.enumerated() {
            try Data(bytes).write(to: URL(fileURLWithPath: deltaPath))
            let index = try #require(HistoryIndexFile.load(for: LogReader(path: path)).index)
            #expect(
                index.segmentCount == 2 && (index.deltaProblem != nil) == reported, "case \(n): \(String(describing: index.deltaProblem))")
            try Self.expectAnswersEqualScanning(path, index: index, seed: 8, ids: ids)
            // The next update writes the file again with the segment.
            let update = try HistoryIndexFile.update(logPath: path)
            #expect(update.change == .appendedSegment && update.index.segmentCount == 3 && update.index.coveredSeq == full.coveredSeq)
            let reread = try #require(HistoryIndexFile.load(for: LogReader(path: path)).index)
            #expect(reread == update.index && reread.deltaProblem == nil)
        }
    }

    /// The byte offsets of the segment entries of a delta file's bytes.
    static func entryOffsets(_ bytes: [UInt8]) -> [Int] {
        var offsets: [Int] = []
        var at = 64
        while at + 40 <= bytes.count, bytes[at..<at + 4].elementsEqual("IXSG".utf8) {
            offsets.append(at)
            let length = bytes[at + 24..<at + 32].reversed().reduce(0) { $0 << 8 | Int($1) }
            at += 40 + length
        }
        return offsets
    }

    @Test func aDamagedSegmentIsReportedItsRecordsScannedAndTheNextUpdateRepairsIt() throws {
        let dir = TemporaryDirectory()
        let ids = (0..<400).map { _ in LabelID() }
        let (path, _) = try Self.segmentedLog(base: 9_000, rounds: 4, each: 500, seed: 9, ids: ids, dir: dir)
        let deltaPath = HistoryIndexFile.deltaPath(for: path)
        let good = try Array(Data(contentsOf: URL(fileURLWithPath: deltaPath)))
        let entries = Self.entryOffsets(good)
        #expect(entries.count == 4)
        let (all, _) = try LogReader.readAll(path: path)
        var rng = SeededGenerator(seed: 10)
        var reported = 0
        // Bytes of the header, of each entry and spread over every segment, checked lazily (wholeCheckLimit 0) and whole.
        let offsets =
            Array(stride(from: 0, to: 64, by: 3)) + entries.flatMap { stride(from: $0, to: $0 + 40, by: 3) }
            + stride(from: 64, to: good.count, by: 401)
        for (n, offset) in offsets.enumerated() {
            var bytes = good
            bytes[offset] ^= n % 2 == 0 ? 0x04 : 0x80
            try Data(bytes).write(to: URL(fileURLWithPath: deltaPath))
            for limit in [0, HistoryIndexFile.wholeCheckLimit] {
                let index = try #require(HistoryIndexFile.load(for: LogReader(path: path), wholeCheckLimit: limit).index)
                if index.deltaProblem != nil { reported += 1 }
                // The segments used are whole segments of the good file; later ones are not used.
                #expect(index.segmentCount <= 4 && index.baseCoveredSeq == 9_000)
                if n % 5 == 0 {
                    let query = T.randomQuery(rng: &rng, ids: ids)
                    // A damaged part read lazily throws and is not used: the answer is scanned instead.
                    #expect(try T.answer(path, query, index: index) == all.filter(query.matches), "flip at \(offset)")
                }
            }
        }
        #expect(reported > offsets.count / 2)
        let update = try HistoryIndexFile.update(logPath: path)
        #expect(update.index.coveredSeq == UInt64(all.count))
        let repaired = try #require(HistoryIndexFile.load(for: LogReader(path: path), wholeCheckLimit: .max).index)
        #expect(repaired.deltaProblem == nil && repaired.coveredSeq == UInt64(all.count))
        try Self.expectAnswersEqualScanning(path, index: repaired, seed: 11, ids: ids)
    }

    @Test func aDeltaFileThatExtendsAnotherBaseIsIgnoredAndRewritten() throws {
        let dir = TemporaryDirectory()
        let ids = (0..<50).map { _ in LabelID() }
        let (path, _) = try Self.segmentedLog(base: 4_000, rounds: 2, each: 300, seed: 12, ids: ids, dir: dir)
        let deltaPath = HistoryIndexFile.deltaPath(for: path)
        let old = try Data(contentsOf: URL(fileURLWithPath: deltaPath))
        // A merge that crashed after renaming the new base: the old delta file names the old base.
        _ = try HistoryIndexFile.update(logPath: path, rebuild: true)
        try old.write(to: URL(fileURLWithPath: deltaPath))
        let index = try #require(HistoryIndexFile.load(for: LogReader(path: path)).index)
        #expect(index.segmentCount == 0 && index.deltaProblem?.reason.contains("another base") == true)
        try Self.expectAnswersEqualScanning(path, index: index, seed: 13, ids: ids)
        var rng = SeededGenerator(seed: 14)
        try T.append(T.randomEntries(100, rng: &rng, ids: ids), to: path)
        let update = try HistoryIndexFile.update(logPath: path)
        #expect(update.change == .appendedSegment && update.index.segmentCount == 1)
        #expect(try #require(HistoryIndexFile.load(for: LogReader(path: path)).index).deltaProblem == nil)
    }

    @Test func aSegmentOverALogCutAndRewrittenIsNotUsed() throws {
        let dir = TemporaryDirectory()
        let ids = (0..<50).map { _ in LabelID() }
        let (path, _) = try Self.segmentedLog(base: 4_000, rounds: 3, each: 300, seed: 15, ids: ids, dir: dir)
        let index = try #require(HistoryIndexFile.load(for: LogReader(path: path)).index)
        // Cut the log inside the second segment and write other records after it.
        let second = index.parts[2]
        let cut = second.firstSeq + (second.coveredSeq - second.firstSeq) / 2
        let offset = try #require(try index.recordOffsets(of: cut)).offset
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: UInt64(offset))
        try handle.close()
        var rng = SeededGenerator(seed: 16)
        try T.append(T.randomEntries(200, rng: &rng, ids: ids), to: path)
        let after = try #require(HistoryIndexFile.load(for: LogReader(path: path)).index)
        #expect(after.segmentCount == 1 && after.deltaProblem?.reason.contains("cut or rewritten") == true)
        try Self.expectAnswersEqualScanning(path, index: after, seed: 17, ids: ids)
        let update = try HistoryIndexFile.update(logPath: path)
        #expect(update.change == .appendedSegment && update.index.segmentCount == 2)
        try Self.expectAnswersEqualScanning(path, index: update.index, seed: 18, ids: ids)
    }

    @Test func updatersRacingAWriterLeaveTheIndexThatRebuildingWrites() throws {
        let dir = TemporaryDirectory()
        let ids = (0..<80).map { _ in LabelID() }
        let path = dir.file()
        var rng = SeededGenerator(seed: 19)
        try T.append(T.randomEntries(6_000, rng: &rng, ids: ids), to: path)
        _ = try HistoryIndexFile.update(logPath: path)
        let batches = (0..<30).map { _ in T.randomEntries(Int.random(in: 20...150, using: &rng), rng: &rng, ids: ids) }
        let failures = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 3) { worker in
            do {
                if worker == 0 {
                    for batch in batches { try T.append(batch, to: path) }
                } else {
                    for _ in 0..<25 { _ = try HistoryIndexFile.update(logPath: path) }
                }
            } catch {
                failures.withLock { $0.append("worker \(worker): \(error)") }
            }
        }
        #expect(failures.withLock { $0 } == [])
        _ = try HistoryIndexFile.update(logPath: path)
        let index = try #require(HistoryIndexFile.load(for: LogReader(path: path), wholeCheckLimit: .max).index)
        let (all, _) = try LogReader.readAll(path: path)
        #expect(index.deltaProblem == nil && index.coveredSeq == UInt64(all.count))
        try Self.expectAnswersEqualScanning(path, index: index, seed: 20, ids: ids)
        let scratch = dir.file("scratch.labellog")
        try FileManager.default.copyItem(atPath: path, toPath: scratch)
        #expect(try HistoryIndexBuilder(index).build() == HistoryIndexFile.update(logPath: scratch, rebuild: true).index)
    }
}
