import EventLog
import Foundation
import LabelProjection
import LabelStoreTestSupport
import Testing

/// Issue 16, items 2, 3 and 8: where `log` starts, how its filters combine,
/// and its text output in pipes. The history is ReadCommandTests.history:
/// seqs 1–3 by setup (Grid, Tile, Ring added), 4 and 5 and 7 by filter-ui, 6 by
/// row-ui; seq n stamped 2026-01-01T00:00:0nZ.
@Suite struct LogSelectionTests {
    static func seqs(_ result: CLIResult) throws -> [Int] { try result.jsonLines().map { $0["seq"] as? Int ?? -1 } }

    @Test func repeatedFiltersCombineAsOr() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try ReadCommandTests.history(at: log)
        try makeLog(at: log) { store in try store.add("Anon", id: testID(9), options: stamped(8)) }  // seq 8, no actor
        async let actors = CLI.run(["log", log, "--actor", "setup", "--actor", "row-ui", "--json"])
        async let labels = CLI.run(["log", log, "--label", testID(1).description, "--label", "00000000000040008000000000000003", "--json"])
        async let kinds = CLI.run(["log", log, "--kind", "renamed", "--kind", "removed,toggled", "--json"])
        async let noActor = CLI.run(["log", log, "--no-actor", "--json"])
        async let both = CLI.run(["log", log, "--no-actor", "--actor", "row-ui", "--json"])
        async let and = CLI.run(["log", log, "--actor", "filter-ui", "--kind", "removed", "--json"])
        #expect(try Self.seqs(await actors) == [1, 2, 3, 6])
        #expect(try Self.seqs(await labels) == [1, 3, 4, 5, 6], "Grid's and Ring's events, and the reorder holding them")
        #expect(try Self.seqs(await kinds) == [4, 6, 7])
        #expect(try Self.seqs(await noActor) == [8])
        #expect(try Self.seqs(await both) == [6, 8])
        #expect(try Self.seqs(await and) == [7], "different filters still combine as AND")
        // trace's --label repeats as well.
        let trace = try await CLI.run(["trace", log, "--label", testID(1).description, "--label", testID(2).description, "--json"])
        #expect(try Self.seqs(trace) == [1, 2, 5, 6, 7], "\(trace)")
    }

    @Test(arguments: [
        ["log", "L", "--from", "2", "--from", "3"], ["log", "L", "--to", "2", "--to", "3"], ["show", "L", "--at", "1", "--at", "2"],
        ["rename", "L", "abcd", "T", "--note", "a", "--note", "b"]
    ])
    func aSingleValueOptionGivenTwiceIsAUsageError(_ arguments: [String]) async throws {
        let result = try await CLI.run(arguments)
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.contains("was given twice") && result.stderr.contains("give it once"), "\(result)")
    }

    @Test func lastEndAndJumpingToASeq() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try ReadCommandTests.history(at: log)
        async let last = CLI.run(["log", log, "-n", "2", "--json"])
        async let lastLong = CLI.run(["log", log, "--last=3", "--actor", "filter-ui", "--json"])
        async let lastZero = CLI.run(["log", log, "-n0", "--json"])
        async let end = CLI.run(["log", log, "--from", "end"])
        async let jump = CLI.run(["log", log, "--from", "5", "--no-header"])
        async let negative = CLI.run(["log", log, "--from", "-3"])
        async let time = CLI.run(["log", log, "--from", "2026-12-01T01:33:41Z"])
        #expect(try Self.seqs(await last) == [6, 7])
        #expect(try Self.seqs(await lastLong) == [4, 5, 7], "the last three that pass the filter")
        #expect(try await lastZero.stdout.isEmpty)
        let atEnd = try await end
        #expect(atEnd.status == 0 && atEnd.stdout.isEmpty && atEnd.stderr.contains("(no matching events)"), "\(atEnd)")
        // Jumping to seq 5 skips the records before it without folding them, yet learns the titles they state:
        // seq 6 toggles Grid, named by the add at seq 1.
        let jumped = try await jump
        #expect(jumped.lines.map { $0.split(separator: " ").first.map(String.init) } == ["5", "6", "7"], "\(jumped)")
        #expect(jumped.lines[1].contains(#"00000000 "Grid""#) && jumped.lines[1].contains("on → off"), "\(jumped)")
        let refused = try await negative
        #expect(refused.status == 64 && refused.stderr.contains("use '-n 3'"), "\(refused)")
        let timed = try await time
        #expect(timed.status == 64 && timed.stderr.contains("use '--since 2026-12-01T01:33:41Z'"), "\(timed)")
    }

    @Test func sinceAndUntilTakeLocalTimeWithoutAZone() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try ReadCommandTests.history(at: log)
        // Kolkata is UTC+05:30 all year: 05:30:03 there is 00:00:03Z.
        let kolkata = ["TZ": "Asia/Kolkata"]
        async let local = CLI.run(
            ["log", log, "--since", "2026-01-01 05:30:03", "--until", "2026-01-01T05:30:05", "--json"], environment: kolkata)
        async let zoned = CLI.run(["log", log, "--since", "2026-01-01T00:00:06Z", "--json"], environment: kolkata)
        async let offset = CLI.run(["log", log, "--until", "2026-01-01T01:00:02+01:00", "--json"], environment: kolkata)
        async let date = CLI.run(["log", log, "--until", "2026-01-01", "--json"], environment: kolkata)
        async let ago = CLI.run(["log", log, "--since", "1h", "--json"])
        async let long = CLI.run(["log", log, "--since", "5000d", "--until", "now", "--json"])
        async let atTime = CLI.run(["show", log, "--at-time", "2026-01-01T05:30:02", "--json"], environment: kolkata)
        async let bad = CLI.run(["log", log, "--since", "yesterday"])
        async let reversed = CLI.run(["log", log, "--since", "2026-01-02", "--until", "2026-01-01"])
        #expect(try Self.seqs(await local) == [3, 4, 5])
        #expect(try Self.seqs(await zoned) == [6, 7])
        #expect(try Self.seqs(await offset) == [1, 2])
        #expect(try Self.seqs(await date).isEmpty, "local midnight in Kolkata is 18:30Z the day before")
        #expect(try Self.seqs(await ago).isEmpty, "the records are from 2026-01-01")
        #expect(try Self.seqs(await long) == [1, 2, 3, 4, 5, 6, 7])
        #expect(try await atTime.json()["seq"] as? Int == 2, "show --at-time reads local time too")
        let malformed = try await bad
        #expect(malformed.status == 64 && malformed.stderr.contains("15m, 2h, 3d"), "\(malformed)")
        #expect(try await reversed.status == 64)
    }

    /// The column where `kind` starts in the header, and where each row's kind starts.
    static func kindColumns(_ lines: [String]) -> Set<Int> {
        let kinds = ["  kind "] + LabelEvent.Kind.allCases.map { "  " + $0.rawValue + " " }
        return Set(
            lines.compactMap { line in
                kinds.lazy.compactMap { line.range(of: $0) }.first.map { line.distance(from: line.startIndex, to: $0.lowerBound) }
            })
    }

    @Test func textColumnsAreStableAndFollowLinesUpWithTheHeader() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try ReadCommandTests.history(at: log)
        let follow = try CLI.start(["log", log, "--follow", "-n", "1"])
        // The header comes at once, then the last event; then what another process appends.
        #expect(try await follow.waitForOutput(containing: "removed"))
        try makeLog(at: log) { store in
            try store.rename(testID(3), to: "A much longer title than any before", options: WriteOptions(actor: "a-long-actor-name"))
            try store.setEnabled(testID(3), false, options: WriteOptions(actor: "x"))
        }
        #expect(try await follow.waitForOutput(containing: "on → off"))
        let result = try await follow.interrupt()
        let lines = result.lines
        #expect(lines.count == 4 && lines[0].hasPrefix("seq"), "\(result)")
        let header = try #require(lines.first)
        // Every column of every line starts where the header's does, up to the label column
        // (a cell wider than its column pushes only its own line: the long actor).
        for line in [lines[1], lines[3]] {
            for column in ["time", "actor", "kind", "label"] {
                let at = header.distance(from: header.startIndex, to: try #require(header.range(of: column)).lowerBound)
                #expect(line.dropFirst(at - 2).hasPrefix("  ") && line.dropFirst(at).first != " ", "\(column) in \(line)")
            }
        }
        // Without --follow, a long log printed in several batches keeps one width too.
        let big = scratch.path("big.labellog")
        try TerminalTests.toggles(at: big, count: 3000)
        let all = try await CLI.run(["log", big])
        #expect(Self.kindColumns(all.lines).count == 1, "one column for kind in \(all.lines.count) lines")
    }

    @Test func textOutputInPipes() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try ReadCommandTests.history(at: log)
        async let none = CLI.run(["log", log, "--kind", "moved"])
        async let traced = CLI.run(["trace", log, "--from", "3", "--to", "3", "--label", testID(2).description])
        async let bare = CLI.run(["log", log, "--no-header", "-n", "1"])
        async let headed = CLI.run(["log", log, "-n", "1"])
        let empty = try await none
        #expect(empty.status == 0 && empty.stdout.isEmpty && empty.stderr == "(no matching events)\n", "\(empty)")
        let quiet = try await traced
        #expect(quiet.stdout.isEmpty && quiet.stderr.contains("(no matching events)"), "\(quiet)")
        let (noHeader, header) = try await (bare, headed)
        #expect(noHeader.lines.count == 1 && noHeader.stdout.hasPrefix("  7  "), "\(noHeader)")
        #expect(header.lines.count == 2 && header.stdout.hasPrefix("seq"), "\(header)")
    }
}
