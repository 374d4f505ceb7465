import Foundation
import LabelStoreTestSupport
import Testing

@testable import EventLog

/// The history index narrows reads and never changes an answer: every
/// indexed answer equals the scanning answer (the reference), on seeded random
/// histories with timestamps that go back and forth, with the index covering
/// all, part or none of the log, and with indexes that are damaged, foreign,
/// stale or over a log cut and rewritten under them.
@Suite struct HistoryIndexTests {
    /// A random history: labels from a pool, several actors (and none), reorders, rejections, timestamps out of order.
    static func randomEntries(_ count: Int, rng: inout SeededGenerator, ids: [LabelID]) -> [LogEntry] {
        let actors: [String?] = ["alice", "bob", "sync", nil, "ünïcode"]
        return (0..<count).map { _ in
            let id = ids.randomElement(using: &rng)!
            let event: LabelEvent
            switch Int.random(in: 0..<20, using: &rng) {
            case 0..<4: event = .added(id: id, title: "t\(rng.next() % 100)", isEnabled: true, index: 0)
            case 4..<10: event = .renamed(id: id, oldTitle: "a", newTitle: "b\(rng.next() % 100)")
            case 10..<14: event = .toggled(id: id, isEnabled: Bool.random(using: &rng))
            case 14..<16: event = .moved(id: id, from: 0, to: Int(rng.next() % 5))
            case 16: event = .removed(id: id, index: 0, title: "gone", isEnabled: false)
            case 17: event = .reordered(order: Array(ids.shuffled(using: &rng).prefix(Int.random(in: 1...4, using: &rng))))
            case 18: event = .rejected(id: id, command: "rename", reason: "removed")
            default: event = .rejected(id: nil, command: "reverse", reason: "empty")
            }
            // Imports keep the caller's times: not monotonic.
            let time = EventTimestamp(millisecondsSince1970: 1_700_000_000_000 + Int64.random(in: 0..<10_000_000, using: &rng))
            return LogEntry(event, timestamp: time, actor: actors.randomElement(using: &rng)!)
        }
    }

    static func randomQuery(rng: inout SeededGenerator, ids: [LabelID]) -> HistoryQuery {
        var query = HistoryQuery()
        if Bool.random(using: &rng) {
            query.labels = Set((0..<Int.random(in: 1...3, using: &rng)).map { _ in ids.randomElement(using: &rng)! })
        }
        if Int.random(in: 0..<3, using: &rng) == 0 { query.labels?.insert(LabelID()) }  // an id the log never names
        if Bool.random(using: &rng) {
            let actors: [String?] = ["alice", "bob", nil, "nobody"]
            query.actors = Set((0..<Int.random(in: 1...2, using: &rng)).map { _ in actors.randomElement(using: &rng)! })
        }
        if Int.random(in: 0..<3, using: &rng) == 0 {
            let a = 1_700_000_000_000 + Int64.random(in: 0..<10_000_000, using: &rng)
            let b = a + Int64.random(in: 0..<3_000_000, using: &rng)
            query.since = EventTimestamp(millisecondsSince1970: a)
            if Bool.random(using: &rng) { query.until = EventTimestamp(millisecondsSince1970: b) }
        }
        return query
    }

    /// The records `query` selects from `from` through `through`, read with `index`.
    static func answer(
        _ path: String, _ query: HistoryQuery, index: HistoryIndex?, from: UInt64 = 1, through: UInt64? = nil
    ) throws -> [EventRecord] {
        let reader = try LogReader(path: path)
        var found: [EventRecord] = []
        try reader.forEachRecord(matching: query, using: index, from: from, through: through) {
            found.append($0)
            return true
        }
        return found
    }

    static func append(_ entries: [LogEntry], to path: String, format: UInt16 = LogFormat.currentVersion) throws {
        var options = LogWriter.Options(durability: .noSync, createIfMissing: true)
        options.newLogFormat = format
        let writer = try LogWriter.open(path: path, options: options)
        defer { writer.close() }
        for chunk in stride(from: 0, to: entries.count, by: 97) {
            try writer.append(Array(entries[chunk..<min(chunk + 97, entries.count)]))
        }
    }

