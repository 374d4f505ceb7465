import EventLog
import Foundation
import LabelProjection
import LabelStoreTestSupport
import Testing

/// `show`, `log`, `diff` and `stats`: reading a log without changing it.
@Suite struct ReadCommandTests {
    /// Grid, Tile, Ring (seqs 1–3), then Ring → Ring Two (4, filter-ui), reverse (5), Grid off (6), Tile removed (7);
    /// seq n is stamped 2026-01-01T00:00:0nZ.
    static func history(at path: String) throws {
        try makeGridTileRing(at: path)
        try makeLog(at: path) { store in
            try store.rename(testID(3), to: "Ring Two", options: stamped(4, actor: "filter-ui", note: "via view"))
            try store.reverse(options: stamped(5, actor: "filter-ui", note: "via view"))
            try store.setEnabled(testID(1), false, options: stamped(6, actor: "row-ui"))
            try store.remove(testID(2), options: stamped(7, actor: "filter-ui", note: "via view"))
        }
    }

    @Test func showPrintsTheListNowAtASeqAndAtATime() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try Self.history(at: log)
        async let now = CLI.run(["show", log, "--json"])
        async let empty = CLI.run(["show", log, "--at", "0", "--json"])
        async let three = CLI.run(["show", log, "--at", "3", "--json"])
        async let past = CLI.run(["show", log, "--at", "8"])
        async let time = CLI.run(["show", log, "--at-time", "2026-01-01T00:00:02.500Z", "--json"])
        async let text = CLI.run(["show", log])

