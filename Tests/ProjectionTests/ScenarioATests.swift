import EventLog
import Testing

@testable import LabelProjection

/// Scenario A (docs/SCENARIOS.md): row observation. Collection changes and element
/// changes are published to different subscribers, after they are applied.
@Suite struct ScenarioATests {
    @Test func scenarioA_rowObservationStepByStep() throws {
        // Step 1: open a log that holds Amber (on), Cobalt (off).
        let log = InMemoryEventLog()
        do {
            let seed = try makeStore(log)
            try seed.add("Amber", isEnabled: true)
            try seed.add("Cobalt", isEnabled: false)
        }
        let store = try makeStore(log)
        #expect(store.labels.map(\.title) == ["Amber", "Cobalt"])
        #expect(store.labels.map(\.isEnabled) == [true, false])
        #expect(store.count == 2)
        let amber = try store.firstID()
        let cobalt = try store.lastID()

        let (s1, membership) = record(store, .membership)
        let (s2, amberTitle) = record(store, .title(amber))
        let (s3, amberEnabled) = record(store, .isEnabled(amber))
        let (s4, cobaltLabel) = record(store, .label(cobalt))
        let (s5, enabledCount) = record(store, .enabledCount)
        // Subscribers see the new value when they re-read the store.
        let reread = Collector<String>()
        let s6 = store.subscribe(to: .title(amber)) { _ in reread.append(store.label(amber)?.title ?? "-") }
        defer { [s1, s2, s3, s4, s5, s6].forEach { $0.cancel() } }

        // Step 2: "change first label": rename Amber→Copper and toggle it.
        let first = try store.firstID()
        try store.execute(batch: [.rename(id: first, title: "Copper"), .toggle(id: first)])
        #expect(store.labels.first?.title == "Copper" && store.labels.first?.isEnabled == false)
        #expect(store.count == 2)
        #expect(membership.all.isEmpty, "no membership change was published")
        #expect(amberTitle.all.map { [$0.title?.old, $0.title?.new] } == [["Amber", "Copper"]])
        #expect(amberEnabled.all.map { $0.isEnabled?.new } == [false])
        #expect(enabledCount.all.map { [$0.enabledCount.old, $0.enabledCount.new] } == [[1, 0]])
        #expect(reread.all == ["Copper"], "the subscriber re-reading the store gets the new value")
        #expect(cobaltLabel.all.isEmpty)

        // Step 3: rename the first label back: only that label's title changed.
        amberTitle.removeAll()
        amberEnabled.removeAll()
        enabledCount.removeAll()
        try store.rename(try store.firstID(), to: "Amber")
        #expect(amberTitle.all.map { $0.title?.new } == ["Amber"])
        #expect(amberEnabled.all.isEmpty && enabledCount.all.isEmpty && membership.all.isEmpty && cobaltLabel.all.isEmpty)

        // Step 4: add "New label": third, enabled, at the end.
        let newID = try store.add("New label")
        #expect(store.labels.map(\.title) == ["Amber", "Cobalt", "New label"])
        #expect(store.label(newID)?.isEnabled == true && store.count == 3)
        #expect(membership.all.count == 1)
        #expect(enabledCount.all.map(\.enabledCount.new) == [1])

        // Step 5: remove the last label until the list is empty.
        while store.count > 0 { try store.remove(try store.lastID()) }
        #expect(store.count == 0 && store.enabledCount == 0)
        #expect(membership.all.count == 4)
        let changeFirst = #expect(throws: StoreError.self) { try store.firstID() }
        #expect(changeFirst?.code == .nothingToActOn)
        let removeLast = #expect(throws: StoreError.self) { try store.lastID() }
        #expect(removeLast?.code == .nothingToActOn)
        #expect(removeLast?.message == "Nothing to act on: the list is empty.")
        try store.add("Again")
        #expect(store.labels.map(\.title) == ["Again"])
    }
}
