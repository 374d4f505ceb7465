import EventLog
import Foundation
import LabelProjection
import LabelStoreTestSupport
import Testing

@testable import labelreplay

/// A write command keeps the history caches itself, in the foreground, once
/// it released its store: the store it opens must not start a second update
/// of the same files in the background (which the process's exit would cut
/// off, and whose memory would sit beside the command's own).
@Suite struct WriteStoreOptionsTests {
    @Test func theStoreAWriteCommandOpensLeavesTheHistoryCachesToTheCommand() throws {
        let dir = TemporaryDirectory()
        let log = dir.file("labels.labellog")
        let store = try Writing.open(log, create: true, console: Console(stderrIsTerminal: false, stdoutIsTerminal: false))
        defer { store.close() }
        #expect(store.options.snapshots.maintainsHistoryFiles == false)
        // The rest of the default policy stays: snapshots are still written on close.
        #expect(store.options.snapshots.onClose == SnapshotPolicy().onClose)
        #expect(store.options.snapshots.everyRecords == SnapshotPolicy().everyRecords)
    }

    /// The command's own update still makes them, after the store is gone.
    @Test func aWriteCommandStillLeavesItsLogsCachesCurrent() async throws {
        let dir = TemporaryDirectory()
        let log = dir.file("labels.labellog")
        _ = try HistoryIndexCommandTests.makeHistory(at: log, seed: 31, writes: 2000)
        for cache in HistoryCachesKeptTests.caches(log) { try? FileManager.default.removeItem(atPath: cache) }
        let size = try HistoryCachesKeptTests.size(log)
        let result = try await CLI.run(["add", log, "one more"], environment: ["LABELREPLAY_CACHE_BYTES": String(size / 2)])
        #expect(result.status == 0, "\(result)")
        #expect(HistoryCachesKeptTests.exist(log), "\(result.stderr)")
    }
}