        let list = try await now.json()
        #expect(list["seq"] as? Int == 7 && list["count"] as? Int == 2)
        #expect(rows(list) == ["Ring Two (on)", "Grid (off)"])
        let first = try #require((list["labels"] as? [[String: Any]])?.first)
        #expect(first["id"] as? String == testID(3).description)
        #expect(first["version"] as? Int == 4 && first["position"] as? Int == 0)
        #expect(Set(first.keys) == ["id", "title", "isEnabled", "version", "position"])
        #expect(rows(try await empty.json()).isEmpty)
        #expect(rows(try await three.json()) == ["Grid (on)", "Tile (off)", "Ring (on)"])
        let beyond = try await past
        #expect(beyond.status == 1)
        #expect(beyond.stderr.contains("there is no seq 8: the log ends at seq 7"), "\(beyond)")
        let atTime = try await time.json()
        #expect(atTime["seq"] as? Int == 2, "records 1 and 2 are at or before 00:00:02.5")
        let table = try await text
        #expect(table.stdout.contains("at seq 7 (now): 2 labels, 1 enabled"))
        #expect(table.lines.contains { $0.contains("00000000") && $0.contains("Ring Two") && $0.contains("on") })
    }

    @Test func showFiltersAView() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try Self.history(at: log)
        async let query = CLI.run(["show", log, "--query", "GRID", "--json"])
        async let enabled = CLI.run(["show", log, "--enabled-only", "--at", "5", "--json"])
        async let none = CLI.run(["show", log, "--query", "zzz"])
        let grid = try await query.json()
        #expect(rows(grid) == ["Grid (off)"])
        #expect((grid["labels"] as? [[String: Any]])?.first?["position"] as? Int == 1)
        #expect(grid["count"] as? Int == 2)
        let on = try await enabled.json()
        #expect(rows(on) == ["Ring Two (on)", "Grid (on)"])
        #expect((on["labels"] as? [[String: Any]])?.map { $0["position"] as? Int } == [0, 2])
        #expect(try await none.stderr.contains("(no label matches)"))
    }

    @Test func logListsFiltersAndPrintsJSON() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try Self.history(at: log)
        async let text = CLI.run(["log", log])
        async let json = CLI.run(["log", log, "--json"])
        async let export = CLI.run(["export", log])
        async let kinds = CLI.run(["log", log, "--kind", "renamed,removed", "--json"])
        async let actor = CLI.run(["log", log, "--actor", "row-ui", "--json"])
        async let range = CLI.run(["log", log, "--from", "2", "--to", "4", "--json"])
        async let label = CLI.run(["log", log, "--label", "00000000-0000-4000-8000-000000000002", "--json"])

        let lines = try await text.lines
        #expect(lines.count == 8, "a header and 7 events: \(lines)")
        #expect(lines[0].hasPrefix("seq") && lines[0].contains("actor") && lines[0].contains("change"))
        #expect(
            lines[4].contains("filter-ui") && lines[4].contains("renamed") && lines[4].contains("\"Ring\" → \"Ring Two\"")
                && lines[4].contains("# via view"))
        #expect(lines[6].contains("toggled") && lines[6].contains("\"Grid\"") && lines[6].contains("on → off"))
        let records = try await json.jsonLines()
        #expect(records.map { $0["seq"] as? Int } == Array(1...7))
        #expect(
            records[3]["kind"] as? String == "renamed" && records[3]["oldTitle"] as? String == "Ring"
                && records[3]["title"] as? String == "Ring Two")
        #expect(try await json.stdout == export.stdout, "log --json and export print the same form")
        #expect(try await kinds.jsonLines().map { $0["seq"] as? Int } == [4, 7])
        #expect(try await actor.jsonLines().map { $0["seq"] as? Int } == [6])
        #expect(try await range.jsonLines().map { $0["seq"] as? Int } == [2, 3, 4])
        #expect(try await range.stderr.isEmpty, "stopping at --to says nothing about the log's tail")
        #expect(try await label.jsonLines().map { $0["seq"] as? Int } == [2, 5, 7], "Tile's add, the reverse that moved it, its removal")
    }

    @Test func logFollowPrintsEventsAppendedByAnotherProcess() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try makeGridTileRing(at: log)
        let follow = try CLI.start(["log", log, "--follow", "--from", "1", "--json"])
        #expect(try await follow.waitForOutput(containing: "\"seq\":3"))
        try makeLog(at: log) { store in try store.rename(testID(2), to: "Tile Two", options: WriteOptions(actor: "elsewhere")) }
        #expect(try await follow.waitForOutput(containing: "Tile Two"), "the follower saw the new record")
        let result = try await follow.interrupt()
        let records = try result.jsonLines()
        #expect(records.map { $0["seq"] as? Int } == [1, 2, 3, 4])
        #expect(records.last?["actor"] as? String == "elsewhere")
    }

    @Test func diffReportsEachKindOfChangePerLabel() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try Self.history(at: log)
        try makeLog(at: log) { store in try store.add("Lens", isEnabled: true, id: testID(4), at: 0, options: stamped(8)) }
        let diff = try await CLI.run(["diff", log, "3", "8", "--json"])
        let object = try diff.json()
        #expect(object["from"] as? Int == 3 && object["to"] as? Int == 8)
        let changes = try #require(object["changes"] as? [[String: Any]])
        func change(_ kind: String, _ n: Int) -> [String: Any]? {
            changes.first { $0["change"] as? String == kind && $0["id"] as? String == testID(n).description }
        }
        #expect(changes.count == 5, "\(changes)")
        let added = try #require(change("added", 4))
        #expect(added["title"] as? String == "Lens" && added["isEnabled"] as? Bool == true && added["to"] as? Int == 0)
        let removed = try #require(change("removed", 2))
        #expect(removed["title"] as? String == "Tile" && removed["isEnabled"] as? Bool == false && removed["from"] as? Int == 1)
        let renamed = try #require(change("renamed", 3))
        #expect(
            renamed["oldTitle"] as? String == "Ring" && renamed["newTitle"] as? String == "Ring Two"
                && renamed["title"] as? String == "Ring Two")
        let toggled = try #require(change("toggled", 1))
        #expect(toggled["oldIsEnabled"] as? Bool == true && toggled["isEnabled"] as? Bool == false && toggled["title"] as? String == "Grid")
        // Grid and Ring swapped: one of them explains the new order; Lens's insertion moves nobody.
        let moved = changes.filter { $0["change"] as? String == "moved" }
        #expect(moved.count == 1)
        #expect(
            moved.first.map { ($0["from"] as? Int, $0["to"] as? Int) } ?? (nil, nil) == (0, 2)
                || moved.first.map { ($0["from"] as? Int, $0["to"] as? Int) } ?? (nil, nil) == (2, 1))
        #expect(change("moved", 4) == nil)

        let text = try await CLI.run(["diff", log, "3", "8"])
        #expect(text.stdout.contains("seq 3 → 8: 3 → 3 labels, 5 changes"))
        #expect(text.stdout.contains("renamed") && text.stdout.contains("\"Ring\" → \"Ring Two\""))
        let same = try await CLI.run(["diff", log, "5", "5"])
        #expect(same.status == 0 && same.stdout.contains("(no changes)"))
        let beyond = try await CLI.run(["diff", log, "1", "99"])
        #expect(beyond.status == 1 && beyond.stderr.contains("there is no seq 99"))
    }

    @Test func statsCountsEverything() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try Self.history(at: log)
        async let json = CLI.run(["stats", log, "--json"])
        async let text = CLI.run(["stats", log])
        let stats = try await json.json()
        #expect(stats["records"] as? Int == 7)
        #expect(stats["fileSize"] as? Int == (try FileManager.default.attributesOfItem(atPath: log)[.size] as? Int))
        #expect((stats["bytesPerEvent"] as? Double ?? 0) > 10)
        let kinds = try #require(stats["kinds"] as? [String: Int])
        #expect(kinds == ["added": 3, "renamed": 1, "toggled": 1, "removed": 1, "moved": 0, "reordered": 1, "rejected": 0])
        let labels = try #require(stats["labels"] as? [String: Int])
        #expect(labels == ["live": 2, "enabled": 1, "removed": 1])
        #expect(stats["actors"] as? [String: Int] == ["setup": 3, "filter-ui": 3, "row-ui": 1])
        #expect(stats["withoutActor"] as? Int == 0 && stats["tailBytes"] as? Int == 0)
        #expect(stats["firstTime"] as? String == "2026-01-01T00:00:01.000Z")
        #expect(stats["lastTime"] as? String == "2026-01-01T00:00:07.000Z")
        #expect(stats["spanSeconds"] as? Double == 6)
        let lines = try await text.stdout
        #expect(lines.contains("2 live (1 enabled), 1 removed") && lines.contains("filter-ui 3"))
    }

    @Test func diffReportsARenameToACanonicallyEquivalentTitleAsARename() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        let composed = "\u{622}ب", decomposed = "\u{627}\u{653}ب"  // equal Strings, different bytes
        try makeLog(at: log) { store in
            try store.add(composed, id: testID(1), options: stamped(1))
            try store.rename(testID(1), to: decomposed, options: stamped(2))
        }
        let object = try await CLI.run(["diff", log, "1", "2", "--json"]).json()
        let changes = try #require(object["changes"] as? [[String: Any]])
        #expect(changes.count == 1 && changes.first?["change"] as? String == "renamed", "\(changes)")
        #expect((changes.first?["oldTitle"] as? String).map { Array($0.utf8) } == Array(composed.utf8))
        #expect((changes.first?["newTitle"] as? String).map { Array($0.utf8) } == Array(decomposed.utf8))
    }
}
