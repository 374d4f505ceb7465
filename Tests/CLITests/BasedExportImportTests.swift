import EventLog
import Foundation
import LabelStoreTestSupport
import Testing

/// `export` of a based log whose archive is not there starts with the base
/// (`{"base":{…}}`), and `import` of it makes a based log of the same
/// history: the same id, first seq, chained checksum, records and head, which
/// the archive, brought back, joins again. Existing logs of another history
/// and damaged base lines are refused and change nothing.
@Suite struct BasedExportImportTests {
    /// A based log at `h.labellog` (600 writes, seqs 1…300 archived), its archive moved away; returns its path and the archive's.
    func basedLogWithoutItsArchive(_ scratch: Scratch) async throws -> (path: String, archive: String, away: String) {
        let path = scratch.path("h.labellog")
        _ = try HistoryIndexCommandTests.makeHistory(at: path, seed: 41, writes: 600)
        #expect(try await CLI.run(["archive", path, "--before", "301"]).status == 0)
        let archive = scratch.path("h.1-300.labellog")
        let away = scratch.path("h.1-300.away")
        try FileManager.default.moveItem(atPath: archive, toPath: away)
        return (path, archive, away)
    }

    @Test func aBasedLogExportedWithoutItsArchiveImportsAsABasedLogOfTheSameHistory() async throws {
        let scratch = try Scratch()
        let (path, archive, away) = try await basedLogWithoutItsArchive(scratch)
        let export = try await CLI.run(["export", path])
        #expect(export.status == 0 && export.stderr.contains("seq 1 is archived in"), "\(export)")
        let lines = export.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        let first = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        let base = try #require(first["base"] as? [String: Any], "the first line is the base: \(lines[0])")
        let header = try LogReader(path: path).header
        #expect(base["firstSeq"] as? Int == 301 && base["logID"] as? String == header.logID.description)
        #expect(base["chain"] as? UInt32 == header.previousChecksum)
        #expect(lines.count == 1 + (try LogReader.readAll(path: path).records.count))
        let input = scratch.path("h.jsonl")
        try export.stdout.write(toFile: input, atomically: false, encoding: .utf8)

        // Into another directory: a based log of the same history.
        try FileManager.default.createDirectory(atPath: scratch.path("elsewhere"), withIntermediateDirectories: false)
        let copy = scratch.path("elsewhere/copy.labellog")
        let imported = try await CLI.run(["import", copy, input])
        #expect(imported.status == 0 && imported.stdout.contains("as seq 301…"), "\(imported)")
        let copied = try LogReader(path: copy).header
        #expect(copied.logID == header.logID && copied.firstSeq == 301 && copied.previousChecksum == header.previousChecksum)
        #expect(
            copied.base?.lastCutSeq == 300 && copied.base?.image == header.base?.image && copied.base?.frontier == header.base?.frontier)
        #expect(copied.base?.disposition == .archived(file: URL(fileURLWithPath: archive).standardizedFileURL.path))
        let same = try LogReader.readAll(path: path).records == LogReader.readAll(path: copy).records
        #expect(same, "the imported records are not the source's")
        let heads = (
            try await CLI.run(["head", path, "--json"]).json()["head"] as? String,
            try await CLI.run(["head", copy, "--json"]).json()["head"] as? String
        )
        #expect(heads.0 != nil && heads.0 == heads.1)
        let alone = try await CLI.run(["verify", copy])
        #expect(alone.status == 0 && alone.stdout.contains("the archive is not there"), "\(alone)")

        // The archive brought back joins the imported log, and answers for its seqs.
        try FileManager.default.moveItem(atPath: away, toPath: archive)
        let joined = try await CLI.run(["verify", copy])
        #expect(joined.status == 0 && joined.stdout.contains("the archive joins the log"), "\(joined)")
        let atArchived = (
            try await CLI.run(["show", path, "--at", "120", "--json"]).stdout,
            try await CLI.run(["show", copy, "--at", "120", "--json"]).stdout
        )
        #expect(atArchived.0 == atArchived.1 && !atArchived.0.isEmpty)
        // With the archive there, the export is the whole history from seq 1, with no base line.
        let whole = try await CLI.run(["export", path])
        #expect(whole.status == 0 && !whole.stdout.contains("\"base\""), "\(whole.stdout.prefix(80))")
        let held = try LogReader.readAll(path: archive).records.count + LogReader.readAll(path: path).records.count
        #expect(whole.stdout.split(separator: "\n").count == held, "every record from seq 1")

