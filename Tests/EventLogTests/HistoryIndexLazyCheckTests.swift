import Foundation
import LabelStoreTestSupport
import Testing

@testable import EventLog

/// A large history index is checked part by part as the parts are read: a
/// damaged part is never used — every accessor either throws or returns what
/// the undamaged index returns, and the answers read through it equal
/// scanning — and an index of the old format is reported and rebuilt.
@Suite struct HistoryIndexLazyCheckTests {
    /// Everything an index says that a query can read, part by part (`nil`: that part threw).
    struct Contents: Equatable {
        var labelIDs: [LabelID]?
        /// The ids of each single hex digit prefix (between them, every chunk of the directory).
        var prefixed: [[LabelID]?]
        var labelSeqs: [[UInt64]?]
        var actorSeqs: [[UInt64]?]
        var reorders: [UInt64]?
        var offsets: [Int64?]
        var blocks: [HistoryIndex.Block]

        init(_ index: HistoryIndex, ids: [LabelID], actors: [String?]) {
            labelIDs = try? index.labelIDs
            prefixed = (0..<16).map { digit in try? index.labelIDs(startingWith: [UInt8(digit)]) }
            labelSeqs = ids.map { try? index.seqs(ofLabel: $0) }
            actorSeqs = actors.map { try? index.seqs(ofActor: $0) }
            reorders = try? index.reorders
            // Two records of each block (each read checks the block's offsets whole).
            offsets = (0..<UInt64(index.blockCount)).flatMap { k in
                [k * HistoryIndex.blockSize + 1, min((k + 1) * HistoryIndex.blockSize, index.coveredSeq)]
            }.map { (try? index.recordOffsets(of: $0))??.offset }
            blocks = (0..<index.blockCount).map(index.block)
        }

        /// Whether every part read here is the good index's (a part that threw is never used).
        func agrees(with good: Contents) -> Bool {
            func same<T: Equatable>(_ a: T?, _ b: T?) -> Bool { a == nil || a == b }
            return same(labelIDs, good.labelIDs) && zip(prefixed, good.prefixed).allSatisfy { same($0, $1) }
                && zip(labelSeqs, good.labelSeqs).allSatisfy { same($0, $1) }
                && zip(actorSeqs, good.actorSeqs).allSatisfy { same($0, $1) } && same(reorders, good.reorders)
                && zip(offsets, good.offsets).allSatisfy { same($0, $1) } && blocks == good.blocks
        }
    }

    @Test func aDamagedPartOfALazilyCheckedIndexIsNeverUsed() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        var rng = SeededGenerator(seed: 31)
        // Enough labels for several chunks of the directory, enough records for several blocks.
        let ids = (0..<700).map { _ in LabelID() }
        try HistoryIndexTests.append(HistoryIndexTests.randomEntries(4_500, rng: &rng, ids: ids), to: path)
        _ = try HistoryIndexFile.update(logPath: path)
        let indexPath = HistoryIndexFile.path(for: path)
        let goodBytes = try Array(Data(contentsOf: URL(fileURLWithPath: indexPath)))
        let actors: [String?] = ["alice", "bob", "sync", nil, "ünïcode", "nobody"]
        let probe = ids.prefix(30) + [LabelID()]
        let goodIndex = try #require(HistoryIndexFile.load(for: LogReader(path: path), wholeCheckLimit: 0).index)
        let good = Contents(goodIndex, ids: Array(probe), actors: actors)
        #expect(try good.labelIDs?.count == goodIndex.labelCount && good.offsets.allSatisfy { $0 != nil })
        let (all, _) = try LogReader.readAll(path: path)
        let queries = (0..<3).map { _ in HistoryIndexTests.randomQuery(rng: &rng, ids: ids) }

        var caught = 0
        var flips = 0
        // Every header byte, then bytes spread over the whole file.
        let offsets = Array(0..<HistoryIndexPart.headerLength) + stride(from: HistoryIndexPart.headerLength, to: goodBytes.count, by: 97)
        for (n, offset) in offsets.enumerated() {
            var bytes = goodBytes
            bytes[offset] ^= n % 2 == 0 ? 0x01 : 0x80
            try Data(bytes).write(to: URL(fileURLWithPath: indexPath))
            flips += 1
            guard let index = HistoryIndexFile.load(for: try LogReader(path: path), wholeCheckLimit: 0).index else {
                caught += 1
                continue
            }
            let contents = Contents(index, ids: Array(probe), actors: actors)
            #expect(contents.agrees(with: good), "a flip at byte \(offset) changed a part that was used")
            if contents != good { caught += 1 }
            if n % 16 == 0 {
                for query in queries {
                    #expect(try HistoryIndexTests.answer(path, query, index: index) == all.filter(query.matches), "flip at \(offset)")
                }
            }
        }
        // The reads above cover every part but label lists not probed: nearly every flip is caught by some check.
        #expect(caught * 10 >= flips * 8, "\(caught) of \(flips) flips caught")
    }

    @Test func anIndexOfTheOldFormatIsReportedAndRebuilt() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        var rng = SeededGenerator(seed: 32)
        let ids = (0..<5).map { _ in LabelID() }
        try HistoryIndexTests.append(HistoryIndexTests.randomEntries(300, rng: &rng, ids: ids), to: path)
        // A format 1 header (the rest does not matter: the version is read first).
        let old = Array("LABELIDX".utf8) + [1, 0] + [UInt8](repeating: 0, count: 62)
        try Data(old).write(to: URL(fileURLWithPath: HistoryIndexFile.path(for: path)))
        guard case .ignored(let problem) = HistoryIndexFile.load(for: try LogReader(path: path)) else {
            Issue.record("a format 1 index was used")
            return
        }
        #expect(problem.reason.contains("format version 1"), "\(problem)")
        let update = try HistoryIndexFile.update(logPath: path)
        #expect(update.added == 300 && update.index.coveredSeq == 300)
        #expect(HistoryIndexFile.load(for: try LogReader(path: path)).index == update.index)
    }

    @Test func recordsReachedThroughTheirOffsetsAreTheLogsRecords() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        var rng = SeededGenerator(seed: 33)
        let ids = (0..<20).map { _ in LabelID() }
        try HistoryIndexTests.append(HistoryIndexTests.randomEntries(5_000, rng: &rng, ids: ids), to: path)
        let index = try HistoryIndexFile.update(logPath: path).index
        let (all, _) = try LogReader.readAll(path: path)
        let reader = try LogReader(path: path)
        for _ in 0..<400 {
            let seq = UInt64.random(in: 1...5_000, using: &rng)
            #expect(try reader.record(atSeq: seq, using: index) == all[Int(seq - 1)], "seq \(seq)")
        }
        // Record offsets that are wrong yet checksummed make the read fail, never return another record:
        // record 1,501's offset is wrong. It is reached by reading on from 1,500 (its own offset is not
        // used); 1,502 is reached by jumping to 1,501's frame first, which is not there.
        var builder = try HistoryIndexBuilder(index)
        builder.recordOffsets[1_500] += 3
        let wrong = builder.build()
        #expect(try LogReader(path: path).record(atSeq: 1_501, using: wrong) == all[1_500])
        #expect(throws: EventLogError.self) { _ = try LogReader(path: path).record(atSeq: 1_502, using: wrong) }
        #expect(try LogReader(path: path).record(atSeq: 1_503, using: wrong) == all[1_502])
    }
}
