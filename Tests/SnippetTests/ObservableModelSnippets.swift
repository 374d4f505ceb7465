import LabelProjection
import Observation
import Testing

// The ```swift blocks of the type pages of ObservableLabels, ObservableView and
// ObservableLabel (LabelProjection.docc/Extensions), compiled and run.

@MainActor
private func listModelFollowing(_ store: LabelStore) async throws {
    // snippet: observable-labels-follow
    let labels = ObservableLabels(store: store)  // on the main actor; follows the store from now on
    _ = try await Task.detached { try await store.add("Ring") }.value  // a write from elsewhere
    await labels.caughtUp(to: store.lastSeq)  // applied by delivery, on the main actor
    print(labels.rows.map(\.title), labels.count, labels.enabledCount)  // ["Ring"] 1 1
    // end snippet
}

@MainActor
private func viewFiltering(_ store: LabelStore) {
    let labels = ObservableLabels(store: store)
    // snippet: observable-view-filter
    let rings = ObservableView(labels, query: "ring")  // the list model's rows whose title contains "ring"
    print(rings.rows.map(\.title))  // ["Ring", "Ring Two"]
    rings.enabledOnly = true  // re-filters at once
    print(rings.rows.map(\.title), rings.rows[0] === labels.rows[0])  // ["Ring"] true
    // end snippet
}

@MainActor
private func rowObserving(_ store: LabelStore) async throws {
    let labels = ObservableLabels(store: store)
    // snippet: observable-label-row
    let row = labels.rows[0]
    withObservationTracking {
        _ = row.title
    } onChange: {
        print("title changed")
    }
    withObservationTracking {
        _ = row.isEnabled
    } onChange: {
        print("isEnabled changed")
    }
    try await row.rename(to: "Ring Two")  // prints "title changed" only; the row shows it on return
    print(row.title, row.version)  // Ring Two 2
    // end snippet
}

@Suite struct ObservableModelSnippetTests {
    @Test func theListModelFollowsWritesFromElsewhere() async throws {
        try await withTemporaryDirectory { directory in
            let store = try await LabelStore.open(path: directory + "/labels.labellog", options: .init(createIfMissing: true))
            let printed = try await Printed.capture { try await listModelFollowing(store) }
            #expect(printed == ["[\"Ring\"] 1 1"])
            await store.close()
        }
    }

    @Test func aViewFiltersTheListsRows() async throws {
        try await withTemporaryDirectory { directory in
            let store = try await LabelStore.open(path: directory + "/labels.labellog", options: .init(createIfMissing: true))
            try await store.add("Ring")
            try await store.add("Tile", isEnabled: false)
            try await store.add("Ring Two", isEnabled: false)
            let printed = await Printed.capture { await viewFiltering(store) }
            #expect(printed == ["[\"Ring\", \"Ring Two\"]", "[\"Ring\"] true"])
            await store.close()
        }
    }

    @Test func aRowTellsItsTitlesReadersOnly() async throws {
        try await withTemporaryDirectory { directory in
            let store = try await LabelStore.open(path: directory + "/labels.labellog", options: .init(createIfMissing: true))
            try await store.add("Ring")
            let printed = try await Printed.capture { try await rowObserving(store) }
            #expect(printed == ["title changed", "Ring Two 2"])
            await store.close()
        }
    }
}
