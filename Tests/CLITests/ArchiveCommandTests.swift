import EventLog
import Foundation
import LabelProjection
import LabelStoreTestSupport
import Testing

/// `labelreplay archive`: the records before a cut move to an archive file
/// (or are dropped); every command answers for the seqs from the cut on as
/// before, `show --at` and `diff` answer for archived seqs from the archive
/// while it is there, and say where an earlier seq went when it is not, `verify` proves the archive joins
/// the log, and a crash at any step leaves the old log or the new layout.
@Suite struct ArchiveCommandTests {
    /// The outputs compared before and after a cut at `cut` of a log of `last` records.
    static func answers(_ path: String, cut: UInt64, last: UInt64) async throws -> [String] {
        var outputs: [String] = []
        let commands: [[String]] = [
            ["show", path, "--json"], ["show", path, "--at", String(cut), "--json"], ["show", path, "--at", String(last - 3)],
            ["diff", path, String(cut + 2), String(last), "--json"], ["head", path], ["head", path, "--at", String(cut + 1)],
            // Seqs the cut archives: answered from the archive, read before the log.
            ["show", path, "--at", String(cut - 5), "--json"], ["show", path, "--at", "1"],
            ["diff", path, "3", String(cut - 5), "--json"], ["diff", path, String(cut - 10), String(last), "--json"],
            // Every command that lists records reads the archive first when its seqs reach before the log's first.
            ["log", path, "--json"], ["log", path, "--from", "3", "--to", String(cut - 5)],
            ["log", path, "--since", "2000-01-01T00:00:00Z", "--json"], ["log", path, "--last", "3", "--to", String(cut + 1)],
            ["trace", path, "--to", String(cut - 5), "--json"],
            ["trace", path, "--from", String(cut - 10), "--to", String(cut + 10), "--json", "--enabled-only"],
            ["export", path], ["export", path, "--from", String(cut - 3), "--to", String(cut + 3)],
            // Heads and proofs at archived seqs: through the archive and the log.
            ["head", path, "--at", String(cut - 5)], ["prove", path, "3", "--json"],
            ["prove", path, String(cut - 1), "--at", String(cut + 4), "--json"]
        ]
        for arguments in commands {
            let result = try await CLI.run(arguments)
            #expect(result.status == 0, "\(result)")
            outputs.append(result.stdout)
        }
        return outputs
    }

    @Test func anArchivedLogAnswersAsBeforeAndItsArchiveJoinsIt() async throws {
        let scratch = try Scratch()
        let path = scratch.path("h.labellog")
        _ = try HistoryIndexCommandTests.makeHistory(at: path, seed: 21, writes: 1_200)
        let (records, _) = try LogReader.readAll(path: path)
        let last = UInt64(records.count)
        let cut = last / 2
        let before = try await Self.answers(path, cut: cut, last: last)
        let logBefore = try bytes(path)

        let dry = try await CLI.run(["archive", path, "--before", String(cut + 1), "--dry-run"])
        #expect(dry.status == 0 && dry.stdout.contains("would archive seqs 1…\(cut)"), "\(dry)")
        #expect(try bytes(path) == logBefore, "a dry run changed the log")

        let done = try await CLI.run(["archive", path, "--before", String(cut + 1), "--json"]).json()
        let archive = scratch.path("h.1-\(cut).labellog")
        #expect(done["archive"] as? String == archive && done["first"] as? Int == 1 && done["last"] as? Int == Int(cut), "\(done)")
        #expect(done["firstSeq"] as? Int == Int(cut) + 1 && done["keptRecords"] as? Int == Int(last - cut))
        #expect(try await Self.answers(path, cut: cut, last: last) == before, "an answer from the cut on changed")
        // With the based log's checkpoints (every 16 records), a diff across the cut still names
        // the labels removed before it by their titles: it folds on through the join.
        let hook = ["LABELREPLAY_TEST_INDEX": "always"]
        #expect(try await CLI.run(["index", path], environment: hook).status == 0)
        let across = try await CLI.run(["diff", path, String(cut - 10), String(last), "--json"], environment: hook)
        #expect(across.status == 0 && across.stdout == before[9], "a diff across the cut changed with checkpoints")
        let inside = try await CLI.run(["show", path, "--at", String(cut + 40), "--json"], environment: hook)
        #expect(inside.stderr.contains("(from the checkpoint at seq"), "the based log's checkpoints are used: \(inside.stderr)")

        let verified = try await CLI.run(["verify", path, "--json"]).json()
        #expect(verified["ok"] as? Bool == true && (verified["base"] as? [String: Any])?["joined"] as? Bool == true, "\(verified)")
        #expect(try await CLI.run(["verify", archive]).status == 0)
        // stats says what the base cut and where it went.
        let stats = try await CLI.run(["stats", path, "--json"]).json()
        let base = stats["base"] as? [String: Any]
        #expect(
            base?["first"] as? Int == 1 && base?["last"] as? Int == Int(cut) && base?["archive"] as? String == archive
                && base?["dropped"] as? Bool == false, "\(stats)")
        #expect(try await CLI.run(["stats", path]).stdout.contains("base    seqs 1…\(cut) were cut off on"))
        // The archive answers for the seqs it holds, as the log did.
        #expect(try await CLI.run(["show", archive, "--at", String(cut - 5), "--json"]).status == 0)

