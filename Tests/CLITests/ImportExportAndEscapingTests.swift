import EventLog
import Foundation
import LabelProjection
import LabelStoreTestSupport
import Testing

/// `export` and `import`, and the escaping of untrusted text in every human-readable output.
@Suite struct ImportExportAndEscapingTests {
    @Test func exportThenImportReproducesTheSameRecords() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try TraceAndRevertTests.history(at: log)  // includes a rejected audit record
        let exported = try await CLI.run(["export", log])
        #expect(exported.status == 0)
        let copy = scratch.path("copy.labellog")
        let imported = try await CLI.run(["import", copy, "-"], stdin: Data(exported.stdout.utf8))
        #expect(imported.status == 0, "\(imported)")
        #expect(imported.stdout.contains("imported 7 records") && imported.stdout.contains("seq 1…7"))
        let again = try await CLI.run(["export", copy])
        #expect(again.stdout == exported.stdout, "seqs, times, actors, notes and events survive the round trip")
        let records = try again.jsonLines()
        #expect(records.first?["time"] as? String == "2026-01-01T00:00:01.000Z")

        // A range, and appending to an existing log from a file.
        let part = try await CLI.run(["export", log, "--from", "2", "--to", "3"])
        #expect(try part.jsonLines().map { $0["seq"] as? Int } == [2, 3])
        let file = scratch.path("more.jsonl")
        try Data(
            #"{"kind":"added","id":"00000000-0000-4000-8000-000000000009","title":"Nine","isEnabled":true,"index":0,"actor":"importer"}"#
                .utf8
        )
        .write(to: URL(fileURLWithPath: file))
        let appended = try await CLI.run(["import", copy, file])
        #expect(appended.status == 0 && appended.stdout.contains("as seq 8"), "\(appended)")
        let last = try await CLI.run(["log", copy, "--from", "8", "--json"]).json()
        #expect(last["actor"] as? String == "importer" && last["seq"] as? Int == 8 && last["time"] is String)
    }

    /// Regression: times outside the years 0000–9999 were stored, exported with the year in
    /// full and refused by `import` (which expected exactly four digits).
    @Test func exportThenImportKeepsTimesAtTheExtremesOfWhatALogStores() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        let times = TimestampSamples.extremes
        let writer = try LogWriter.open(path: log, options: .init(durability: .noSync, createIfMissing: true))
        for (i, (ms, _)) in times.enumerated() {
            try writer.append([
                LogEntry(
                    .added(id: testID(i + 1), title: "T\(i)", isEnabled: true, index: i),
                    timestamp: EventTimestamp(millisecondsSince1970: ms))
            ])
        }
        writer.close()
        let exported = try await CLI.run(["export", log])
        #expect(exported.status == 0, "\(exported)")
        #expect(try exported.jsonLines().map { $0["time"] as? String } == times.map(\.1))
        let copy = scratch.path("copy.labellog")
        let imported = try await CLI.run(["import", copy, "-"], stdin: Data(exported.stdout.utf8))
        #expect(imported.status == 0 && imported.stdout.contains("imported \(times.count) records"), "\(imported)")
        let again = try await CLI.run(["export", copy])
        #expect(again.stdout == exported.stdout)
        #expect(try LogReader.readAll(path: copy).records.map(\.timestamp.millisecondsSince1970) == times.map(\.0))
        // The human-readable forms show the same text.
        let listed = try await CLI.run(["log", copy])
        for (_, text) in times { #expect(listed.stdout.contains(text), "\(text) in \(listed)") }
        // A time no log can store is refused, naming it.
        let beyond =
            #"{"kind":"toggled","id":"00000000-0000-4000-8000-000000000001","isEnabled":false,"time":"+292278995-01-01T00:00:00.000Z"}"#
        let refused = try await CLI.run(["import", copy, "-"], stdin: Data(beyond.utf8))
        #expect(
            refused.status == 1 && refused.stderr.contains("+292278995-01-01T00:00:00.000Z") && refused.stderr.contains("line 1"),
            "\(refused)")
    }

    @Test func importIsAllOrNothing() async throws {
        let scratch = try Scratch()
        let good = #"{"kind":"added","id":"00000000-0000-4000-8000-000000000001","title":"One","isEnabled":true,"index":0}"#
        let cases: [(String, String)] = [
            (good + "\n\n{not json\n", "line 3: "),
            (good + "\n" + #"{"kind":"exploded","id":"00000000-0000-4000-8000-000000000001"}"#, "unknown kind 'exploded'"),
            (good + "\n" + #"{"kind":"renamed","title":"X"}"#, "missing field"),
            (good + "\n" + #"{"kind":"renamed","id":"00000000-0000-4000-8000-000000000002","oldTitle":"A","title":"B"}"#, "line 2: ")
        ]
        for (input, message) in cases {
            let fresh = scratch.path("fresh-\(UUID().uuidString).labellog")
            let result = try await CLI.run(["import", fresh], stdin: Data(input.utf8))
            #expect(result.status == 1, "\(result)")
            #expect(result.stderr.contains(message) && result.stderr.contains("nothing was imported"), "\(result)")
            #expect(!FileManager.default.fileExists(atPath: fresh), "no log is left behind")
        }
        let log = scratch.path("l.labellog")
        try makeGridTileRing(at: log)
        let before = try bytes(log)
        let clash = #"{"kind":"added","id":"00000000-0000-4000-8000-000000000001","title":"Again","isEnabled":true,"index":0}"#
        let refused = try await CLI.run(
            ["import", log], stdin: Data((good.replacingOccurrences(of: "01\"", with: "07\"") + "\n" + clash).utf8))
        #expect(refused.status == 1 && refused.stderr.contains("line 2"), "\(refused)")
        #expect(try bytes(log) == before, "the first, valid line was not imported either")
        let empty = try await CLI.run(["import", log], stdin: Data("\n\n".utf8))
        #expect(empty.status == 0 && empty.stdout.contains("nothing to import"))
    }

    /// A title with an escape sequence, a bell, a bidi override, a newline and a backslash.
    static let hostile = "Red\u{1B}[31mAlert\u{07}\u{202E}gnp.exe\nline two\\"

    @Test func untrustedTextIsNeverWrittenRaw() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        let added = try await CLI.run(["add", log, Self.hostile, "--actor", "evil\u{1B}]52;c;AAAA\u{07}", "--note", "n\u{1B}[2J"])
        #expect(added.status == 0, "\(added)")
        let id = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try makeLog(at: log) { store in
            try store.add("Plain", id: testID(1))
            try store.remove(testID(1))
        }
        var outputs = [added]
        for arguments in [
            ["show", log], ["show", log, "--query", "alert"], ["log", log], ["log", log, "--label", id],
            ["trace", log, "--query", "red"], ["diff", log, "0", "3"], ["stats", log],
            ["rename", log, id, Self.hostile], ["toggle", log, id], ["revert", log, "4"],
            ["rename", log, "0000", "x"], ["show", log, "--at-time", "\u{1B}[31m"], ["show", log, "--bogus\u{1B}"]
        ] {
            outputs.append(try await CLI.run(arguments))
        }
        for result in outputs {
            for (name, text) in [("stdout", result.stdout), ("stderr", result.stderr)] {
                #expect(
                    !text.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" || $0 == "\u{202E}" },
                    "raw control characters in \(name) of \(result.arguments)")
            }
        }
        let show = outputs[1].stdout
        #expect(show.contains(#"Red\u{1B}[31mAlert\u{7}\u{202E}gnp.exe\nline two\\"#), "\(show)")
        #expect(outputs[3].stdout.contains(#"evil\u{1B}]52;c;AAAA\u{7}"#) && outputs[3].stdout.contains(#"# n\u{1B}[2J"#))
        #expect(outputs[8].stdout.hasPrefix("nothing changed: "), "the same title again changes nothing")
        // JSON carries the exact title (JSON escapes it itself).
        let json = try await CLI.run(["show", log, "--json"]).json()
        #expect((json["labels"] as? [[String: Any]])?.first?["title"] as? String == Self.hostile)
    }
}
