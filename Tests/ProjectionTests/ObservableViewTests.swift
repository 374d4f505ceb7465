import EventLog
import Observation
import Testing

@testable import LabelProjection

/// `ObservableView`: a filtered view's rows kept current from the store's view
/// changes, as the list model's row objects; edits through rows go to ids.
@MainActor
@Suite struct ObservableViewTests {
    /// Checks that `view` shows the store's view of its query, with the list model's objects.
    func expectCurrent(_ view: ObservableView, _ store: LabelStore, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(view.rows.map(\.label) == store.view(view.viewQuery), sourceLocation: sourceLocation)
        #expect(view.visibleCount == view.rows.count, sourceLocation: sourceLocation)
        #expect(view.rows.allSatisfy { view.labels.row($0.id) === $0 }, "one object per label", sourceLocation: sourceLocation)
    }

    @Test func viewsMirrorTheStoreThroughEveryKindOfEventWithTheListModelsRowObjects() throws {
        let store = try makeStore(recordRejections: true)
        let model = ObservableLabels(store: store)
        let views = [
            ObservableView(model), ObservableView(model, query: "ring"), ObservableView(model, query: "cafe", enabledOnly: true),
            ObservableView(model, enabledOnly: true), ObservableView(model, query: "ring")
        ]
        var generator = CommandGenerator(seed: 11)
        for step in 0..<400 {
            let mirror = ModelList(mirroring: store.snapshot)
            _ = try? store.execute(generator.command(mirror))
            if step.isMultiple(of: 3) { model.update() } else { continue }
            #expect(model.rows.map(\.label) == store.labels)
            for view in views { expectCurrent(view, store) }
        }
        model.update()
        for view in views { expectCurrent(view, store) }
        #expect(model.reloads == 1, "no fallback to a reload: every record applied from its change description")
    }

    @Test func viewsFollowWritesFromOtherThreadsWithNoUpdateCall() async throws {
        let store = try makeStore(recordRejections: true)
        try await store.add("Seed")
        let model = ObservableLabels(store: store)
        let ring = ObservableView(model, query: "ring")
        let enabled = ObservableView(model, enabledOnly: true)
        await ObservableLabelsDeliveryTests.writeRandomly(store, threads: 3, perThread: 100)
        let last = store.lastSeq
        #expect(await eventually { model.appliedSeq >= last })
        expectCurrent(ring, store)
        expectCurrent(enabled, store)
        #expect(model.reloads == 1)
    }

    @Test func changingTheQueryRefiltersKeepingRowObjectsAndAssignsRowsOnlyWhenTheyDiffer() throws {
        let store = try makeStore()
        let ring = try store.add("Ring"), grid = try store.add("Grid"), ringTwo = try store.add("Ring Two")
        let model = ObservableLabels(store: store)
        let view = ObservableView(model, query: "Ring")
        let before = view.rows
        #expect(view.rows.map(\.id) == [ring, ringTwo])
        var watch = Invalidations(model, views: ["view": view], names: [:])
        view.query = "rin"  // the same rows
        let same = view.rows.elementsEqual(before, by: ===)
        #expect(same)
        #expect(watch.all == ["view.query"])
        watch = Invalidations(model, views: ["view": view], names: [:])
        view.query = ""
        #expect(view.rows.map(\.id) == [ring, grid, ringTwo])
        #expect(view.rows[0] === before[0] && view.rows[2] === before[1], "rows that stay are the same objects")
        #expect(watch.all == ["view.query", "view.rows", "view.visibleCount"])
        // The old query is no longer followed: a new "Ring" label shows only in the new one.
        try store.add("Ring Three")
        model.update()
        #expect(view.rows.map(\.title) == ["Ring", "Grid", "Ring Two", "Ring Three"])
        #expect(store.subscriberCount == 2, "the list model's subscription and the view's current query")
    }

    @Test func twoViewsOfOneQueryApplyEachRecordOnce() throws {
        let store = try makeStore()
        let model = ObservableLabels(store: store)
        let a = ObservableView(model, query: "x"), b = ObservableView(model, query: "x")
        for n in 0..<5 { try store.add("x\(n)", at: 0) }
        model.update()
        #expect(a.rows.map(\.title) == ["x4", "x3", "x2", "x1", "x0"])
        #expect(b.rows.map(\.title) == a.rows.map(\.title))
        #expect(model.reloads == 1)
    }

    @Test func releasingAViewCancelsItsSubscriptionAndTheListModelGoesOn() throws {
        let store = try makeStore()
        let model = ObservableLabels(store: store)
        weak var weakView: ObservableView?
        do {
            let view = ObservableView(model, query: "a")
            weakView = view
            try store.add("a")
            #expect(store.subscriberCount == 2)
        }
        #expect(weakView == nil)
        #expect(store.subscriberCount == 1)
        try store.add("ab")
        model.update()
        #expect(model.rows.map(\.title) == ["a", "ab"] && model.reloads == 1)
    }

    @Test func aViewMadeWhileTheListModelIsBehindShowsRowsOfThatModel() throws {
        let store = try makeStore()
        let model = ObservableLabels(store: store)
        try store.add("Ring")  // queued for the model, not applied yet
        let view = ObservableView(model, query: "ring")
        #expect(view.rows.count == 1 && view.rows[0] === model.row(view.rows[0].id))
        #expect(model.appliedSeq == store.lastSeq)
    }

    @Test func editsThroughRowsGoToTheRowsIDWhereverItIsNow() async throws {
        let store = try makeStore()
        let a = try await store.add("Alpha"), b = try await store.add("Beta"), c = try await store.add("Gamma")
        let model = ObservableLabels(store: store)
        let view = ObservableView(model, query: "a")  // Alpha, Beta, Gamma all contain "a"
        let gamma = view.rows[2]
        // Someone else moves Gamma to the front and removes Beta: the row still edits Gamma.
        try await store.move(c, to: 0)
        try await store.remove(b)
        let records = try await gamma.rename(to: "Gamma Two")
        #expect(records.count == 1 && store.label(c)?.title == "Gamma Two" && store.label(a)?.title == "Alpha")
        #expect(view.rows.map(\.title) == ["Gamma Two", "Alpha"], "the edit returned with the models current")
        try await gamma.move(to: 1)
        #expect(model.rows.map(\.id) == [a, c] && view.rows.map(\.id) == [a, c])
        try await gamma.setEnabled(false)
        #expect(store.label(c)?.isEnabled == false && gamma.isEnabled == false)
        try await gamma.remove()
        #expect(model.rows.map(\.id) == [a] && view.rows.map(\.id) == [a])
    }

    @Test func anEditIfUnchangedIsRefusedWhenTheLabelChangedSinceTheRowShowedIt() async throws {
        let store = try makeStore()
        let id = try await store.add("Grid")
        let model = ObservableLabels(store: store)
        let row = try #require(model.row(id))
        let shown = row.version
        // Someone else's rename, synchronous so no turn of the main actor applies it to the model.
        _ = try { () throws(StoreError) in try store.rename(id, to: "Grid (theirs)") }()
        let error = await #expect(throws: StoreError.self) { try await row.rename(to: "Grid (mine)", ifUnchanged: true) }
        #expect(error?.kind == .staleVersion)
        #expect(error?.code == .staleVersion(expected: shown, current: store.labelVersion(id)!))
        #expect(row.title == "Grid (theirs)", "the refused edit returned with the row current")
        try await row.rename(to: "Grid (mine)", ifUnchanged: true)
        #expect(store.label(id)?.title == "Grid (mine)")
    }
}
