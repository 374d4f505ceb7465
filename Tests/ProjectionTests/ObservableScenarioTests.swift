import EventLog
import Observation
import Testing

@testable import LabelProjection

/// Scenarios A–C (docs/SCENARIOS.md) step by step on the observable models,
/// as a SwiftUI app would run them: each step asserts the values the screens
/// show and exactly which observed properties it invalidated.
@MainActor
@Suite struct ObservableScenarioTests {
    @Test func scenarioA_rowObservationOnTheListModel() async throws {
        // Step 1: open: Amber (on), Cobalt (off); count 2.
        let store = try makeStore()
        let amber = try await store.add("Amber", isEnabled: true)
        let cobalt = try await store.add("Cobalt", isEnabled: false)
        let model = ObservableLabels(store: store)
        let names = [amber: "Amber", cobalt: "Cobalt"]
        #expect(model.rows.map(\.title) == ["Amber", "Cobalt"] && model.rows.map(\.isEnabled) == [true, false])
        #expect(model.count == 2 && model.enabledCount == 1)

        // Step 2: rename the first label Amber → Copper and toggle it: that row's
        // title, isEnabled and version, and the enabled count; no membership change.
        var watch = Invalidations(model, names: names)
        try await model.rows[0].rename(to: "Copper")
        try await model.rows[0].toggle()
        #expect(model.rows[0].title == "Copper" && model.rows[0].isEnabled == false && model.count == 2)
        #expect(watch.all == ["Amber.title", "Amber.isEnabled", "Amber.version", "enabledCount"])

        // Step 3: rename Copper → Amber: only that row's title (and its version).
        watch = Invalidations(model, names: names)
        try await model.rows[0].rename(to: "Amber")
        #expect(model.rows.map(\.title) == ["Amber", "Cobalt"])
        #expect(watch.all == ["Amber.title", "Amber.version"])

        // Step 4: add `New label` (on) at the end: rows and count, and the enabled
        // count (it is enabled); no existing row.
        watch = Invalidations(model, names: names)
        let added = try await store.add("New label")
        model.update()
        #expect(model.rows.map(\.title) == ["Amber", "Cobalt", "New label"] && model.count == 3)
        #expect(model.row(added)?.isEnabled == true && model.enabledCount == 1)
        #expect(watch.all == ["rows", "count", "enabledCount"])

        // Step 5: remove the last label until the list is empty: each removal
        // invalidates rows and count (and the enabled count for the enabled one).
        let allNames = names.merging([added: "New label"]) { a, _ in a }
        for expectedTitles in [["Amber", "Cobalt"], ["Amber"], []] {
            watch = Invalidations(model, names: allNames)
            let last = try #require(model.rows.last)
            let wasEnabled = last.isEnabled
            try await last.remove()
            #expect(model.rows.map(\.title) == expectedTitles && model.count == expectedTitles.count)
            #expect(watch.all == (wasEnabled ? ["rows", "count", "enabledCount"] : ["rows", "count"]))
        }
        #expect(model.rows.isEmpty && model.enabledCount == 0)
        let first = #expect(throws: StoreError.self) { try store.firstID() }
        #expect(first?.kind == .nothingToActOn)
        let last = #expect(throws: StoreError.self) { try store.lastID() }
        #expect(last?.kind == .nothingToActOn)
        try await store.add("Again")
        model.update()
        #expect(model.rows.map(\.title) == ["Again"] && model.count == 1)
    }