        // An archive that is not the one the log was cut from does not join it.
        let other = scratch.path("other.labellog")
        _ = try HistoryIndexCommandTests.makeHistory(at: other, seed: 22, writes: 1_200)
        try FileManager.default.removeItem(atPath: archive)
        try FileManager.default.copyItem(atPath: other, toPath: archive)
        let mismatch = try await CLI.run(["verify", path])
        #expect(mismatch.status == 1 && mismatch.stderr.contains("\(archive): it is not an archive of this log"), "\(mismatch)")
        let foreign = try await CLI.run(["show", path, "--at", String(cut - 5)])
        #expect(
            foreign.status == 1 && foreign.stderr.contains("\(archive): not the archive \(path) names")
                && foreign.stderr.contains("another history"), "\(foreign)")
        try FileManager.default.removeItem(atPath: archive)
        let missing = try await CLI.run(["verify", path])
        #expect(missing.status == 0 && missing.stdout.contains("the archive is not there"), "\(missing)")
        let earlier = try await CLI.run(["show", path, "--at", String(cut - 5)])
        #expect(earlier.status == 1 && earlier.stderr.contains("seq \(cut - 5) is archived in \(archive)"), "\(earlier)")
        // Without the archive: seqs named before the log's first are refused, naming where they went; a
        // whole-history read says so once and reads from the log's first record.
        for arguments in [
            ["log", path, "--from", "3"], ["log", path, "--to", String(cut - 1)], ["trace", path, "--from", "2"],
            ["trace", path, "--to", "9"], ["export", path, "--from", "5"], ["timeline", path, "--from", "4", "-o", scratch.path("t.html")]
        ] {
            let refused = try await CLI.run(arguments)
            let seq = arguments.firstIndex(of: "--from").map { arguments[$0 + 1] } ?? "1"
            #expect(refused.status == 1 && refused.stderr.contains("seq \(seq) is archived in \(archive)"), "\(arguments): \(refused)")
        }
        for arguments in [["log", path], ["trace", path, "--json"], ["export", path], ["timeline", path, "-o", scratch.path("t.html")]] {
            let whole = try await CLI.run(arguments)
            #expect(whole.status == 0, "\(arguments): \(whole)")
            #expect(
                whole.stderr.contains("seq 1 is archived in \(archive)") && whole.stderr.contains("reading from seq \(cut + 1)"),
                "\(arguments): \(whole.stderr)")
        }
        // -n N says so only when the log's own records do not give N events.
        let lastFew = try await CLI.run(["log", path, "-n", "2"])
        #expect(lastFew.status == 0 && !lastFew.stderr.contains("archived"), "\(lastFew)")
        let lastMany = try await CLI.run(["log", path, "-n", "100000"])
        #expect(lastMany.status == 0 && lastMany.stderr.contains("seq 1 is archived in \(archive)"), "\(lastMany)")

        // Writing goes on; a second cut drops records.
        #expect(try await CLI.run(["add", path, "after the cut"]).status == 0)
        let dropped = try await CLI.run(["archive", path, "--before", String(cut + 10), "--delete"])
        #expect(dropped.status == 0 && dropped.stdout.contains("dropped seqs \(cut + 1)…\(cut + 9)"), "\(dropped)")
        let gone = try await CLI.run(["show", path, "--at", String(cut + 3)])
        #expect(gone.status == 1 && gone.stderr.contains("was dropped"), "\(gone)")
        let goneRecords = try await CLI.run(["log", path, "--from", String(cut + 3)])
        #expect(goneRecords.status == 1 && goneRecords.stderr.contains("seq \(cut + 3) was dropped on"), "\(goneRecords)")
        // A selection without --from (through the indexes) reads from the log's first record, saying so, as a whole read does.
        let shown = try await CLI.run(["show", path, "--json"])
        let labels = try #require(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])["labels"]
        let added = try #require((labels as? [[String: Any]])?.first { $0["title"] as? String == "after the cut" }?["id"] as? String)
        for selection in [["--label", String(added.prefix(8))], ["--kind", "added"], ["--since", "2000-01-01T00:00:00Z"]] {
            let implicit = try await CLI.run(["log", path, "--json"] + selection)
            let fromFirst = try await CLI.run(["log", path, "--json", "--from", String(cut + 10)] + selection)
            #expect(implicit.status == 0 && implicit.stdout == fromFirst.stdout && !implicit.stdout.isEmpty, "\(selection): \(implicit)")
            #expect(
                implicit.stderr.contains("was dropped on") && implicit.stderr.contains("reading from seq \(cut + 10)"),
                "\(selection): \(implicit.stderr)")
        }
        #expect(try await CLI.run(["head", path]).stdout != before[4], "the added record is not in the head")
    }

    /// A store holding the log at `path` (a writer: it holds the log's lock).
    static func openStore(_ path: String) throws -> LabelStore { try LabelStore.open(path: path) }

    @Test func badArgumentsAndAWriterAreRefusedAndChangeNothing() async throws {
        let scratch = try Scratch()
        let path = scratch.path("h.labellog")
        _ = try HistoryIndexCommandTests.makeHistory(at: path, seed: 23, writes: 200)
        let logBefore = try bytes(path)
        #expect(try await CLI.run(["archive", path]).status == 64)
        #expect(try await CLI.run(["archive", path, "--before", "1"]).status == 1)
        #expect(try await CLI.run(["archive", path, "--before", "99999999"]).status == 1)
        #expect(try await CLI.run(["archive", path, "--before", "yesterday-ish"]).status == 64)
        #expect(try await CLI.run(["archive", path, "--before", "10", "--delete", "--to", scratch.path("")]).status == 64)
        #expect(try await CLI.run(["archive", path, "--before", "10", "--to", scratch.path("nowhere")]).status == 1)
        let store = try Self.openStore(path)
        let busy = try await CLI.run(["archive", path, "--before", "10"])
        await store.close()
        #expect(busy.status == 1 && busy.stderr.contains("in use"), "\(busy)")
        #expect(try bytes(path) == logBefore)
        #expect(!FileManager.default.fileExists(atPath: scratch.path("h.1-9.labellog")))
    }

    /// In format 4, with frames of 64 records: the cut through seq 100 splits the frame of 65…128.
    @Test(arguments: ["archive-written", "log-replaced"], [LogFormat.currentVersion, LogFormat.batchVersion])
    func aCrashAtAStepLeavesTheOldLogOrTheNewLayout(step: String, format: UInt16) async throws {
        let scratch = try Scratch()
        let path = scratch.path("h.labellog")
        if format == LogFormat.batchVersion {
            let source = scratch.path("source.labellog")
            _ = try HistoryIndexCommandTests.makeHistory(at: source, seed: 24, writes: 600)
            try FormatFourCommandTests.formatFourCopy(of: source, to: path, sizes: [64])
        } else {
            _ = try HistoryIndexCommandTests.makeHistory(at: path, seed: 24, writes: 600)
        }
        let (records, _) = try LogReader.readAll(path: path)
        let last = UInt64(records.count)
        let before = try await Self.answers(path, cut: 100, last: last)
        let logBefore = try bytes(path)
        let crashed = try await CLI.run(["archive", path, "--before", "101"], environment: ["LABELSTORE_TEST_CUT_CRASH": step])
        #expect(crashed.status == 99, "\(crashed)")
        let archive = scratch.path("h.1-100.labellog")
        #expect(try await CLI.run(["verify", archive]).status == 0, "the archive is not whole after the crash")
        if step == "archive-written" {
            #expect(try bytes(path) == logBefore, "the log changed before it was replaced")
            let again = try await CLI.run(["archive", path, "--before", "101"])
            #expect(again.status == 1 && again.stderr.contains("already there"), "\(again)")
            try FileManager.default.removeItem(atPath: archive)
            #expect(try await CLI.run(["archive", path, "--before", "101"]).status == 0)
        }
        let verified = try await CLI.run(["verify", path])
        #expect(verified.status == 0 && verified.stdout.contains("the archive joins the log"), "\(verified)")
        #expect(try await Self.answers(path, cut: 100, last: last) == before)
        // A store opens it and writes on.
        try makeLog(at: path) { store in _ = try store.add("after the crash") }
        #expect(try await CLI.run(["verify", path]).status == 0)
    }
}