    @Test(arguments: [1, 2, 3])
    func indexedAnswersEqualScanningOnRandomHistories(seed: UInt64) throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        var rng = SeededGenerator(seed: seed)
        let ids = (0..<40).map { _ in LabelID() }
        try Self.append(Self.randomEntries(3_500, rng: &rng, ids: ids), to: path)
        let partial = try HistoryIndexFile.update(logPath: path).index  // covers 3,500 of what follows
        try Self.append(Self.randomEntries(1_700, rng: &rng, ids: ids), to: path)
        let full = try HistoryIndexFile.update(logPath: path)
        #expect(full.added == 1_700 && full.index.coveredSeq == 5_200)
        let (all, _) = try LogReader.readAll(path: path)
        for _ in 0..<60 {
            let query = Self.randomQuery(rng: &rng, ids: ids)
            let from = Bool.random(using: &rng) ? 1 : UInt64.random(in: 1...5_200, using: &rng)
            let through: UInt64? = Bool.random(using: &rng) ? nil : UInt64.random(in: from...5_300, using: &rng)
            let expected = all.filter { query.matches($0) && $0.seq >= from && $0.seq <= (through ?? .max) }
            for index in [nil, partial, full.index] {
                let found = try Self.answer(path, query, index: index, from: from, through: through)
                #expect(
                    found == expected,
                    "seed \(seed), \(query), from \(from) through \(String(describing: through)), index covering \(index?.coveredSeq ?? 0)")
            }
        }
    }

    /// The builder finds a history's first 16 actors by their bytes and any
    /// more through a table: with 30 actors (and none), in runs and at random,
    /// every actor's records are the ones a scan finds, and the index is the
    /// same bytes once extended as built whole.
    @Test func manyActorsAreIndexedAsAScanFindsThem() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        var rng = SeededGenerator(seed: 29)
        let ids = (0..<20).map { _ in LabelID() }
        let actors: [String?] = [nil] + (0..<30).map { "actor \($0) \(String(repeating: "é", count: $0 % 3))" }
        let entries = Self.randomEntries(2_000, rng: &rng, ids: ids).enumerated().map { k, entry in
            LogEntry(entry.event, timestamp: entry.timestamp, actor: k < 600 ? actors[k / 20] : actors.randomElement(using: &rng)!)
        }
        try Self.append(Array(entries.prefix(900)), to: path)
        _ = try HistoryIndexFile.update(logPath: path)
        try Self.append(Array(entries.dropFirst(900)), to: path)
        let index = try HistoryIndexFile.update(logPath: path).index
        let (all, _) = try LogReader.readAll(path: path)
        for actor in actors + ["actor 99"] {
            var query = HistoryQuery()
            query.actors = [actor]
            let expected = all.filter { query.matches($0) }
            #expect(try Self.answer(path, query, index: index) == expected, "actor \(actor ?? "none")")
        }
        let extended = readBytes(HistoryIndexFile.path(for: path))
        _ = try HistoryIndexFile.update(logPath: path, rebuild: true)
        let whole = readBytes(HistoryIndexFile.path(for: path))
        let same = extended == whole
        #expect(same, "extended \(extended.count) bytes, rebuilt \(whole.count)")
    }

    /// In format 4 an append of 97 records is one batch frame, so a segment's first piece of a block
    /// and the next block's piece can start in one frame (the same offset).
    @Test(arguments: [LogFormat.currentVersion, LogFormat.batchVersion])
    func anExtendedIndexIsTheIndexRebuiltFromScratch(format: UInt16) throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        var rng = SeededGenerator(seed: 9)
        let ids = (0..<10).map { _ in LabelID() }
        var extended: HistoryIndex?
        for round in 0..<4 {
            try Self.append(Self.randomEntries(700 + round * 300, rng: &rng, ids: ids), to: path, format: format)
            let update = try HistoryIndexFile.update(logPath: path)
            if round > 0 { #expect(update.previous.index != nil, "round \(round): the previous index was not used") }
            extended = update.index
        }
        let rebuilt = try HistoryIndexFile.update(logPath: path, rebuild: true).index
        #expect(extended == rebuilt)
        let reread = try #require(HistoryIndexFile.load(for: LogReader(path: path)).index)
        #expect(reread == rebuilt, "the file decodes to what was written")
    }

    @Test func damagedTruncatedOrForeignIndexesAreIgnoredOrGiveTheSameAnswers() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        var rng = SeededGenerator(seed: 4)
        let ids = (0..<6).map { _ in LabelID() }
        try Self.append(Self.randomEntries(1_300, rng: &rng, ids: ids), to: path)
        _ = try HistoryIndexFile.update(logPath: path)
        let indexPath = HistoryIndexFile.path(for: path)
        let good = try Array(Data(contentsOf: URL(fileURLWithPath: indexPath)))
        let (all, _) = try LogReader.readAll(path: path)
        let queries = (0..<6).map { _ in Self.randomQuery(rng: &rng, ids: ids) }
        func check(_ bytes: [UInt8], _ what: String) throws -> Bool {
            try Data(bytes).write(to: URL(fileURLWithPath: indexPath))
            let lookup = HistoryIndexFile.load(for: try LogReader(path: path))
            guard let index = lookup.index else { return true }
            for query in queries {
                // A usable index that the damage did not reach gives the same answer; one whose
                // block offsets are wrong makes the read fail, never answer differently.
                do {
                    #expect(try Self.answer(path, query, index: index) == all.filter(query.matches), "\(what)")
                } catch let error as EventLogError where error.code == .corruptRecord || error.code == .seqGap {}
            }
            return false
        }
        var ignored = 0
        for offset in 0..<good.count {
            for mask: UInt8 in [0x01, 0x80] {
                var bytes = good
                bytes[offset] ^= mask
                if try check(bytes, "bit flip at byte \(offset)") { ignored += 1 }
            }
        }
        // Only the reserved header word (bytes 68 to 71) is outside both checksums.
        #expect(ignored >= 2 * (good.count - 4), "\(ignored) of \(2 * good.count) flips were caught")
        for length in stride(from: 0, to: good.count, by: max(1, good.count / 200)) {
            #expect(try check(Array(good.prefix(length)), "cut to \(length) bytes"), "an index cut to \(length) bytes was used")
        }
        // Another log's index, under this log's name.
        let other = dir.file("other.labellog")
        try Self.append(Self.randomEntries(50, rng: &rng, ids: ids), to: other)
        _ = try HistoryIndexFile.update(logPath: other)
        #expect(try check(try Array(Data(contentsOf: URL(fileURLWithPath: HistoryIndexFile.path(for: other)))), "another log's"))
        guard case .ignored(let problem) = HistoryIndexFile.load(for: try LogReader(path: path)) else {
            Issue.record("another log's index was not ignored")
            return
        }
        #expect(problem.reason.contains("another log"))
    }

    /// In format 4, seq 1,500 is inside a batch frame (appends of 97): the discard writes the log again.
    @Test(arguments: [LogFormat.currentVersion, LogFormat.batchVersion])
    func anIndexOverALogCutAndRewrittenUnderItIsIgnored(format: UInt16) throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        var rng = SeededGenerator(seed: 12)
        let ids = (0..<6).map { _ in LabelID() }
        try Self.append(Self.randomEntries(2_100, rng: &rng, ids: ids), to: path, format: format)
        _ = try HistoryIndexFile.update(logPath: path)
        // Cut the log back to 1,500 records: the covered record is gone.
        do {
            let writer = try LogWriter.open(path: path)
            defer { writer.close() }
            _ = try writer.discardRecords(after: 1_500)
        }
        guard case .ignored(let cut) = HistoryIndexFile.load(for: try LogReader(path: path)) else {
            Issue.record("an index over a cut log was used")
            return
        }
        #expect(cut.reason.contains("record 2100"))
        // Write a different history of the same length in its place: the chained checksum no longer matches.
        try Self.append(Self.randomEntries(600, rng: &rng, ids: ids), to: path, format: format)
        #expect(HistoryIndexFile.load(for: try LogReader(path: path)).index == nil, "an index over a rewritten history was used")
        // Updating rebuilds it.
        let update = try HistoryIndexFile.update(logPath: path)
        #expect(update.index.coveredSeq == 2_100 && update.added == 2_100)
    }

    @Test func aBlockOffsetThatIsWrongMakesTheReadFailNotTheAnswerChange() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        var rng = SeededGenerator(seed: 21)
        let ids = (0..<3).map { _ in LabelID() }
        try Self.append(Self.randomEntries(3_000, rng: &rng, ids: ids), to: path)
        var builder = try HistoryIndexBuilder(try HistoryIndexFile.update(logPath: path).index)
        builder.blocks[1].offset += 7  // well-formed and checksummed, but pointing inside a frame
        let index = builder.build()
        let query = HistoryQuery(labels: [ids[1]])
        #expect(throws: EventLogError.self) {
            _ = try Self.answer(path, query, index: index, from: HistoryIndex.blockSize + 5)
        }
    }
}
