import EventLog
import Foundation
import LabelProjection
import LabelStoreTestSupport
import Testing

/// `trace` (who hears what, from the store's own dispatch) and `revert`.
@Suite struct TraceAndRevertTests {
    /// Grid, Tile, Ring (1–3); Ring → Ring Two (4); Grid off (5); a rejected edit of Tile after its removal (6, 7).
    static func history(at path: String) throws {
        try makeGridTileRing(at: path)
        try makeLog(at: path, recordRejections: true) { store in
            try store.rename(testID(3), to: "Ring Two", options: stamped(4, actor: "filter-ui"))
            try store.setEnabled(testID(1), false, options: stamped(5, actor: "filter-ui"))
            try store.remove(testID(2), options: stamped(6, actor: "filter-ui"))
            _ = try? store.rename(testID(2), to: "Tile Two", options: stamped(7, actor: "filter-ui"))
        }
    }

    static func notified(_ event: [String: Any]) -> [String] {
        (event["notified"] as? [[String: Any]] ?? []).compactMap { $0["dependency"] as? String }
    }

    static func entry(_ event: [String: Any], _ dependency: String) -> [String: Any]? {
        (event["notified"] as? [[String: Any]])?.first { $0["dependency"] as? String == dependency }
    }

    @Test func traceShowsWhoIsToldAboutARenameThroughAView() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try Self.history(at: log)
        let events = try await CLI.run(["trace", log, "--query", "ring", "--json"]).jsonLines()
        #expect(events.map { $0["seq"] as? Int } == Array(1...7))

        // seq 3 adds Ring: the list, its title and isEnabled, the view (row 0 inserted) and the enabled count hear it.
        #expect(Self.notified(events[2]) == ["membership", "title", "isEnabled", "view", "enabledCount"])
        let inserted = try #require(Self.entry(events[2], "view"))
        #expect((inserted["changes"] as? [[String: Any]])?.first?["change"] as? String == "inserted")
        #expect(inserted["rows"] as? [String] == [testID(3).description])

