import EventLog
import Foundation
import LabelProjection
import LabelStoreTestSupport
import Testing

/// The write commands: each appends through the store, addressed by id.
@Suite struct WriteCommandTests {
    @Test func addCreatesTheLogAndPrintsTheNewID() async throws {
        let scratch = try Scratch()
        let log = scratch.path("new.labellog")
        let first = try await CLI.run(["add", log, "Amber", "--actor", "row-ui", "--note", "first"])
        #expect(first.status == 0, "\(first)")
        let id = first.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(LabelID(id) != nil, "add prints the id: \(first.stdout)")
        let second = try await CLI.run(["add", log, "Cobalt", "--disabled", "--position", "0"])
        let given = testID(42)
        let third = try await CLI.run(["add", log, "Given", "--id", given.description, "--json"])
        #expect(second.status == 0 && third.status == 0)
        let record = try third.json()
        #expect(record["kind"] as? String == "added" && record["id"] as? String == given.description && record["seq"] as? Int == 3)

        let show = try await CLI.run(["show", log, "--json"])
        let list = try show.json()
        #expect(rows(list) == ["Cobalt (off)", "Amber (on)", "Given (on)"])
        #expect((list["labels"] as? [[String: Any]])?[1]["id"] as? String == id)
        let log1 = try await CLI.run(["log", log, "--json", "--to", "1"])
        let stored = try log1.json()
        #expect(stored["actor"] as? String == "row-ui" && stored["note"] as? String == "first")
    }

