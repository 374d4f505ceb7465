import EventLog
import LabelStoreTestSupport
import Testing

@testable import LabelProjection

/// Filtered views: matching rules, and incremental maintenance in visible coordinates.
@Suite struct FilteredViewTests {
    @Test func queryMatchesCaseAndDiacriticInsensitivelyAndEmptyTextMatchesAll() {
        let cafe = Label(id: testID(1), title: "Café Noir", isEnabled: false, version: 1)
        #expect(ViewQuery("cafe").matches(cafe))
        #expect(ViewQuery("NOIR").matches(cafe))
        #expect(!ViewQuery("tea").matches(cafe))
        #expect(ViewQuery("").matches(cafe))
        #expect(!ViewQuery("", enabledOnly: true).matches(cafe))
    }

    /// Applies `events` one by one to a list and a view, checking each step's
    /// view changes against a fresh filter; returns all view changes.
    func changes(_ query: ViewQuery, _ events: [LabelEvent]) throws -> [[ViewChange]] {
        var list = LabelList()
        var view = FilteredView(query: query, list: list)
        var mirror: [LabelID] = []
        var all: [[ViewChange]] = []
        for event in events {
            let change = try list.apply(record(list.lastSeq + 1, event))
            let viewChanges = view.apply(change, in: list)
            for viewChange in viewChanges { viewChange.apply(to: &mirror) }
            #expect(view == FilteredView(query: query, list: list), "incremental view differs from a fresh filter after \(event)")
            #expect(mirror == view.ids(in: list))
            all.append(viewChanges)
        }
        return all
    }

    @Test func editsMoveRowsInAndOutOfTheViewInVisibleCoordinates() throws {
        let a = testID(1), b = testID(2), c = testID(3)
        let result = try changes(
            ViewQuery("ring"),
            [
                .added(id: a, title: "Ring", isEnabled: true, index: 0),
                .added(id: b, title: "Grid", isEnabled: true, index: 0),  // not visible
                .added(id: c, title: "ring two", isEnabled: true, index: 1),  // Grid · ring two · Ring
                .renamed(id: b, oldTitle: "Grid", newTitle: "Grid Ring"),  // enters at visible 0
                .renamed(id: a, oldTitle: "Ring", newTitle: "Tile"),  // leaves from visible 2
                .renamed(id: c, oldTitle: "ring two", newTitle: "Ring Two"),  // stays: updated
                .toggled(id: c, isEnabled: false),  // stays (not enabled-only): updated
                .moved(id: b, from: 0, to: 2)  // Tile... visible order c, b
            ])
        #expect(
            result == [
                [.inserted(id: a, at: 0)],
                [],
                [.inserted(id: c, at: 0)],
                [.inserted(id: b, at: 0)],
                [.removed(id: a, at: 2)],
                [.updated(id: c, at: 1)],
                [.updated(id: c, at: 1)],
                [.moved(id: b, from: 0, to: 1)]
            ])
    }

    @Test func disablingARowLeavesAnEnabledOnlyViewButKeepsTheEdit() throws {
        let a = testID(1), b = testID(2)
        let result = try changes(
            ViewQuery(enabledOnly: true),
            [
                .added(id: a, title: "Grid", isEnabled: true, index: 0),
                .added(id: b, title: "Ring", isEnabled: true, index: 1),
                .toggled(id: a, isEnabled: false),
                .renamed(id: a, oldTitle: "Grid", newTitle: "Grid Two"),  // invisible: no change
                .toggled(id: a, isEnabled: true)
            ])
        #expect(result.dropFirst(2) == [[.removed(id: a, at: 0)], [], [.inserted(id: a, at: 0)]])
    }

    @Test func reorderBecomesMovesThatTransformTheVisibleRows() throws {
        let ids = (1...5).map(testID)
        var events: [LabelEvent] = ids.enumerated().map { .added(id: $1, title: $0 % 2 == 0 ? "even" : "odd", isEnabled: true, index: $0) }
        events.append(.reordered(order: ids.reversed()))
        events.append(.reordered(order: [ids[1], ids[0], ids[3], ids[4], ids[2]]))  // visible "even" rows become 0, 4, 2
        let result = try changes(ViewQuery("even"), events)
        #expect(result[5].count == 2, "reversing three visible rows takes two moves")
        #expect(!result[6].isEmpty)
        // A reorder that keeps the visible rows' relative order changes nothing in the view.
        let same = try changes(ViewQuery("odd"), Array(events.prefix(5)) + [.reordered(order: [ids[1], ids[0], ids[2], ids[3], ids[4]])])
        #expect(same.last == [])
    }

    @Test func storeViewUsesTheMaintainedViewAndAgreesWithAFreshFilter() throws {
        let store = try makeStore()
        let query = ViewQuery("a")
        let (subscription, received) = record(store, .view(query))
        defer { subscription.cancel() }
        let amber = try store.add("Amber")
        try store.add("Cobalt")
        try store.add("Tile")
        try store.rename(amber, to: "Ember")
        #expect(store.view(query).map(\.title) == ["Cobalt"])
        #expect(store.view(query) == store.labels.filter(query.matches))
        #expect(
            received.all.flatMap(\.viewChanges) == [
                .inserted(id: amber, at: 0), .inserted(id: store.labels[1].id, at: 1), .removed(id: amber, at: 0)
            ])
    }
}
