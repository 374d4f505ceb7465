import EventLog
import Observation
import Testing

@testable import LabelProjection

/// A list model and its views apply each record in the same main-actor job,
/// so no frame (drawn between jobs) shows a view that disagrees with the list.
@MainActor
@Suite struct ObservableFrameConsistencyTests {
    /// What is wrong between `labels` and `views` right now (empty when every
    /// view shows exactly its query over the list's rows, with its count, and
    /// the list's counts match its rows).
    static func disagreements(_ labels: ObservableLabels, _ views: [ObservableView]) -> [String] {
        var problems: [String] = []
        if labels.count != labels.rows.count { problems.append("list count \(labels.count) for \(labels.rows.count) rows") }
        let enabled = labels.rows.count(where: \.isEnabled)
        if labels.enabledCount != enabled { problems.append("list enabledCount \(labels.enabledCount) for \(enabled) enabled rows") }
        for view in views {
            let expected = labels.rows.filter { view.viewQuery.matches($0.label) }.map(\.id)
            if view.rows.map(\.id) != expected {
                problems.append(
                    "view \(view.viewQuery) at seq \(view.appliedSeq) shows \(view.rows.count) rows, its query over the list at seq \(labels.appliedSeq) \(expected.count)"
                )
            }
            if view.visibleCount != view.rows.count {
                problems.append("view \(view.viewQuery) visibleCount \(view.visibleCount) for \(view.rows.count) rows")
            }
        }
        return problems
    }

    /// Writes from two threads (blocking calls) and two tasks (async calls)
    /// while the main actor checks the models between its jobs: each check runs
    /// in its own job, queued behind the deliveries, so it sees the state a
    /// SwiftUI frame would. Before the fix, a mailbox run stopped after 128
    /// notifications (or found a record's view notification not posted yet),
    /// and a later job applied the rest of the record to the views.
    @Test func everyViewEqualsItsQueryOverTheListBetweenMainActorJobs() async throws {
        let store = try makeStore(recordRejections: true)
        for title in ["Amber", "Ring", "Grid", "Café", "Tile", "copper"] { try await store.add(title) }
        let labels = ObservableLabels(store: store)
        let views = [
            ObservableView(labels, query: "", enabledOnly: true), ObservableView(labels, query: "ring"),
            ObservableView(labels, query: "r", enabledOnly: true), ObservableView(labels, query: "cafe"),
            ObservableView(labels, query: "i")
        ]
        let threads = Task.detached {
            await onThreads(2) { thread in
                var generator = CommandGenerator(seed: UInt64(900 + thread))
                for _ in 0..<600 {
                    let mirror = ModelList(mirroring: store.snapshot)
                    _ = try? store.execute(generator.command(mirror))
                }
            }
        }
        let tasks = (0..<2).map { n in
            Task.detached {
                var generator = CommandGenerator(seed: UInt64(950 + n))
                for _ in 0..<300 {
                    let mirror = ModelList(mirroring: store.snapshot)
                    _ = try? await store.execute(generator.command(mirror))
                }
            }
        }
        var checks = 0
        var problems: [String] = []
        func check() {
            checks += 1
            let found = Self.disagreements(labels, views)
            if !found.isEmpty, problems.count < 5 { problems.append("check \(checks): " + found.joined(separator: "; ")) }
        }
        var writing = true
        let done = Task.detached {
            await threads.value
            for task in tasks { await task.value }
        }
        Task { @MainActor in
            await done.value
            writing = false
        }
        while writing {
            check()
            await Task.yield()
        }
        let last = store.lastSeq
        #expect(await eventually { labels.appliedSeq >= last })
        check()
        #expect(problems.isEmpty, "\(problems)")
        #expect(checks > 10, "the main actor checked between jobs while the writers ran")
        #expect(labels.rows.map(\.label) == store.labels)
        for view in views { #expect(view.rows.map(\.id) == store.view(view.viewQuery).map(\.id)) }
    }
}
