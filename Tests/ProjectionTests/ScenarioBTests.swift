import EventLog
import Testing

@testable import LabelProjection

/// Scenario B (docs/SCENARIOS.md): editing through a filtered view. Writes go to
/// ids, never to view positions; a write to a removed label is refused.
@Suite struct ScenarioBTests {
    @Test func scenarioB_editingThroughAFilteredViewStepByStep() throws {
        let store = try makeStore()
        let grid = try store.add("Grid", isEnabled: true)
        let tile = try store.add("Tile", isEnabled: false)
        let ring = try store.add("Ring", isEnabled: true)
        let (s1, gridTitle) = record(store, .title(grid))
        let (s2, ringTitle) = record(store, .title(ring))
        let enabledOnly = ViewQuery(enabledOnly: true)
        let (s3, enabledView) = record(store, .view(enabledOnly))
        defer { [s1, s2, s3].forEach { $0.cancel() } }

        // Step 1: query "Ring" shows only Ring: visible position 0, original position 2.
        let ringView = store.view(ViewQuery("Ring"))
        #expect(ringView.map(\.id) == [ring])
        #expect(store.snapshot.position(of: ringView[0].id) == 2)

        // Step 2: rename that row; the write goes to Ring's id, not to original position 0.
        try store.rename(ringView[0].id, to: "Ring Two")
        #expect(store.labels.map(\.title) == ["Grid", "Tile", "Ring Two"])

        // Step 3: clear the query, reverse the original order.
        #expect(store.view(ViewQuery("")).count == 3)
        try store.reverse()
        #expect(store.labels.map(\.title) == ["Ring Two", "Tile", "Grid"])

        // Step 4: rename Grid: only that label's title changes.
        ringTitle.removeAll()
        try store.rename(grid, to: "Grid Two")
        #expect(gridTitle.all.map { $0.title?.new } == ["Grid Two"])
        #expect(ringTitle.all.isEmpty)
        #expect(store.labels.map(\.title) == ["Ring Two", "Tile", "Grid Two"])

        // Step 5: enabled-only on, then disable Grid Two: the row leaves the view, stays in the list.
        #expect(store.view(enabledOnly).map(\.title) == ["Ring Two", "Grid Two"])
        enabledView.removeAll()
        try store.setEnabled(grid, false)
        #expect(store.view(enabledOnly).map(\.title) == ["Ring Two"])
        #expect(enabledView.all.map(\.viewChanges) == [[.removed(id: grid, at: 1)]])
        #expect(store.label(grid) == Label(id: grid, title: "Grid Two", isEnabled: false, version: store.labelVersion(grid)!))

        // Step 6: enabled-only off: Grid Two is visible again, disabled.
        #expect(store.view(.all).map(\.title) == ["Ring Two", "Tile", "Grid Two"])
        #expect(store.view(.all).last?.isEnabled == false)

        // Step 7: query "Tile", remove that row: gone from the view and the list.
        let tileRow = try #require(store.view(ViewQuery("tile")).first)
        #expect(tileRow.id == tile)
        let removal = try store.remove(tileRow.id)
        #expect(store.view(ViewQuery("Tile")).isEmpty)
        #expect(store.labels.map(\.title) == ["Ring Two", "Grid Two"])

        // Step 8: an edit still aimed at the removed Tile is refused; nothing is re-inserted.
        let seqBefore = store.lastSeq
        let error = #expect(throws: StoreError.self) { try store.rename(tile, to: "Tile Two") }
        #expect(error?.message.hasPrefix("Edit skipped: label was removed.") == true)
        #expect(error?.code == .labelRemoved(removedAtSeq: removal[0].seq))
        #expect(error?.message.contains("seq \(removal[0].seq)") == true)
        #expect(store.lastSeq == seqBefore)
        #expect(store.labels.map(\.title) == ["Ring Two", "Grid Two"])
        #expect(store.removal(of: tile) == removal[0].seq)
    }

    @Test func writeToAnIDThatNeverExistedIsADifferentErrorFromARemovedOne() throws {
        let store = try makeStore()
        let error = #expect(throws: StoreError.self) { try store.toggle(LabelID()) }
        #expect(error?.code == .labelNeverAdded)
        #expect(error?.message.hasPrefix("Edit skipped") == false)
    }

    @Test func addingADuplicateIDIsRejectedButARemovedIDMayComeBack() throws {
        let store = try makeStore()
        let id = try store.add("Grid")
        let duplicate = #expect(throws: StoreError.self) { try store.add("Other", id: id) }
        #expect(duplicate?.code == .labelAlreadyExists)
        #expect(store.count == 1)
        try store.remove(id)
        try store.add("Grid", id: id, at: 0)
        #expect(store.labels.map(\.id) == [id])
        #expect(store.removal(of: id) == nil)
    }
}
