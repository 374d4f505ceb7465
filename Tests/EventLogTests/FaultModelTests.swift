import Foundation
import LabelStoreTestSupport
import Testing

@testable import EventLog

/// The fault-injecting file system's own model, pinned: what a failed sync
/// drops (fsyncgate), what reads see afterwards, and what the power-loss
/// images keep.
@Suite("Fault model")
struct FaultModelTests {
    /// Opens `path` (created empty) through `fs` and writes `bytes` at `offset`.
    func write(_ bytes: [UInt8], at offset: Int64, to file: any LogFile) throws {
        try bytes.withBytes { (raw) throws(EventLogError) in try file.write(raw, at: offset) }
    }

    @Test(arguments: [false, true])
    func aFailedSyncDropsEveryUnsyncedWriteForGoodAndALaterSyncDoesNotWriteIt(evicting: Bool) throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let fs = FaultyFileSystem(evictsDroppedPages: evicting)
        let file = try fs.open(path, .createExclusive)
        defer { file.close() }
        try write([1, 2, 3, 4], at: 0, to: file)
        try file.syncData()
        try write([5, 6, 7, 8], at: 4, to: file)
        fs.failNext(.syncData)
        #expect(throws: EventLogError.self) { try file.syncData() }
        try file.syncData()  // succeeds, but the dropped bytes were never written
        var rng = SeededGenerator(seed: 1)
        #expect(fs.imageAfterPowerLoss(path, loss: .partial, using: &rng) == [1, 2, 3, 4, 0, 0, 0, 0])
        // The page cache kept them (stale but readable), or the kernel evicted them.
        #expect(try file.read(at: 0, count: 8) == (evicting ? [1, 2, 3, 4, 0, 0, 0, 0] : [1, 2, 3, 4, 5, 6, 7, 8]))
        #expect(fs.imageAfterProcessCrash(path) == (evicting ? [1, 2, 3, 4, 0, 0, 0, 0] : [1, 2, 3, 4, 5, 6, 7, 8]))
        #expect(fs.failedSyncs.count == 1 && fs.failedSyncs[0].op == .syncData)
    }

    @Test func aCrashFreezesTheFilesAndFailsEveryLaterCall() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let fs = FaultyFileSystem()
        let file = try fs.open(path, .createExclusive)
        defer { file.close() }
        try write([1, 2], at: 0, to: file)
        try file.syncAll()
        fs.armCrash(beforeMutatingCall: 2)
        try write([3, 4], at: 2, to: file)
        #expect(throws: EventLogError.self) { try file.syncData() }
        #expect(throws: EventLogError.self) { try write([9], at: 0, to: file) }
        #expect(fs.hasCrashed)
        var rng = SeededGenerator(seed: 2)
        #expect(fs.imageAfterProcessCrash(path) == [1, 2, 3, 4])
        #expect(fs.imageAfterPowerLoss(path, loss: .dropAll, using: &rng) == [1, 2])
    }

    @Test func outOfOrderImagesKeepExactlyTheChosenPages() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let fs = FaultyFileSystem()
        let file = try fs.open(path, .createExclusive)
        defer { file.close() }
        let page = FaultyFileSystem.pageSize
        try write([UInt8](repeating: 7, count: page), at: 0, to: file)
        try file.syncData()
        // One write over pages 1, 2 and 3 (3 partly).
        try write([UInt8](repeating: 9, count: 2 * page + 100), at: Int64(page), to: file)
        let history = fs.history(path)
        #expect(history.touchedPages == [1, 2, 3])
        let image = history.imageKeepingPages([2])
        #expect(image.count == 3 * page, "the size reaches the last kept page")
        #expect(image[0..<page].allSatisfy { $0 == 7 }, "synced bytes are kept")
        #expect(image[page..<(2 * page)].allSatisfy { $0 == 0 }, "a lost page past the durable end is zeros")
        #expect(image[(2 * page)..<(3 * page)].allSatisfy { $0 == 9 }, "the kept page holds what was written")
    }
}
