import EventLog
import Foundation
import LabelProjection
import LabelStoreTestSupport
import Testing

/// `verify --quick`: every frame checked and hashed but no event folded. It
/// proves the same heads, names the same damage at the same offset and seq,
/// and reports the same torn tail as the full check; it leaves out only the
/// event checks, and says so.
@Suite struct VerifyQuickTests {
    /// `verify --json` of `path` with `extra` arguments, parsed.
    func report(_ path: String, _ extra: [String] = []) async throws -> [String: Any] {
        try await CLI.run(["verify", path, "--json"] + extra).json()
    }

    @Test func aQuickCheckProvesTheSameHeadsAsTheFullCheckWithoutTheList() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try HistoryHeadCommandTests.history(at: log, count: 40)
        let head = try await CLI.run(["head", log, "--at", "30"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let full = try await report(log, ["--head", head])
        let quick = try await report(log, ["--quick", "--head", head])
        #expect(quick["ok"] as? Bool == true, "\(quick)")
        for key in ["records", "firstSeq", "lastSeq", "fileSize", "validLength", "historyHead"] {
            #expect("\(quick[key] ?? "none")" == "\(full[key] ?? "none")", "\(key)")
        }
        #expect((quick["heads"] as? [[String: Any]])?.first?["ok"] as? Bool == true)
        #expect(quick["count"] == nil && quick["enabledCount"] == nil && full["count"] as? Int == 40)
        let text = try await CLI.run(["verify", log, "--quick", "--head", head])
        #expect(
            text.status == 0 && text.stdout.contains("not folded (--quick)") && text.stdout.contains("extends  head \(head)"), "\(text)")
        #expect(text.stdout.contains("ok: framing, checksums and seq continuity are sound, and the log extends every head given"))

        // A forgery with every checksum recomputed: caught by the head, quick or not.
        let forged = scratch.path("forged.labellog")
        try HistoryHeadCommandTests.forge(log, to: forged, changing: 9)
        let caught = try await report(forged, ["--quick", "--head", head])
        #expect(caught["ok"] as? Bool == false && (caught["problem"] as? [String: Any])?["kind"] as? String == "head", "\(caught)")
        #expect("\(caught["historyHead"] ?? "")" == "\(try await report(forged, ["--head", head])["historyHead"] ?? "none")")

        // A format 4 copy (batch frames) hashes to the same heads.
        let four = scratch.path("four.labellog")
        try FormatFourCommandTests.formatFourCopy(of: log, to: four, sizes: [1, 7, 3])
        let fourReport = try await report(four, ["--quick", "--head", head])
        #expect(fourReport["ok"] as? Bool == true && "\(fourReport["historyHead"] ?? "")" == "\(full["historyHead"] ?? "none")")
    }

    @Test func aQuickCheckNamesDamageAndATornTailAsTheFullCheckDoes() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try HistoryHeadCommandTests.history(at: log, count: 20)
        let reader = try LogReader(path: log)
        for _ in 0..<10 { _ = try reader.next() }
        let middle = Int(reader.offset) + 20
        var bytes = try Data(contentsOf: URL(fileURLWithPath: log))
        let sound = bytes

        bytes[middle] ^= 0x5a
        try bytes.write(to: URL(fileURLWithPath: log))
        let full = try #require(try await report(log)["problem"] as? [String: Any])
        let quick = try #require(try await report(log, ["--quick"])["problem"] as? [String: Any])
        for key in ["kind", "code", "offset", "seq"] { #expect("\(quick[key] ?? "none")" == "\(full[key] ?? "none")", "\(key)") }
        #expect(quick["seq"] as? Int == 11, "\(quick)")
        let text = try await CLI.run(["verify", log, "--quick"])
        #expect(text.status == 1 && text.stderr.contains("seq 11"), "\(text)")

        // A torn tail: a warning, exit 0, the same tail.
        try (sound + Data([0x01, 0x02, 0x03])).write(to: URL(fileURLWithPath: log))
        let tornFull = try await report(log)
        let tornQuick = try await report(log, ["--quick"])
        #expect(tornQuick["ok"] as? Bool == true)
        #expect(tornQuick["tornTail"] != nil && (tornQuick["tornTail"] as? NSDictionary) == (tornFull["tornTail"] as? NSDictionary))
    }

    /// The one thing `--quick` leaves out, pinned: an event that contradicts
    /// the state before it is found by the fold only.
    @Test func aQuickCheckDoesNotFoldSoOnlyTheFullCheckFindsAContradictingEvent() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try makeContradictingLog(at: log)
        #expect((try await report(log)["problem"] as? [String: Any])?["kind"] as? String == "event")
        let quick = try await report(log, ["--quick"])
        #expect(quick["ok"] as? Bool == true && quick["lastSeq"] as? Int == 4, "\(quick)")
    }

    @Test func aBasedLogsArchiveJoinIsCheckedQuicklyByItsChecksumAndFrontier() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try HistoryHeadCommandTests.history(at: log, count: 30)
        let head = try await CLI.run(["head", log]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try await CLI.run(["archive", log, "--before", "20"]).status == 0)
        let quick = try await report(log, ["--quick", "--head", head])
        #expect(quick["ok"] as? Bool == true, "\(quick)")
        #expect((quick["base"] as? [String: Any])?["joined"] as? Bool == true)
        let text = try await CLI.run(["verify", log, "--quick"])
        #expect(text.stdout.contains("the archive joins the log (chained checksum, history tree frontier)"), "\(text)")
        // An archive whose records were changed and written again with every checksum recomputed does not join.
        let archive = try #require(scratch.files.first { $0.hasPrefix("l.1-19") })
        try HistoryHeadCommandTests.forge(scratch.path(archive), to: scratch.path("forged"), changing: 3)
        try FileManager.default.removeItem(atPath: scratch.path(archive))
        try FileManager.default.moveItem(atPath: scratch.path("forged"), toPath: scratch.path(archive))
        let mismatch = try await report(log, ["--quick"])
        #expect((mismatch["problem"] as? [String: Any])?["kind"] as? String == "join", "\(mismatch)")
    }

    @Test func quickIsRefusedForAServerListAsAUsageError() async throws {
        let result = try await CLI.run(["verify", "postgres://db.example.com/labels?list=inbox", "--quick"])
        #expect(result.status == 64 && result.stderr.contains("--quick checks a log file's frames"), "\(result)")
    }
}
