import EventLog
import Testing

@testable import LabelProjection

/// Scenario C (docs/SCENARIOS.md): property-level observation. Toggling one label
/// of fifty must not notify the other forty-nine rows. (The Observation
/// framework half is in ObservableLabelsTests.)
@Suite struct ScenarioCTests {
    @Test func scenarioC_togglingOneOfFiftyNotifiesOnlyThatRowsEnabledAndLabelSubscribers() throws {
        let store = try makeStore()
        let ids = try (0..<50).map { try store.add("Label \($0)") }
        let titles = ids.map { record(store, .title($0)) }
        let enabled = ids.map { record(store, .isEnabled($0)) }
        let labels = ids.map { record(store, .label($0)) }
        let (countSubscription, count) = record(store, .enabledCount)
        let (membershipSubscription, membership) = record(store, .membership)
        defer {
            (titles + enabled + labels).forEach { $0.0.cancel() }
            countSubscription.cancel()
            membershipSubscription.cancel()
        }

        try store.toggle(ids[17])

        #expect(titles.map(\.1.count) == Array(repeating: 0, count: 50))
        #expect(enabled.map(\.1.count) == (0..<50).map { $0 == 17 ? 1 : 0 })
        #expect(labels.map(\.1.count) == (0..<50).map { $0 == 17 ? 1 : 0 })
        #expect(enabled[17].1.all.first?.isEnabled == ValueChange(id: ids[17], old: true, new: false))
        #expect(count.all.map(\.enabledCount.new) == [49])
        #expect(membership.all.isEmpty)

        // Renaming it notifies only its title (and whole-label) subscriber; the count is unchanged.
        try store.rename(ids[17], to: "Renamed")
        #expect(titles.map(\.1.count) == (0..<50).map { $0 == 17 ? 1 : 0 })
        #expect(count.all.count == 1)
    }
}
