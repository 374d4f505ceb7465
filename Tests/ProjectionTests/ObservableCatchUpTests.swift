import EventLog
import Observation
import Testing

@testable import LabelProjection

/// `await labels.caughtUp(to:)`: waiting for the models to apply writes made
/// elsewhere, by their main-actor delivery (no reload), and stopping on cancellation.
@MainActor
@Suite struct ObservableCatchUpTests {
    @Test func caughtUpReturnsOnceTheModelAndItsViewsShowWritesFromOtherThreads() async throws {
        let store = try makeStore(recordRejections: true)
        try await store.add("Ring")
        let labels = ObservableLabels(store: store)
        let view = ObservableView(labels, query: "ring")
        await onThreads(2) { thread in
            var generator = CommandGenerator(seed: UInt64(300 + thread))
            for _ in 0..<250 {
                _ = try? store.execute(generator.command(ModelList(mirroring: store.snapshot)))
            }
        }
        let last = store.lastSeq
        #expect(await labels.caughtUp(to: last))
        #expect(labels.appliedSeq >= last)
        #expect(labels.rows.map(\.label) == store.labels)
        #expect(view.rows.map(\.id) == store.view(view.viewQuery).map(\.id))
        #expect(labels.reloads == 1, "caught up by delivery, not by a reload")
        #expect(await labels.caughtUp(to: 1), "a seq already applied returns at once")
    }

    @Test func aSeqTheStoreHasNotAppliedIsWaitedForUntilItIsWritten() async throws {
        let store = try makeStore()
        let labels = ObservableLabels(store: store)
        let waiting = Task { @MainActor in await labels.caughtUp(to: 3) }
        try await store.add("A")
        try await store.add("B")
        try await Task.sleep(for: .milliseconds(20))
        #expect(labels.catchUpWaiters.count == 1, "still waiting for seq 3")
        try await store.add("C")
        #expect(await waiting.value)
        #expect(labels.rows.map(\.title) == ["A", "B", "C"])
    }

    @Test func cancellingTheWaitingTaskReturnsFalse() async throws {
        let store = try makeStore()
        let labels = ObservableLabels(store: store)
        let waiting = Task { @MainActor in await labels.caughtUp(to: 10) }
        try await Task.sleep(for: .milliseconds(20))
        waiting.cancel()
        #expect(await waiting.value == false)
        #expect(await eventually { labels.catchUpWaiters.isEmpty })
        let cancelledFirst = Task { @MainActor in
            withUnsafeCurrentTask { $0?.cancel() }
            return await labels.caughtUp(to: 10)
        }
        #expect(await cancelledFirst.value == false, "a task cancelled before it waits returns at once")
    }
}