        // seq 4 renames Ring: only its title and the view row hear it; not the list, not the count.
        let rename = events[3]
        #expect(Self.notified(rename) == ["title", "view"])
        #expect(rename["notNotified"] as? [String] == ["membership", "enabledCount"])
        let title = try #require(Self.entry(rename, "title"))
        #expect(
            title["id"] as? String == testID(3).description && title["oldTitle"] as? String == "Ring"
                && title["newTitle"] as? String == "Ring Two")
        let view = try #require(Self.entry(rename, "view"))
        #expect((view["query"] as? [String: Any])?["text"] as? String == "ring")
        #expect((view["changes"] as? [[String: Any]])?.first?["change"] as? String == "updated")
        #expect((rename["record"] as? [String: Any])?["kind"] as? String == "renamed")
        #expect(rename["count"] as? Int == 3 && rename["enabledCount"] as? Int == 2)

        // seq 7, the rejected audit record, changes nothing: nobody is told.
        #expect(Self.notified(events[6]).isEmpty)
        #expect(events[6]["notNotified"] as? [String] == ["membership", "view", "enabledCount"])
    }

    @Test func traceShowsARowLeavingAnEnabledOnlyView() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try Self.history(at: log)
        let events = try await CLI.run(["trace", log, "--enabled-only", "--from", "5", "--to", "5", "--json"]).jsonLines()
        try #require(events.count == 1)
        let disable = events[0]
        #expect(Self.notified(disable) == ["isEnabled", "view", "enabledCount"])
        let view = try #require(Self.entry(disable, "view"))
        let change = try #require((view["changes"] as? [[String: Any]])?.first)
        #expect(change["change"] as? String == "removed" && change["at"] as? Int == 0 && change["id"] as? String == testID(1).description)
        #expect(view["rows"] as? [String] == [testID(3).description])
        let count = try #require(Self.entry(disable, "enabledCount"))
        #expect(count["oldCount"] as? Int == 2 && count["newCount"] as? Int == 1)
        let flag = try #require(Self.entry(disable, "isEnabled"))
        #expect(flag["oldIsEnabled"] as? Bool == true && flag["newIsEnabled"] as? Bool == false)
    }

    @Test func traceTextAndLabelFilter() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try Self.history(at: log)
        async let text = CLI.run(["trace", log, "--query", "tile"])
        async let tile = CLI.run(["trace", log, "--label", "00000000-0000-4000-8000-000000000002", "--json"])
        let output = try await text.stdout
        #expect(output.contains("seq 6") && output.contains("row 0 removed"))
        #expect(output.contains("not notified"))
        #expect(output.contains("(the record changes nothing, so no subscriber is told)"))
        let events = try await tile.jsonLines()
        #expect(events.map { $0["seq"] as? Int } == [2, 6, 7])
        // Only Tile's own title and isEnabled subscribers are traced.
        #expect(
            events.allSatisfy { event in
                (event["notified"] as? [[String: Any]] ?? []).allSatisfy {
                    ($0["id"] as? String).map { $0 == testID(2).description } ?? true
                }
            })
    }

    @Test func revertUndoesEachKindOfEvent() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try makeGridTileRing(at: log)
        try makeLog(at: log) { store in
            try store.rename(testID(3), to: "Ring Two", options: stamped(4))  // 4
            try store.toggle(testID(2), options: stamped(5))  // 5
            try store.move(testID(3), to: 0, options: stamped(6))  // 6
            try store.remove(testID(1), options: stamped(7))  // 7
        }
        func show() async throws -> [String] { rows(try await CLI.run(["show", log, "--json"]).json()) }
        #expect(try await show() == ["Ring Two (on)", "Tile (on)"])

        let undoRemove = try await CLI.run(["revert", log, "7", "--actor", "support"])
        #expect(undoRemove.status == 0, "\(undoRemove)")
        #expect(try await show() == ["Ring Two (on)", "Grid (on)", "Tile (on)"], "Grid comes back right after Ring Two, as before seq 7")
        let undoMove = try await CLI.run(["revert", log, "6"])
        #expect(undoMove.status == 0, "Grid's re-add at seq 8 does not touch Ring's place: \(undoMove)")
        #expect(try await show() == ["Grid (on)", "Tile (on)", "Ring Two (on)"], "Ring goes back right after Tile, as before seq 6")
        #expect(try await CLI.run(["revert", log, "8"]).status == 0, "undo the undo: Grid removed again (seq 10)")
        let moveAgain = try await CLI.run(["revert", log, "6"])
        #expect(moveAgain.status == 1 && moveAgain.stderr.contains("it was moved again at seq 9"), "\(moveAgain)")
        #expect(try await CLI.run(["revert", log, "5"]).status == 0)
        #expect(try await CLI.run(["revert", log, "4", "--json"]).jsonLines().first?["note"] as? String == "revert of seq 4")
        #expect(try await show() == ["Tile (off)", "Ring (on)"])
        let records = try await CLI.run(["log", log, "--json", "--from", "8"]).jsonLines()
        #expect(records.map { $0["kind"] as? String } == ["added", "moved", "removed", "toggled", "renamed"])
        #expect(records[0]["actor"] as? String == "support")

        let again = try await CLI.run(["revert", log, "4"])
        #expect(again.status == 1 && again.stderr.contains("its title was changed again at seq 12"), "\(again)")
        let removed = try await CLI.run(["revert", log, "1"])
        #expect(removed.status == 1 && removed.stderr.contains("was already removed at seq 10"), "\(removed)")
        let beyond = try await CLI.run(["revert", log, "99"])
        #expect(beyond.status == 1 && beyond.stderr.contains("there is no seq 99"))
    }

    @Test func revertOfAReorderRestoresThePreviousOrderAndAuditRecordsHaveNothingToUndo() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try Self.history(at: log)
        try makeLog(at: log) { store in try store.reverse(options: stamped(8)) }
        #expect(try await CLI.run(["revert", log, "8"]).status == 0)
        #expect(rows(try await CLI.run(["show", log, "--json"]).json()) == ["Grid (off)", "Ring Two (on)"])
        let audit = try await CLI.run(["revert", log, "7"])
        #expect(audit.status == 1 && audit.stderr.contains("audit record"), "\(audit)")
    }
}
