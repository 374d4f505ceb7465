import EventLog
import Foundation
import LabelProjection
import LabelStoreTestSupport
import Testing

/// Every writer keeps the history caches, and a read that finds them missing
/// or far behind builds them first (issue 27, item 1): no one has to run
/// `index`, and the answers are the same as without them.
@Suite struct HistoryCachesKeptTests {
    static func size(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
    }

    static func caches(_ log: String) -> [String] { [log + ".index", log + ".index-delta", log + ".checkpoints", log + ".tree"] }

    static func exist(_ log: String) -> Bool { caches(log).allSatisfy { FileManager.default.fileExists(atPath: $0) } }

    @Test func anImportedHistoryHasItsCachesAndAnswersAsWithout() async throws {
        let dir = TemporaryDirectory()
        let source = dir.file("source.labellog")
        let ids = try HistoryIndexCommandTests.makeHistory(at: source, seed: 27, writes: 3000)
        let exported = try await CLI.run(["export", source])
        #expect(exported.status == 0)
        let jsonl = dir.file("history.jsonl")
        try Data(exported.stdout.utf8).write(to: URL(fileURLWithPath: jsonl))
        // Caches are worth it from the size of this history on.
        let environment = ["LABELREPLAY_CACHE_BYTES": String(try Self.size(source) / 2)]
        let imported = dir.file("imported.labellog")
        let result = try await CLI.run(
            ["import", imported, jsonl], environment: environment.merging(["LABELREPLAY_TEST_INDEX": "always"]) { $1 })
        // Written as the records were, not by reading the log again after.
        #expect(result.status == 0 && result.stderr.contains("note: wrote") && !result.stderr.contains("note: updating"), "\(result)")
        #expect(Self.exist(imported))
        // The same bytes as 'index --rebuild' writes from the log (a checkpoint every 16 records: deltas, full images, removals).
        let written = try Self.caches(imported).map { try bytes($0) }
        let rebuilt = try await CLI.run(["index", imported, "--rebuild"], environment: ["LABELREPLAY_TEST_INDEX": "always"])
        #expect(rebuilt.status == 0, "\(rebuilt)")
        for (path, before) in zip(Self.caches(imported), written) { #expect(try bytes(path) == before, "\(path)") }
        let through = try await CLI.run(
            ["log", imported, "--label", ids[7].description, "--json"],
            environment: environment.merging(["LABELREPLAY_TEST_INDEX": "always"]) { $1 })
        #expect(through.stderr.contains("(read through the history index)"), "\(through.stderr)")
        #expect(!through.stderr.contains("note: updating"))
        for cache in Self.caches(imported) { try FileManager.default.removeItem(atPath: cache) }
        let scanned = try await CLI.run(["log", imported, "--label", ids[7].description, "--json"])
        #expect(through.status == 0 && through.stdout == scanned.stdout && !scanned.stdout.isEmpty)
    }

    /// The three caches are written side by side (the checkpoints on a second
    /// thread): one that cannot be written is a warning, the others are written,
    /// and the command's answer is the same.
    @Test(arguments: [".checkpoints", ".index"])
    func aCacheThatCannotBeWrittenIsAWarningAndTheOthersAreWritten(_ blocked: String) async throws {
        let dir = TemporaryDirectory()
        let log = dir.file("history.labellog")
        let ids = try HistoryIndexCommandTests.makeHistory(at: log, seed: 29, writes: 3000)
        for cache in Self.caches(log) { try? FileManager.default.removeItem(atPath: cache) }
        let plain = try await CLI.run(["log", log, "--label", ids[5].description, "--json"])
        // A directory where the cache's file goes: it cannot be opened as a file.
        try FileManager.default.createDirectory(atPath: log + blocked, withIntermediateDirectories: false)
        let environment = ["LABELREPLAY_CACHE_BYTES": String(try Self.size(log) / 2)]
        let run = try await CLI.run(["log", log, "--label", ids[5].description, "--json"], environment: environment)
        #expect(run.status == 0 && run.stdout == plain.stdout, "\(run)")
        #expect(run.stderr.contains("the history caches could not be updated"), "\(run.stderr)")
        let others = [".checkpoints", ".index", ".tree"].filter { $0 != blocked }.map { log + $0 }
        #expect(others.allSatisfy { FileManager.default.fileExists(atPath: $0) }, "\(others)")
    }

    @Test func aReadBuildsMissingCachesOnceAndASmallWriteLeavesThem() async throws {
        let dir = TemporaryDirectory()
        let log = dir.file("history.labellog")
        let ids = try HistoryIndexCommandTests.makeHistory(at: log, seed: 28, writes: 3000)
        for cache in Self.caches(log) { try? FileManager.default.removeItem(atPath: cache) }
        let plain = try await CLI.run(["log", log, "--label", ids[3].description, "--json"])
        #expect(!Self.exist(log), "a read below the threshold writes nothing beside the log")
        let environment = ["LABELREPLAY_CACHE_BYTES": String(try Self.size(log) / 2), "LABELREPLAY_TEST_INDEX": "always"]
        let first = try await CLI.run(["log", log, "--label", ids[3].description, "--json"], environment: environment)
        #expect(first.status == 0 && first.stderr.contains("note: updating") && first.stderr.contains("the log has none yet"), "\(first)")
        #expect(first.stderr.contains("(read through the history index)"), "\(first.stderr)")
        #expect(first.stdout == plain.stdout)
        #expect(Self.exist(log))
        let second = try await CLI.run(["show", log, "--at", "100", "--json"], environment: environment)
        #expect(second.status == 0 && !second.stderr.contains("note: updating"), "\(second)")
        // One more record: far less than half the log is uncovered, so the index is not rewritten.
        let indexBefore = try bytes(log + ".index")
        let added = try await CLI.run(["add", log, "One more"], environment: environment)
        #expect(added.status == 0 && !added.stderr.contains("note: updating"), "\(added)")
        #expect(try bytes(log + ".index") == indexBefore)
        // The answer still includes the record after the index.
        let after = try await CLI.run(["log", log, "--json", "-n", "1"], environment: environment)
        #expect(after.stdout.contains("One more"))
    }
}