        // Through a pipe (standard input), as `export A | labelreplay import B` runs: the same log.
        let piped = scratch.path("elsewhere/piped.labellog")
        let fromStdin = try await CLI.run(["import", piped], stdin: Data(export.stdout.utf8))
        #expect(fromStdin.status == 0, "\(fromStdin)")
        #expect(
            try LogReader(path: piped).header.firstSeq == 301
                && LogReader.readAll(path: piped).records == LogReader.readAll(path: copy).records)

        // Again with --resume: nothing twice. Without it, the records contradict the log: nothing imported.
        let before = try bytes(copy)
        let again = try await CLI.run(["import", copy, input, "--resume"])
        #expect(again.status == 0 && again.stdout.contains("already at the end"), "\(again)")
        let twice = try await CLI.run(["import", copy, input])
        #expect(twice.status == 1 && twice.stderr.contains("\(input) line 2:") && twice.stderr.contains("nothing was imported"), "\(twice)")
        #expect(try bytes(copy) == before)
    }

    @Test func anInterruptedBasedImportResumesAndADroppedBaseImportsToo() async throws {
        let scratch = try Scratch()
        let (path, _, _) = try await basedLogWithoutItsArchive(scratch)
        // A second cut drops records: the export starts from the newer base, which says they were dropped.
        #expect(try await CLI.run(["archive", path, "--before", "401", "--delete"]).status == 0)
        let export = try await CLI.run(["export", path])
        #expect(export.status == 0 && export.stderr.contains("was dropped"), "\(export)")
        let lines = export.stdout.split(separator: "\n").map(String.init)
        #expect(lines[0].hasPrefix("{\"base\":"))
        // Blank lines before the base, and half the records: then the whole export with --resume.
        let half = scratch.path("half.jsonl")
        try ("\n\n" + lines.prefix(lines.count / 2).joined(separator: "\n") + "\n").write(toFile: half, atomically: false, encoding: .utf8)
        let whole = scratch.path("whole.jsonl")
        try export.stdout.write(toFile: whole, atomically: false, encoding: .utf8)
        let copy = scratch.path("copy.labellog")
        #expect(try await CLI.run(["import", copy, half]).status == 0)
        let resumed = try await CLI.run(["import", copy, whole, "--resume"])
        #expect(resumed.status == 0 && resumed.stdout.contains("skipped the first \(lines.count / 2 - 1)"), "\(resumed)")
        #expect(try LogReader.readAll(path: path).records == LogReader.readAll(path: copy).records)
        #expect(try LogReader(path: copy).header.base?.disposition == .dropped)
        let heads = (try await CLI.run(["head", path]).stdout, try await CLI.run(["head", copy]).stdout)
        #expect(heads.0 == heads.1 && !heads.0.isEmpty)
        let verified = try await CLI.run(["verify", copy])
        #expect(verified.status == 0 && verified.stdout.contains("were dropped"), "\(verified)")
        // A bad record is named by its line in the file, the blank lines and the base line counted.
        var bad = lines
        bad[3] = "{\"kind\":\"renamed\",\"id\":\"00000000-0000-0000-0000-000000000009\",\"title\":\"x\"}"
        let badInput = scratch.path("bad.jsonl")
        try ("\n\n" + bad.joined(separator: "\n") + "\n").write(toFile: badInput, atomically: false, encoding: .utf8)
        let refused = try await CLI.run(["import", scratch.path("bad.labellog"), badInput])
        #expect(refused.status == 1 && refused.stderr.contains("\(badInput) line 6:"), "\(refused)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("bad.labellog")), "the log the failed import created is removed")
        // An export from a later seq has no base line.
        let later = try await CLI.run(["export", path, "--from", "450"])
        #expect(later.status == 0 && later.stdout.hasPrefix("{") && !later.stdout.contains("\"base\""), "\(later.stdout.prefix(80))")
    }

    @Test func aLogOfAnotherHistoryAndADamagedBaseAreRefusedAndChangeNothing() async throws {
        let scratch = try Scratch()
        let (path, _, _) = try await basedLogWithoutItsArchive(scratch)
        let export = try await CLI.run(["export", path])
        let input = scratch.path("h.jsonl")
        try export.stdout.write(toFile: input, atomically: false, encoding: .utf8)
        // Another history: a log from seq 1, and the same log cut at another seq.
        let whole = scratch.path("whole.labellog")
        #expect(try await CLI.run(["init", whole]).status == 0)
        let other = scratch.path("other.labellog")
        try FileManager.default.copyItem(atPath: path, toPath: other)
        #expect(try await CLI.run(["archive", other, "--before", "401", "--delete"]).status == 0)
        for log in [whole, other] {
            let before = try bytes(log)
            let refused = try await CLI.run(["import", log, input])
            #expect(refused.status == 1 && refused.stderr.contains("another history than the input's from seq 301"), "\(refused)")
            #expect(try bytes(log) == before, "\(log) changed")
        }
        // A damaged base line: named, and no log is created.
        let lines = export.stdout.split(separator: "\n").map(String.init)
        var object = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: [String: Any]])
        let block = try #require(object["base"]?["block"] as? String)
        var raw = [UInt8](try #require(Data(base64Encoded: block)))
        raw[raw.count / 2] ^= 0x40
        var cases: [(String, String)] = []
        object["base"]?["block"] = Data(raw).base64EncodedString()
        cases.append((String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self), "checksum does not match"))
        object["base"]?["block"] = "not base64!"
        cases.append((String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self), "is not base64"))
        object["base"]?["block"] = block
        object["base"]?["firstSeq"] = 302
        cases.append((String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self), "the base line's block"))
        object["base"]?["firstSeq"] = 301
        object["base"]?["logID"] = "00000000-0000-0000-0000-000000000001"
        cases.append((String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self), "list does not decode"))
        object["base"]?["created"] = "yesterday"
        cases.append((String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self), "'created' (yesterday)"))
        object["base"] = ["firstSeq": 301]
        cases.append((String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self), "missing field"))
        for (n, (line, message)) in cases.enumerated() {
            let damaged = scratch.path("damaged\(n).jsonl")
            try ([line] + lines.dropFirst()).joined(separator: "\n").write(toFile: damaged, atomically: false, encoding: .utf8)
            let log = scratch.path("new\(n).labellog")
            let refused = try await CLI.run(["import", log, damaged])
            #expect(
                refused.status == 1 && refused.stderr.contains("\(damaged) line 1:") && refused.stderr.contains(message), "\(n): \(refused)"
            )
            #expect(!FileManager.default.fileExists(atPath: log), "\(n): a log was created")
        }
    }
}
