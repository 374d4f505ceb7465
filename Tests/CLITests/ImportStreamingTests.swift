import EventLog
import Foundation
import LabelProjection
import LabelStoreTestSupport
import Testing

/// `import` streams its input (a block and a chunk at a time) and is still all or
/// nothing: a bad line deep in a long input names its line and imports nothing,
/// lines longer than a read block and blank lines anywhere are read, and
/// `--resume` finds the prefix the log ends with across chunks.
@Suite struct ImportStreamingTests {
    /// The JSON line adding label `n` (id `testID(n)`) at `index`.
    static func add(_ n: Int, at index: Int, time: Bool = true) -> String {
        let stamp = time ? #","time":"2026-01-01T00:00:00.000Z""# : ""
        return #"{"actor":"gen","id":"\#(testID(n))","index":\#(index),"isEnabled":true,"kind":"added","title":"Label \#(n)"\#(stamp)}"#
    }

    /// The JSON line toggling label `n` to `isEnabled`.
    static func toggle(_ n: Int, _ isEnabled: Bool, actor: String = "gen") -> String {
        #"{"actor":"\#(actor)","id":"\#(testID(n))","isEnabled":\#(isEnabled),"kind":"toggled"}"#
    }

    @Test func aBadLineDeepInALongInputNamesItsLineAndImportsNothing() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try makeGridTileRing(at: log)
        let before = try bytes(log)
        // 10,000 adds (ten chunks), a blank line every 997 lines, CRLF endings on some.
        var lines: [String] = []
        for n in 10..<10_010 {
            if n % 997 == 0 { lines.append("   ") }
            lines.append(Self.add(n, at: n - 7) + (n % 3 == 0 ? "\r" : ""))
        }
        let good = lines.joined(separator: "\n")
        let blanks = lines.filter { $0.trimmingCharacters(in: .whitespaces).isEmpty }.count
        // A toggle of a label that does not exist, as line 9,001 + blanks before it.
        var bad = lines
        let at = 9_000 + lines.prefix(9_000).filter { $0.trimmingCharacters(in: .whitespaces).isEmpty }.count
        bad.insert(Self.toggle(99_999, false), at: at)
        let refused = try await CLI.run(["import", log], stdin: Data(bad.joined(separator: "\n").utf8))
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.stderr.contains("standard input line \(at + 1): the record does not apply to the log"), "\(refused)")
        #expect(refused.stderr.contains("nothing was imported"))
        #expect(try bytes(log) == before, "the 9,000 lines before it were not imported either")

        // A malformed line at the end of a file, after 10,000 good ones.
        let file = scratch.path("bad.jsonl")
        try Data((good + "\n{\"kind\":\"toggled\",").utf8).write(to: URL(fileURLWithPath: file))
        let malformed = try await CLI.run(["import", log, file])
        #expect(malformed.status == 1 && malformed.stderr.contains("\(file) line \(lines.count + 1): "), "\(malformed)")
        #expect(try bytes(log) == before)

        let imported = try await CLI.run(["import", log], stdin: Data(good.utf8))
        #expect(imported.status == 0 && imported.stdout.contains("imported 10000 records") && imported.stdout.contains("seq 4…10003"))
        #expect(blanks == 10)
        let (records, report) = try LogReader.readAll(path: log)
        #expect(records.count == 10_003 && report.damage == nil)
        #expect(records.last?.event == .added(id: testID(10_009), title: "Label 10009", isEnabled: true, index: 10_002))
    }

    @Test func aLineLongerThanAReadBlockIsImported() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        let count = 30_000
        var lines = (0..<count).map { Self.add($0 + 1, at: $0, time: false) }
        // The reverse of all 30,000: a line of about 1.2 MB, longer than the 1 MiB read block.
        let order = (0..<count).reversed().map { "\"\(testID($0 + 1))\"" }.joined(separator: ",")
        lines.append(#"{"kind":"reordered","order":[\#(order)]}"#)
        #expect(lines.last!.utf8.count > 1 << 20)
        let input = scratch.path("in.jsonl")
        try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: input))
        let result = try await CLI.run(["import", log, input])
        #expect(result.status == 0 && result.stdout.contains("imported 30001 records"), "\(result)")
        let show = try await CLI.run(["show", log, "--json"]).json()
        let shown = show["labels"] as? [[String: Any]] ?? []
        #expect(shown.count == count && shown.first?["id"] as? String == testID(count).description)
    }

    /// The log ends with some records of the input; `--resume` must find exactly those, from
    /// a file (where it knows how far back to look) and from standard input (where it does not).
    @Test func resumeFindsThePrefixTheLogEndsWithAcrossChunksAndFalseStarts() async throws {
        let scratch = try Scratch()
        func check(_ setup: [String], _ input: [String], skips: Int, appends: Int, _ comment: Comment) async throws {
            for viaFile in [true, false] {
                let log = scratch.path("r-\(UUID().uuidString).labellog")
                #expect(try await CLI.run(["import", log], stdin: Data(setup.joined(separator: "\n").utf8)).status == 0)
                let file = scratch.path("in-\(UUID().uuidString).jsonl")
                try Data(input.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: file))
                let result =
                    viaFile
                    ? try await CLI.run(["import", log, file, "--resume"])
                    : try await CLI.run(["import", log, "--resume"], stdin: Data(input.joined(separator: "\n").utf8))
                let records = try LogReader.readAll(path: log).records
                #expect(result.status == 0, "\(comment) (file: \(viaFile)): \(result)")
                #expect(records.count == setup.count + appends, "\(comment) (file: \(viaFile)): \(result)")
                if skips > 0 {
                    #expect(result.stdout.contains("(skipped the first \(skips) record"), "\(comment) (file: \(viaFile)): \(result)")
                } else {
                    #expect(!result.stdout.contains("skipped"), "\(comment) (file: \(viaFile)): \(result)")
                }
            }
        }
        // A grown export: the log holds the first 6,000 of 9,000 records (over several chunk boundaries).
        let adds = (0..<9_000).map { Self.add($0 + 1, at: $0) }
        try await check(Array(adds.prefix(6_000)), adds, skips: 6_000, appends: 3_000, "a grown export")
        // Label 1 toggled off, on, off, on, off: the input's first three (off, on, off) match at seq 2
        // only for two records, then at seq 4 to the end: three are skipped, the rename appended.
        let flips = [Self.add(1, at: 0)] + (0..<5).map { Self.toggle(1, $0 % 2 == 1) }
        let rename = #"{"id":"\#(testID(1))","kind":"renamed","oldTitle":"Label 1","title":"One"}"#
        try await check(
            flips, [Self.toggle(1, false), Self.toggle(1, true), Self.toggle(1, false), rename], skips: 3, appends: 1, "a false start")
        // Label 1 off, on, off, then renamed: the input (on, off, on) matches at seq 3 for two
        // records but the log goes on; nothing is skipped, and the two matched entries are appended after all.
        let renamed = [Self.add(1, at: 0)] + (0..<3).map { Self.toggle(1, $0 % 2 == 1) } + [rename]
        try await check(renamed, [Self.toggle(1, true), Self.toggle(1, false), Self.toggle(1, true)], skips: 0, appends: 3, "no match")
        // The same with another actor: the content differs, so nothing matches from the start.
        try await check(
            renamed, [Self.toggle(1, true, actor: "x"), Self.toggle(1, false), Self.toggle(1, true)], skips: 0, appends: 3, "another actor")
    }

    /// An import is one long write, made durable at its commit: it leaves the writer's sync
    /// mark (`LOG.synced`) naming its last record, so a read through the caches right after
    /// it need not check the write's frames again (docs/FORMAT.md, "The sync mark").
    @Test func anImportLeavesTheSyncMarkAtItsLastRecord() async throws {
        let scratch = try Scratch()
        let log = scratch.path("i.labellog")
        let lines = (0..<6_000).map { Self.add($0 + 10, at: $0) }
        let imported = try await CLI.run(["init", log])
        #expect(imported.status == 0, "\(imported)")
        let result = try await CLI.run(["import", log], stdin: Data(lines.joined(separator: "\n").utf8))
        #expect(result.status == 0, "\(result)")
        let text = try String(contentsOfFile: log + ".synced", encoding: .utf8)
        let fields = text.split(separator: "\n")[2].split(separator: " ")
        #expect(fields.first == "6000", "the mark names the import's last record: \(text)")
    }
}