    @Test func onlyAddCreatesALog() async throws {
        let scratch = try Scratch()
        let log = scratch.path("missing.labellog")
        for arguments in [["rename", log, "abcd", "X"], ["toggle", log, "abcd"], ["reverse", log], ["revert", log, "1"]] {
            let result = try await CLI.run(arguments)
            #expect(result.status == 1, "\(result)")
            #expect(result.stderr.contains("\(log): no such log"), "\(result)")
        }
        #expect(scratch.files.isEmpty)
        // A refused first add leaves no empty log behind.
        let refused = try await CLI.run(["add", log, String(repeating: "x", count: 20_000)])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("longer than the limit"))
        #expect(scratch.files.isEmpty, "\(scratch.files)")
        let nowhere = try await CLI.run(["add", scratch.path("no-such-dir/l.labellog"), "X"])
        #expect(nowhere.status == 1 && nowhere.stderr.contains("cannot create the log: the directory"), "\(nowhere)")
    }

    @Test func everyEditChangesTheListByID() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try makeGridTileRing(at: log)
        let steps: [([String], [String])] = [
            (["rename", log, "00000000-0000-4000-8000-000000000003", "Ring Two"], ["Grid (on)", "Tile (off)", "Ring Two (on)"]),
            (["toggle", log, "0000000000004000800000000000000000002"], []),  // malformed: 37 digits
            (["toggle", log, "00000000000040008000000000000002"], ["Grid (on)", "Tile (on)", "Ring Two (on)"]),
            (["disable", log, "00000000-0000-4000-8000-000000000001"], ["Grid (off)", "Tile (on)", "Ring Two (on)"]),
            (["enable", log, "00000000-0000-4000-8000-000000000001"], ["Grid (on)", "Tile (on)", "Ring Two (on)"]),
            (["move", log, "00000000-0000-4000-8000-000000000003", "0"], ["Ring Two (on)", "Grid (on)", "Tile (on)"]),
            (["reverse", log], ["Tile (on)", "Grid (on)", "Ring Two (on)"]),
            (["remove", log, "00000000-0000-4000-8000-000000000002"], ["Grid (on)", "Ring Two (on)"])
        ]
        for (arguments, expected) in steps {
            let result = try await CLI.run(arguments)
            if expected.isEmpty {
                #expect(result.status == 64, "\(result)")
                continue
            }
            #expect(result.status == 0, "\(result)")
            #expect(
                result.stdout.contains(
                    arguments[0] == "reverse"
                        ? "reordered" : arguments[0] == "toggle" || arguments[0].hasSuffix("able") ? "toggled" : arguments[0] + "d"),
                "prints the appended record: \(result.stdout)")
            let show = try await CLI.run(["show", log, "--json"])
            #expect(rows(try show.json()) == expected, "after \(arguments[0])")
        }
    }

    @Test func settingTheCurrentValueChangesNothingAndSucceeds() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try makeGridTileRing(at: log)
        async let enable = CLI.run(["enable", log, "0000"])  // ambiguous: all three start with 0000
        #expect(try await enable.status == 1)
        let id = testID(1).description
        for arguments in [["enable", log, id], ["rename", log, id, "Grid"], ["move", log, id, "0"]] {
            let result = try await CLI.run(arguments)
            #expect(result.status == 0, "\(result)")
            #expect(result.stdout.hasPrefix("nothing changed: "), "\(result)")
        }
        // --json prints the state when nothing changed (issue 16, item 11): no record, why, and the label now.
        let disable = try await CLI.run(["disable", log, testID(2).description, "--json"])
        #expect(disable.status == 0, "\(disable)")
        let unchanged = try disable.json()
        #expect(unchanged["changed"] as? Bool == false && unchanged["seq"] as? Int == 3, "\(disable)")
        #expect((unchanged["reason"] as? String)?.contains("is already disabled") == true, "\(disable)")
        let state = try #require(unchanged["label"] as? [String: Any])
        #expect(state["id"] as? String == testID(2).description && state["isEnabled"] as? Bool == false)
        #expect(state["title"] as? String == "Tile" && state["position"] as? Int == 1 && state["version"] as? Int == 2)
        let count = try await CLI.run(["log", log, "--json"])
        #expect(try count.jsonLines().count == 3, "nothing was appended")
    }

    @Test func expectVersionRefusesStaleWrites() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try makeGridTileRing(at: log)
        let grid = testID(1).description
        // Grid's version is 1 (its add); the list's version is 3 (the last add).
        let stale = try await CLI.run(["rename", log, grid, "Stale", "--expect-version", "7"])
        #expect(stale.status == 1)
        #expect(stale.stderr.contains("Stale write"), "\(stale)")
        let fresh = try await CLI.run(["rename", log, grid, "Fresh", "--expect-version", "1"])
        #expect(fresh.status == 0, "\(fresh)")
        let staleList = try await CLI.run(["move", log, grid, "2", "--expect-version", "1"])
        #expect(staleList.status == 1 && staleList.stderr.contains("membership or order"), "\(staleList)")
        let freshList = try await CLI.run(["reverse", log, "--expect-version", "3"])
        #expect(freshList.status == 0, "\(freshList)")
        let again = try await CLI.run(["rename", log, grid, "Again", "--expect-version", "1"])
        #expect(again.status == 1, "the rename at seq 4 made version 1 stale")
    }

    @Test func editsToRemovedAndUnknownLabelsAreRefused() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try makeGridTileRing(at: log)
        let tile = testID(2).description
        #expect(try await CLI.run(["remove", log, tile]).status == 0)
        let refused = try await CLI.run(["rename", log, tile, "Tile Two"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("Edit skipped: label was removed. (removed at seq 4"), "\(refused)")
        let audited = try await CLI.run([
            "toggle", log, tile.replacingOccurrences(of: "-", with: "").uppercased(), "--record-rejection", "--actor", "filter-ui"
        ])
        #expect(audited.status == 1)
        #expect(audited.stderr.contains("recorded as rejected audit record seq 5"), "\(audited)")
        let unknown = try await CLI.run(["toggle", log, testID(99).description])
        #expect(unknown.status == 1 && unknown.stderr.contains("never added"), "\(unknown)")
        let noMatch = try await CLI.run(["toggle", log, "ffff"])
        #expect(noMatch.status == 1 && noMatch.stderr.contains("no label id starts with 'ffff'"), "\(noMatch)")

        let records = try await CLI.run(["log", log, "--json"]).jsonLines()
        #expect(records.map { $0["kind"] as? String } == ["added", "added", "added", "removed", "rejected"])
        #expect(records.last?["actor"] as? String == "filter-ui")
        // A removed label can be brought back with its id.
        let back = try await CLI.run(["add", log, "Tile", "--disabled", "--id", tile.uppercased()])
        #expect(back.status == 0, "\(back)")
        #expect(back.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == tile)
    }

    @Test func ambiguousPrefixesListTheCandidates() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try makeLog(at: log) { store in
            try store.add("First", id: LabelID("abcd1111-0000-4000-8000-000000000001")!)
            try store.add("Second", id: LabelID("ABCD2222-0000-4000-8000-000000000002")!)
        }
        let ambiguous = try await CLI.run(["rename", log, "ABCD", "X"])
        #expect(ambiguous.status == 1)
        #expect(ambiguous.stderr.contains("ambiguous"))
        #expect(ambiguous.stderr.contains("abcd1111-0000-4000-8000-000000000001  \"First\""), "\(ambiguous)")
        #expect(ambiguous.stderr.contains("abcd2222-0000-4000-8000-000000000002  \"Second\""), "\(ambiguous)")
        let unique = try await CLI.run(["rename", log, "abcd-2", "Deux"])
        #expect(unique.status == 0, "\(unique)")
        let show = try await CLI.run(["show", log, "--json"])
        #expect(rows(try show.json()) == ["First (on)", "Deux (on)"])
    }

    @Test func aSecondWriterIsRefusedWhileReadersStillWork() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try makeGridTileRing(at: log)
        let writer = try LogWriter.open(path: log)
        defer { writer.close() }
        let id = testID(1).description
        for arguments in [["rename", log, id, "X"], ["add", log, "Y"], ["reverse", log], ["revert", log, "3"], ["repair", log]] {
            let result = try await CLI.run(arguments)
            if arguments[0] == "repair" {
                #expect(result.status == 0 && result.stdout.contains("nothing to repair"), "a sound log needs no lock: \(result)")
                continue
            }
            #expect(result.status == 1, "\(result)")
            #expect(result.stderr.contains("in use"), "\(result)")
            #expect(result.stderr.contains(log), "names the path: \(result)")
        }
        let show = try await CLI.run(["show", log, "--json"])
        #expect(show.status == 0)
        #expect(rows(try show.json()) == ["Grid (on)", "Tile (off)", "Ring (on)"])
    }
}
