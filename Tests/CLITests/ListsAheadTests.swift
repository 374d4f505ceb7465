import EventLog
import Foundation
import LabelProjection
import LabelStoreTestSupport
import Testing

@testable import labelreplay

/// `trace --label`'s lists computed on two threads (``ListsAhead``) are the
/// lists one cursor folds, handed out in order, with a failure rethrown at
/// its seq and the lanes stopped when the caller stops early.
@Suite struct ListsAheadTests {
    /// A 600-write history with checkpoints every 16 records, and its checkpoints opened.
    func history(_ scratch: Scratch) throws -> (path: String, checkpoints: Checkpoints, last: UInt64) {
        let path = scratch.path("h.labellog")
        _ = try CheckpointCommandTests.makeHistory(at: path, seed: 17, writes: 600)
        _ = try CheckpointFile.update(logPath: path, interval: 16, fullEvery: 4)
        let checkpoints = try #require(try Checkpoints.open(path, console: Console(stderrIsTerminal: false, stdoutIsTerminal: false)))
        return (path, checkpoints, UInt64(try LogReader.readAll(path: path).records.count))
    }

    func cursor(_ path: String, _ checkpoints: Checkpoints, removedAmong: Set<LabelID>?) -> ListCursor {
        ListCursor(
            path: path, checkpoints: checkpoints, interval: 16, console: Console(stderrIsTerminal: false, stdoutIsTerminal: false),
            removedAmong: removedAmong)
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func theListsOfTwoLanesAreTheListsOfOneCursorInOrder(seed: UInt64) throws {
        let scratch = try Scratch()
        let (path, checkpoints, last) = try history(scratch)
        var rng = SeededGenerator(seed: seed)
        // Near and far apart (runs that fold on, and fresh starts), ascending, repeats included.
        var seqs = (0..<40).map { _ in UInt64.random(in: 1...last, using: &rng) }
        seqs += (0..<10).map { _ in UInt64.random(in: 200...230, using: &rng) }
        seqs.sort()
        let among: Set<LabelID>? = seed == 2 ? nil : Set(try LabelList(replaying: LogReader.readAll(path: path).records).ids.prefix(20))
        var single = cursor(path, checkpoints, removedAmong: among)
        let ahead = try ListsAhead(seqs: seqs, cursor: cursor(path, checkpoints, removedAmong: among), lanes: 2)
        defer { ahead.stop() }
        #expect(ahead.cursor == nil || ProcessInfo.processInfo.activeProcessorCount < 2, "two lanes on a machine with two cores")
        for seq in seqs {
            let expected = try #require(try single.list(through: seq))
            let got = try #require(try ahead.next())
            #expect(got.list == expected.list && got.position == expected.position, "the list at \(seq)")
            #expect(got.removed == expected.removed, "the removed labels at \(seq)")
        }
    }

    @Test func aFailureIsRethrownAtItsSeqAndStoppingEarlyEndsTheLanes() throws {
        let scratch = try Scratch()
        let (path, checkpoints, last) = try history(scratch)
        // The third seq is past the log's end: the two before it are handed out, then its failure.
        let seqs: [UInt64] = [40, 300, last + 5, last]
        let ahead = try ListsAhead(seqs: seqs, cursor: cursor(path, checkpoints, removedAmong: nil), lanes: 2)
        #expect(try ahead.next()?.list.lastSeq == 40)
        #expect(try ahead.next()?.list.lastSeq == 300)
        #expect(throws: Failure.self) { try ahead.next() }
        ahead.stop()
        // Stopping after one list of many: the lanes end (this returns).
        let many = try ListsAhead(seqs: Array(stride(from: 20, through: last, by: 7)), cursor: cursor(path, checkpoints, removedAmong: nil))
        #expect(try many.next()?.list.lastSeq == 20)
        many.stop()
    }
}