    @Test func scenarioB_editingThroughTheFilterScreensRows() async throws {
        let store = try makeStore(recordRejections: true)
        let grid = try await store.add("Grid", isEnabled: true)
        let tile = try await store.add("Tile", isEnabled: false)
        let ring = try await store.add("Ring", isEnabled: true)
        let names = [grid: "Grid", tile: "Tile", ring: "Ring"]
        let model = ObservableLabels(store: store)
        let filter = ObservableView(model)
        let screens = ["filter": filter]
        #expect(filter.rows.map(\.title) == ["Grid", "Tile", "Ring"] && filter.visibleCount == 3)

        // Step 1: query `Ring`: only Ring (visible position 0, list position 2).
        var watch = Invalidations(model, views: screens, names: names)
        filter.query = "Ring"
        #expect(filter.rows.map(\.id) == [ring] && filter.visibleCount == 1)
        #expect(filter.rows[0] === model.row(ring), "the filter's row is the list model's object")
        #expect(store.snapshot.position(of: ring) == 2)
        #expect(watch.all == ["filter.query", "filter.rows", "filter.visibleCount"])

        // Step 2: rename that row to `Ring Two`: the write goes to Ring's id, not to
        // list position 0. Ring's title changes; it still matches, so no rows change.
        watch = Invalidations(model, views: screens, names: names)
        try await filter.rows[0].rename(to: "Ring Two")
        #expect(model.rows.map(\.title) == ["Grid", "Tile", "Ring Two"])
        #expect(filter.rows.map(\.title) == ["Ring Two"])
        #expect(watch.all == ["Ring.title", "Ring.version"])

        // Step 3: clear the query (every row again), then reverse the list
        // (the list's rows and the filter's rows).
        watch = Invalidations(model, views: screens, names: names)
        filter.query = ""
        #expect(filter.rows.map(\.title) == ["Grid", "Tile", "Ring Two"])
        #expect(watch.all == ["filter.query", "filter.rows", "filter.visibleCount"])
        watch = Invalidations(model, views: screens, names: names)
        try await store.reverse()
        model.update()
        #expect(model.rows.map(\.title) == ["Ring Two", "Tile", "Grid"])
        #expect(filter.rows.map(\.title) == ["Ring Two", "Tile", "Grid"])
        #expect(watch.all == ["rows", "filter.rows"])

        // Step 4: rename Grid to `Grid Two`: only that row's title (and version).
        watch = Invalidations(model, views: screens, names: names)
        try await #require(model.row(grid)).rename(to: "Grid Two")
        #expect(model.rows.map(\.title) == ["Ring Two", "Tile", "Grid Two"])
        #expect(watch.all == ["Grid.title", "Grid.version"])

        // Step 5: enabled only, then disable Grid Two: its row leaves the filter
        // and stays in the list, disabled.
        watch = Invalidations(model, views: screens, names: names)
        filter.enabledOnly = true
        #expect(filter.rows.map(\.title) == ["Ring Two", "Grid Two"])
        #expect(watch.all == ["filter.enabledOnly", "filter.rows", "filter.visibleCount"])
        watch = Invalidations(model, views: screens, names: names)
        try await filter.rows[1].setEnabled(false)
        #expect(filter.rows.map(\.title) == ["Ring Two"] && filter.visibleCount == 1)
        #expect(model.rows.map(\.title) == ["Ring Two", "Tile", "Grid Two"])
        #expect(model.row(grid)?.isEnabled == false)
        #expect(watch.all == ["Grid.isEnabled", "Grid.version", "enabledCount", "filter.rows", "filter.visibleCount"])

        // Step 6: enabled only off: Grid Two is visible again, disabled.
        watch = Invalidations(model, views: screens, names: names)
        filter.enabledOnly = false
        #expect(filter.rows.map(\.title) == ["Ring Two", "Tile", "Grid Two"])
        #expect(filter.rows.last?.isEnabled == false)
        #expect(watch.all == ["filter.enabledOnly", "filter.rows", "filter.visibleCount"])

        // Step 7: query `Tile`, remove that row: gone from the filter and the list.
        filter.query = "Tile"
        let tileRow = try #require(filter.rows.first)
        #expect(tileRow.id == tile)
        watch = Invalidations(model, views: screens, names: names)
        let removal = try await tileRow.remove()
        #expect(filter.rows.isEmpty && filter.visibleCount == 0)
        #expect(model.rows.map(\.title) == ["Ring Two", "Grid Two"] && model.count == 2)
        #expect(watch.all == ["rows", "count", "filter.rows", "filter.visibleCount"])

        // Step 8: an edit still aimed at the removed Tile, through its row: refused
        // with the store's error naming the removal; the audit record is logged and
        // applied; nothing is re-inserted and no observed property changes.
        watch = Invalidations(model, views: screens, names: names)
        let seqBefore = store.lastSeq
        let error = await #expect(throws: StoreError.self) { try await tileRow.rename(to: "Tile Two") }
        #expect(error?.kind == .labelRemoved)
        #expect(error?.message.hasPrefix("Edit skipped: label was removed.") == true)
        #expect(error?.code == .labelRemoved(removedAtSeq: removal[0].seq))
        #expect(error?.auditSeq == seqBefore + 1)
        #expect(store.lastSeq == seqBefore + 1 && model.appliedSeq == store.lastSeq)
        #expect(model.rows.map(\.title) == ["Ring Two", "Grid Two"] && filter.rows.isEmpty)
        #expect(tileRow.title == "Tile", "the stale row still shows the label as it was")
        #expect(watch.all.isEmpty)
    }

