import EventLog
import Foundation
import LabelProjection
import LabelStoreTestSupport
import Testing

/// `revert` conflicts per property (docs/CLI.md, "Reverting an event"): each kind of
/// event is refused only when a later event changed the same property and left it
/// changed, and the refusal names that event's seq. Every log starts with Grid (on),
/// Tile (off), Ring (on) at seqs 1–3 (ids 1–3).
@Suite struct RevertConflictTests {
    /// `show --json` as "Title (on|off)" rows.
    static func show(_ log: String) async throws -> [String] { rows(try await CLI.run(["show", log, "--json"]).json()) }

    static func revert(_ log: String, _ seq: Int) async throws -> CLIResult { try await CLI.run(["revert", log, "\(seq)"]) }

    /// The kind and fields of the record at `seq`, from `log --json`.
    static func record(_ log: String, _ seq: Int) async throws -> [String: Any] {
        try await CLI.run(["log", log, "--json", "--from", "\(seq)", "--to", "\(seq)"]).json()
    }

    @Test func renameIsRevertedDespiteLaterTogglesAndMovesButNotOverALaterRenameOrRemoval() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try makeGridTileRing(at: log)
        try makeLog(at: log) { store in
            try store.rename(testID(3), to: "Ring Two", options: stamped(4))  // 4
            try store.toggle(testID(3), options: stamped(5))  // 5
            try store.move(testID(3), to: 0, options: stamped(6))  // 6
            try store.rename(testID(1), to: "Grid Two", options: stamped(7))  // 7
            try store.rename(testID(1), to: "Grid Three", options: stamped(8))  // 8
        }
        let ring = try await Self.revert(log, 4)
        #expect(ring.status == 0, "a later toggle and move of Ring do not block: \(ring)")
        #expect(try await Self.show(log) == ["Ring (off)", "Grid Three (on)", "Tile (off)"])

