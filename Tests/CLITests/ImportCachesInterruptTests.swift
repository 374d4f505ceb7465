import EventLog
import Foundation
import LabelProjection
import LabelStoreTestSupport
import Testing

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// `import` into a new log builds `LOG.index`, `LOG.checkpoints` and
/// `LOG.tree` aside while it writes, in temporaries put in place once the
/// records are committed. Stopped at the commit's edges — Ctrl-C, or a kill
/// that leaves the temporaries — the log's caches are never wrong: none, or
/// those of the committed records, and the next update removes what a killed
/// import left and writes exactly what `index --rebuild` writes.
@Suite struct ImportCachesInterruptTests {
    /// An export of a history large enough for caches under `environment`, and that environment.
    static func export(in scratch: Scratch) async throws -> (jsonl: String, environment: [String: String]) {
        let source = scratch.path("source.labellog")
        _ = try HistoryIndexCommandTests.makeHistory(at: source, seed: 61, writes: 2_000)
        let exported = try await CLI.run(["export", source])
        #expect(exported.status == 0)
        let jsonl = scratch.path("history.jsonl")
        try Data(exported.stdout.utf8).write(to: URL(fileURLWithPath: jsonl))
        for suffix in [".index", ".index-delta", ".checkpoints", ".tree"] { try? FileManager.default.removeItem(atPath: source + suffix) }
        try FileManager.default.removeItem(atPath: source)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: jsonl)[.size] as? Int)
        // A checkpoint every 16 records; caches kept for a log of a tenth of the input's size.
        return (jsonl, ["LABELREPLAY_CACHE_BYTES": String(size / 10), "LABELREPLAY_TEST_INDEX": "always"])
    }

    static let caches = [".index", ".index-delta", ".checkpoints", ".tree"]

    static func temporaries(_ scratch: Scratch) -> [String] { scratch.files.filter { $0.contains(SystemFile.temporaryMarker) } }

    /// `import LOG JSONL` into the new log `new.labellog`, stopped at `point` (it says so, then waits for a signal).
    static func importPaused(at point: String, in scratch: Scratch) async throws -> (
        running: RunningCLI, log: String, environment: [String: String]
    ) {
        let (jsonl, environment) = try await export(in: scratch)
        let log = scratch.path("new.labellog")
        let running = try CLI.start(["import", log, jsonl], environment: environment.merging(["LABELREPLAY_TEST_PAUSE": point]) { $1 })
        #expect(try await running.waitFor(stderrContaining: "paused at \(point)"), "\(running.stderrSoFar)")
        return (running, log, environment)
    }

    /// The caches of `log` as they are, then as `index --rebuild` writes them.
    static func cachesAndRebuilt(_ log: String, environment: [String: String]) async throws -> (now: [[UInt8]?], rebuilt: [[UInt8]]) {
        let now = caches.map { try? bytes(log + $0) }
        let rebuilt = try await CLI.run(["index", log, "--rebuild"], environment: environment)
        #expect(rebuilt.status == 0, "\(rebuilt)")
        return (now, try caches.map { try bytes(log + $0) })
    }

    @Test func killedJustBeforeTheCommitTheTemporariesAreRemovedAndNothingIsCached() async throws {
        let scratch = try Scratch()
        let (running, log, environment) = try await Self.importPaused(at: "import-before-commit", in: scratch)
        // Every record is staged and handed to the caches' thread, which writes aside.
        #expect(!Self.temporaries(scratch).isEmpty, "\(scratch.files)")
        running.send(SIGKILL)
        _ = try await running.wait(atMost: .seconds(60))
        #expect(Self.caches.allSatisfy { !FileManager.default.fileExists(atPath: log + $0) }, "\(scratch.files)")
        // The log holds none of the records; a read builds no cache of records that are not there.
        let shown = try await CLI.run(["show", log, "--json"], environment: environment)
        #expect(shown.status == 0 && shown.stdout.contains(#""count":0"#), "\(shown)")
        // The next update of the caches removes what the killed import left.
        let indexed = try await CLI.run(["index", log], environment: environment)
        #expect(indexed.status == 0, "\(indexed)")
        #expect(Self.temporaries(scratch).isEmpty, "\(scratch.files)")
    }

    @Test func ctrlCJustBeforeTheCommitLeavesNoTemporaries() async throws {
        let scratch = try Scratch()
        let (running, _, _) = try await Self.importPaused(at: "import-before-commit", in: scratch)
        running.send(SIGINT)
        let result = try await running.wait(atMost: .seconds(60))
        #expect(result.status == 130 && result.stderr.contains("the new log was removed"), "\(result)")
        #expect(scratch.files == ["history.jsonl"], "\(scratch.files)")
    }

    @Test func killedAfterTheCommitTheCachesAreThoseOfARebuild() async throws {
        let scratch = try Scratch()
        let (running, log, environment) = try await Self.importPaused(at: "import-after-commit", in: scratch)
        running.send(SIGKILL)
        _ = try await running.wait(atMost: .seconds(60))
        #expect(Self.temporaries(scratch).isEmpty, "\(scratch.files)")
        let (now, rebuilt) = try await Self.cachesAndRebuilt(log, environment: environment)
        for (suffix, (cache, want)) in zip(Self.caches, zip(now, rebuilt)) {
            #expect(cache == want, "\(suffix) as the import left it is not what a rebuild writes")
        }
        let verified = try await CLI.run(["verify", log, "--checkpoints"], environment: environment)
        #expect(verified.status == 0, "\(verified)")
    }
}
