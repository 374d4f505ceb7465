import EventLog
import Foundation
import Observation
import Synchronization
import Testing

@testable import LabelProjection

/// `ObservableLabels` keeps itself current on the main actor (main-actor
/// delivery, no task kept by the app) and lets go of everything when released.
@MainActor
@Suite struct ObservableLabelsDeliveryTests {
    /// Runs random commands (every kind of event, refusals recorded) from
    /// `threads` threads at once, `perThread` each.
    static func writeRandomly(_ store: LabelStore, threads: Int, perThread: Int) async {
        await onThreads(threads) { thread in
            var generator = CommandGenerator(seed: UInt64(100 + thread))
            for _ in 0..<perThread {
                let list = store.snapshot
                let mirror = ModelList(mirroring: list)
                _ = try? store.execute(generator.command(mirror))
            }
        }
    }

    @Test func followsWritesFromBackgroundThreadsWithNoTaskKeptByTheApp() async throws {
        let store = try makeStore(recordRejections: true)
        try await store.add("Seed")
        let model = ObservableLabels(store: store)
        #expect(store.subscriberCount == 1, "the model subscribes itself")
        let rowsChanged = Collector<Bool>()
        withObservationTracking {
            _ = model.rows
        } onChange: {
            rowsChanged.append(true)
        }
        await Self.writeRandomly(store, threads: 3, perThread: 150)
        let last = store.lastSeq
        #expect(last > 100)
        #expect(await eventually { model.appliedSeq >= last })
        #expect(model.rows.map(\.label) == store.labels)
        #expect(model.enabledCount == store.enabledCount)
        #expect(model.appliedSeq == last)
        #expect(model.reloads == 1 && model.appliedRecords == Int(last) - 1, "each record applied once, in seq order, with no reload")
        #expect(!rowsChanged.all.isEmpty, "observers of rows are told")
    }

    @Test func updateAndMainActorDeliveryTogetherApplyEachRecordOnce() async throws {
        let store = try makeStore()
        let model = ObservableLabels(store: store)
        let a = try await store.add("A")
        try await store.add("B")
        model.update()  // pulls seqs 1 and 2 now; their deliveries come later and are skipped
        #expect(model.rows.map(\.title) == ["A", "B"] && model.appliedSeq == 2)
        try await store.rename(a, to: "A2")
        try await store.toggle(a)
        #expect(await eventually { model.appliedSeq >= 4 })
        let sentinel = MainActorLog<UInt64>()
        let keep = store.subscribe(to: .everything, on: .mainActor) { sentinel.append($0.seq) }
        try await store.add("C")
        #expect(await eventually { sentinel.count >= 1 && model.appliedSeq >= 5 })
        #expect(model.rows.map(\.label) == store.labels)
        #expect(model.reloads == 1 && model.appliedRecords == 5)
        keep.cancel()
    }

    @Test func releasingTheModelCancelsItsSubscriptionAndDeallocatesIt() async throws {
        let store = try makeStore()
        weak var weakModel: ObservableLabels?
        do {
            let model = ObservableLabels(store: store)
            weakModel = model
            try await store.add("A")
            #expect(await eventually { model.appliedSeq >= 1 })
            for i in 0..<10 { try await store.add("\(i)") }  // queued for the model on the main actor, not run yet
            #expect(store.subscriberCount == 1)
        }
        #expect(weakModel == nil, "no retain cycle: the model goes when the app lets go of it")
        #expect(store.subscriberCount == 0, "and its subscription with it")
        // What was queued for it is discarded; the store goes on working.
        let sentinel = MainActorLog<UInt64>()
        let keep = store.subscribe(to: .everything, on: .mainActor) { sentinel.append($0.seq) }
        try await store.add("after")
        #expect(await eventually { sentinel.count >= 1 })
        #expect(sentinel.all == [12])
        keep.cancel()
    }

    @Test func closingTheStoreEndsFollowingAfterWhatWasWrittenBeforeIt() async throws {
        let store = try makeStore()
        let model = ObservableLabels(store: store)
        await onThreads(2) { thread in
            for i in 0..<50 { try! store.add("\(thread).\(i)") }
        }
        await store.close()
        #expect(store.subscriberCount == 0)
        #expect(await eventually { model.appliedSeq >= 100 })
        #expect(model.rows.map(\.label) == store.labels)
        #expect(model.reloads == 1 && model.appliedRecords == 100)

        let onClosed = ObservableLabels(store: store)
        #expect(onClosed.rows.count == 100 && store.subscriberCount == 0, "a model of a closed store shows it and does not follow")
    }

    @Test func modelsMadeWhileAnotherThreadWritesMissNothingAndRepeatNothing() async throws {
        let store = try makeStore()
        for i in 0..<20 { try await store.add("seed \(i)") }
        var made: [(model: ObservableLabels, start: UInt64)] = []
        let writing = Task.detached {
            for i in 0..<400 { try store.add("live \(i)") }
        }
        for _ in 0..<20 {
            let model = ObservableLabels(store: store)
            made.append((model, model.appliedSeq))
            await Task.yield()
        }
        try await writing.value
        let last = store.lastSeq
        #expect(await eventually { made.allSatisfy { $0.model.appliedSeq >= last } })
        for (model, start) in made {
            #expect(model.rows.map(\.label) == store.labels)
            #expect(model.reloads == 1 && UInt64(model.appliedRecords) == last - start, "from its start, each record once")
        }
        #expect(store.subscriberCount == 20)
        made.removeAll()
        #expect(store.subscriberCount == 0)
    }
}