        let blocked = try await Self.revert(log, 7)
        #expect(blocked.status == 1, "\(blocked)")
        #expect(
            blocked.stderr.contains("cannot revert seq 7 (renamed): its title was changed again at seq 8 (renamed); revert seq 8 first"))
        #expect(try await Self.revert(log, 8).status == 0, "seq 10: Grid Three → Grid Two")
        let unstacked = try await Self.revert(log, 7)
        #expect(unstacked.status == 0, "the title is back to what seq 7 set, so the later renames no longer block: \(unstacked)")
        #expect(try await Self.show(log) == ["Ring (off)", "Grid (on)", "Tile (off)"])

        try makeLog(at: log) { store in
            try store.rename(testID(2), to: "Tile Two", options: stamped(12))  // 12
            try store.remove(testID(2), options: stamped(13))  // 13
        }
        let removed = try await Self.revert(log, 12)
        #expect(removed.status == 1 && removed.stderr.contains("was removed at seq 13; nothing is left to undo it on"), "\(removed)")
    }

    @Test func toggleIsRevertedDespiteLaterRenamesAndMovesButNotOverALaterToggleOrReAdd() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try makeGridTileRing(at: log)
        try makeLog(at: log) { store in
            try store.setEnabled(testID(1), false, options: stamped(4))  // 4
            try store.rename(testID(1), to: "Grid Two", options: stamped(5))  // 5
            try store.move(testID(1), to: 2, options: stamped(6))  // 6
            try store.toggle(testID(2), options: stamped(7))  // 7: Tile on
            try store.toggle(testID(2), options: stamped(8))  // 8: Tile off
        }
        #expect(try await Self.revert(log, 4).status == 0)
        #expect(try await Self.show(log) == ["Tile (off)", "Ring (on)", "Grid Two (on)"])
        let blocked = try await Self.revert(log, 7)
        #expect(blocked.status == 1 && blocked.stderr.contains("its state (on/off) was changed again at seq 8 (toggled)"), "\(blocked)")

        // Ring turned off, removed, and added back on: its state is not what seq 10 set.
        try makeLog(at: log) { store in
            try store.toggle(testID(3), options: stamped(10))  // 10: Ring off
            try store.remove(testID(3), options: stamped(11))  // 11
            try store.add("Ring", isEnabled: true, id: testID(3), options: stamped(12))  // 12
        }
        let readded = try await Self.revert(log, 10)
        #expect(readded.status == 1 && readded.stderr.contains("was removed and added again at seq 12"), "\(readded)")
        #expect(readded.stderr.contains("revert seq 12 first"))
    }

    @Test func moveGoesBackNextToItsOldNeighbourAndIsBlockedOnlyByLaterMovesOfTheSameLabel() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try makeGridTileRing(at: log)
        try makeLog(at: log) { store in
            try store.move(testID(3), to: 0, options: stamped(4))  // 4: Ring, Grid, Tile
            try store.add("Amber", id: testID(4), at: 0, options: stamped(5))  // 5: Amber, Ring, Grid, Tile
            try store.rename(testID(3), to: "Ring Two", options: stamped(6))  // 6
            try store.toggle(testID(3), options: stamped(7))  // 7
        }
        let back = try await Self.revert(log, 4)
        #expect(back.status == 0, "an add and Ring's own rename and toggle do not block: \(back)")
        #expect(
            try await Self.show(log) == ["Amber (on)", "Grid (on)", "Tile (off)", "Ring Two (off)"], "right after Tile, as before seq 4")
        let moved = try await Self.record(log, 8)
        #expect(moved["kind"] as? String == "moved" && moved["from"] as? Int == 1 && moved["to"] as? Int == 3, "\(moved)")

        try makeLog(at: log) { store in
            try store.move(testID(1), to: 0, options: stamped(9))  // 9: Grid, Amber, Tile, Ring
            try store.move(testID(1), to: 2, options: stamped(10))  // 10: Amber, Tile, Grid, Ring
        }
        let again = try await Self.revert(log, 9)
        #expect(again.status == 1 && again.stderr.contains("it was moved again at seq 10 (moved); revert seq 10 first"), "\(again)")
        try makeLog(at: log) { store in try store.reverse(options: stamped(11)) }  // 11
        let reordered = try await Self.revert(log, 10)
        #expect(
            reordered.status == 1 && reordered.stderr.contains("the list was reordered at seq 11, which moved every label"), "\(reordered)")
    }

    @Test func moveWhoseLabelIsAlreadyBackNextToItsOldNeighbourChangesNothing() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try makeGridTileRing(at: log)
        try makeLog(at: log) { store in
            try store.move(testID(2), to: 2, options: stamped(4))  // 4: Grid, Ring, Tile (Tile was right after Grid)
            try store.move(testID(3), to: 0, options: stamped(5))  // 5: Ring, Grid, Tile (Tile is right after Grid again)
        }
        let result = try await Self.revert(log, 4)
        #expect(result.status == 0 && result.stdout.hasPrefix("nothing changed: "), "\(result)")
        #expect(result.stdout.contains("is already right after 00000000 \"Grid\", where it was before seq 4"), "\(result)")
        #expect(try LogReader.readAll(path: log).records.count == 5)
    }

    @Test func addIsRevertedWhileTheLabelIsInTheListWhateverHappenedToItSince() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try makeGridTileRing(at: log)
        try makeLog(at: log) { store in
            try store.rename(testID(3), to: "Ring Two", options: stamped(4))  // 4
            try store.toggle(testID(3), options: stamped(5))  // 5
            try store.move(testID(3), to: 0, options: stamped(6))  // 6
        }
        #expect(try await Self.revert(log, 3).status == 0, "seq 7 removes Ring as it is now")
        let removal = try await Self.record(log, 7)
        #expect(removal["kind"] as? String == "removed" && removal["title"] as? String == "Ring Two" && removal["index"] as? Int == 0)
        #expect(removal["isEnabled"] as? Bool == false)
        let twice = try await Self.revert(log, 3)
        #expect(twice.status == 1 && twice.stderr.contains("was already removed at seq 7; it is not in the list"), "\(twice)")
        #expect(try await Self.revert(log, 7).status == 0, "seq 8 adds Ring back")
        #expect(try await Self.revert(log, 3).status == 0, "Ring is in the list again, so its addition can be undone again")
    }

    @Test func removeComesBackNextToItsOldNeighbourAndIsBlockedWhileTheLabelIsBack() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try makeGridTileRing(at: log)
        try makeLog(at: log) { store in
            try store.remove(testID(2), options: stamped(4))  // 4: Grid, Ring
            try store.add("Amber", id: testID(4), at: 0, options: stamped(5))  // 5: Amber, Grid, Ring
        }
        #expect(try await Self.revert(log, 4).status == 0)
        #expect(
            try await Self.show(log) == ["Amber (on)", "Grid (on)", "Tile (off)", "Ring (on)"], "right after Grid, not at its old index 1")
        let twice = try await Self.revert(log, 4)
        #expect(twice.status == 1 && twice.stderr.contains("was added again at seq 6; it is in the list"), "\(twice)")
        #expect(try await Self.revert(log, 6).status == 0, "seq 7 removes Tile again")
        #expect(try await Self.revert(log, 4).status == 0, "Tile is out of the list again, so its removal can be undone again")
    }

    @Test func reorderIsRevertedDespiteLaterRenamesButNotOverALaterMembershipChange() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try makeGridTileRing(at: log)
        try makeLog(at: log) { store in
            try store.reverse(options: stamped(4))  // 4: Ring, Tile, Grid
            try store.rename(testID(1), to: "Grid Two", options: stamped(5))  // 5
            try store.toggle(testID(2), options: stamped(6))  // 6
        }
        #expect(try await Self.revert(log, 4).status == 0)
        #expect(try await Self.show(log) == ["Grid Two (on)", "Tile (on)", "Ring (on)"])
        try makeLog(at: log) { store in
            try store.reverse(options: stamped(8))  // 8
            try store.add("Amber", id: testID(4), options: stamped(9))  // 9
        }
        let blocked = try await Self.revert(log, 8)
        #expect(blocked.status == 1, "\(blocked)")
        #expect(blocked.stderr.contains("the list's order or membership changed again at seq 9 (added); revert seq 9 first"), "\(blocked)")
    }
}