    @Test func scenarioC_oneOfFiftyInvalidatesOnlyWhatItChanges() async throws {
        let store = try makeStore()
        let ids = try (0..<50).map { try store.add("Label \($0)") }
        let names = Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($1, "\($0)") })
        let model = ObservableLabels(store: store)
        let all = ObservableView(model, query: "label")
        let enabled = ObservableView(model, enabledOnly: true)
        let screens = ["all": all, "enabled": enabled]
        #expect(all.visibleCount == 50 && enabled.visibleCount == 50)

        // Toggling one of fifty off: that row's isEnabled (and version) and the
        // enabled count; the row leaves only the enabled-only screen.
        var watch = Invalidations(model, views: screens, names: names)
        try await model.rows[17].toggle()
        #expect(model.rows[17].isEnabled == false && model.enabledCount == 49 && enabled.visibleCount == 49)
        #expect(watch.all == ["17.isEnabled", "17.version", "enabledCount", "enabled.rows", "enabled.visibleCount"])

        // Toggling it back on: it re-enters the enabled-only screen at its place.
        watch = Invalidations(model, views: screens, names: names)
        try await model.rows[17].toggle()
        #expect(enabled.rows.map(\.id) == ids)
        #expect(watch.all == ["17.isEnabled", "17.version", "enabledCount", "enabled.rows", "enabled.visibleCount"])

        // Toggling a row of a screen that shows every label: no rows array at all.
        let everyone = ObservableView(model)
        watch = Invalidations(model, views: ["all": all, "everyone": everyone], names: names)
        try await model.rows[3].setEnabled(false)
        #expect(watch.all == ["3.isEnabled", "3.version", "enabledCount"])

        // A rename invalidates one title; a screen's rows only when the label leaves it.
        watch = Invalidations(model, views: screens, names: names)
        try await model.rows[20].rename(to: "Label twenty")
        #expect(watch.all == ["20.title", "20.version"])
        watch = Invalidations(model, views: screens, names: names)
        try await model.rows[20].rename(to: "Twenty")
        #expect(all.visibleCount == 49 && !all.rows.contains { $0.id == ids[20] })
        #expect(watch.all == ["20.title", "20.version", "all.rows", "all.visibleCount"])

        // A move: the list's rows and the rows of each screen it is visible in (not
        // `all`, which no longer shows it); no row property, no count.
        watch = Invalidations(model, views: screens, names: names)
        try await model.rows[20].move(to: 0)
        #expect(model.rows[0].id == ids[20] && enabled.rows[0].id == ids[20])
        #expect(watch.all == ["rows", "enabled.rows"])
    }
}
