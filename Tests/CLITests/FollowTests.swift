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

/// `log --follow` when the file it follows is replaced, cut or rewritten
/// (docs/CLI.md, "Following a log"): it goes on only when the file at the path
/// still holds what was printed, and otherwise says what happened and exits 1.
/// Every log starts with the 7 records of `ReadCommandTests.history`.
@Suite struct FollowTests {
    /// Moves `from` over `to` in one step, as `mv` does.
    static func move(_ from: String, over to: String) throws {
        guard rename(from, to) == 0 else { throw CocoaError(.fileWriteUnknown) }
    }

    /// The seqs of the JSON lines printed.
    static func seqs(_ result: CLIResult) throws -> [Int] { try result.jsonLines().compactMap { $0["seq"] as? Int } }

    @Test func aReplacementHoldingTheSameHistoryIsFollowedFromTheNextSeq() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try ReadCommandTests.history(at: log)
        let follow = try CLI.start(["log", log, "--follow", "--from", "1", "--json"])
        #expect(try await follow.waitForOutput(containing: "\"seq\":7"))
        // A copy, extended by two records and moved into place (as a tool replacing a log atomically would).
        let copy = scratch.path("copy.labellog")
        try FileManager.default.copyItem(atPath: log, toPath: copy)
        try makeLog(at: copy) { store in
            try store.rename(testID(3), to: "Ring Three", options: stamped(8))
            try store.setEnabled(testID(1), true, options: stamped(9))
        }
        try Self.move(copy, over: log)
        #expect(try await follow.waitForOutput(containing: "\"seq\":9"), "\(follow.stderrSoFar)")
        // What is appended to the new file is followed too.
        try makeLog(at: log) { store in try store.rename(testID(3), to: "Ring Four", options: stamped(10)) }
        #expect(try await follow.waitForOutput(containing: "\"seq\":10"))
        let result = try await follow.interrupt()
        #expect(try Self.seqs(result) == Array(1...10), "each record once, in order: \(result)")
        #expect(
            result.stderr.contains(
                "\(log): the file was replaced by another file holding the same history (seq 7 unchanged); following the new file from seq 8"
            ),
            "\(result)")
    }

    @Test func aReplacementByAnotherLogStopsWithExit1() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try ReadCommandTests.history(at: log)
        let other = scratch.path("other.labellog")
        try makeGridTileRing(at: other)
        let follow = try CLI.start(["log", log, "--follow", "-n", "1", "--json"])
        #expect(try await follow.waitForOutput(containing: "\"seq\":7"))
        try Self.move(other, over: log)
        let result = try await follow.wait(atMost: .seconds(30))
        #expect(result.status == 1, "\(result)")
        #expect(
            result.stderr.contains("error: \(log): the file was replaced while it was followed, by a log that does not hold seq 7"),
            "\(result)")
        #expect(result.stderr.contains("it now ends at seq 3"), "\(result)")
        #expect(try Self.seqs(result) == [7], "nothing of the other log is printed")
    }

    @Test func aLogCutUnderTheFollowerStopsWithExit1() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try ReadCommandTests.history(at: log)
        let follow = try CLI.start(["log", log, "--follow", "--from", "1", "--json"])
        #expect(try await follow.waitForOutput(containing: "\"seq\":7"))
        let writer = try LogWriter.open(path: log)
        try writer.discardRecords(after: 4)
        writer.close()
        let result = try await follow.wait(atMost: .seconds(30))
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("error: \(log): the log was cut while it was followed"), "\(result)")
        #expect(result.stderr.contains("seq 7, already printed") && result.stderr.contains("it now ends at seq 4"), "\(result)")
    }

    @Test func aLogRewrittenUnderTheFollowerStopsWithoutPrintingTheNewHistory() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try ReadCommandTests.history(at: log)
        let follow = try CLI.start(["log", log, "--follow", "--from", "1", "--json"])
        #expect(try await follow.waitForOutput(containing: "\"seq\":7"))
        // Cut to seq 4 and, at once, write a longer, different seq 5 on: the file grows past where seq 7 ended.
        let writer = try LogWriter.open(path: log)
        try writer.discardRecords(after: 4)
        let long = String(repeating: "x", count: 300)
        try writer.append(
            (0..<5).map {
                LogEntry(.renamed(id: testID(3), oldTitle: $0 == 0 ? "Ring Two" : "R\($0)\(long)", newTitle: "R\($0 + 1)\(long)"))
            })
        writer.close()
        let result = try await follow.wait(atMost: .seconds(30))
        #expect(result.status == 1, "\(result)")
        // A poll between the cut and the new records sees the cut; otherwise the rewrite.
        #expect(
            result.stderr.contains(
                "the log was rewritten while it was followed: seq 7, already printed, is no longer the record at its byte offset")
                || result.stderr.contains("the log was cut while it was followed"), "\(result)")
        #expect(try Self.seqs(result) == Array(1...7), "no record of the new history is printed")
    }

    @Test func aLogMovedAwaySaysSoAndAnotherFileAtThePathIsChecked() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try ReadCommandTests.history(at: log)
        let follow = try CLI.start(["log", log, "--follow"])
        #expect(try await follow.waitForOutput(containing: "seq"))
        try Self.move(log, over: scratch.path("moved.labellog"))
        #expect(try await follow.waitFor(stderrContaining: "the file was moved away or deleted; still following the file that was open"))
        try makeGridTileRing(at: log)
        let result = try await follow.wait(atMost: .seconds(30))
        #expect(result.status == 1 && result.stderr.contains("the file was replaced while it was followed"), "\(result)")
    }
}
