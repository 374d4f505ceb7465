import Dispatch
import LabelProjection
import Synchronization
import Testing

#if canImport(SwiftUI)
import SwiftUI
#endif

// The ```swift blocks of LabelProjection.docc/SubscriptionsAndDelivery.md, compiled.

private func subscribeToMembership(_ store: LabelStore) -> Subscription {
    // snippet: subscriptions-callback
    let subscription = store.subscribe(to: .membership) { change in
        print("seq \(change.seq): the list now has \(store.count) labels")
    }
    // end snippet
    return subscription
}

/// What a main-actor handler updates (a view model, in an app).
@MainActor private final class TitleModel {
    var title = ""
}

/// An actor a handler runs isolated to.
private actor Auditor {
    private(set) var seqs: [UInt64] = []

    func record(_ seq: UInt64) { seqs.append(seq) }
}

/// What a queue handler hands the records to (thread-safe).
private final class Exporter: Sendable {
    private let exported = Mutex<[UInt64]>([])

    func export(_ record: EventRecord) { exported.withLock { $0.append(record.seq) } }
    var seqs: [UInt64] { exported.withLock { $0 } }
}

@MainActor
private func subscribeOnTargets(
    _ store: LabelStore, ring: LabelID, model: TitleModel, auditor: Auditor, exporter: Exporter, exportQueue: DispatchQueue
) -> [Subscription] {
    // snippet: subscriptions-targets
    let title = store.subscribe(to: .title(ring), on: .mainActor) { change in
        model.title = change.title?.new ?? "-"  // main-actor state, checked by the compiler
    }
    let audit = store.subscribe(to: .everything, on: .actor(auditor)) { auditor, change in
        auditor.record(change.seq)  // isolated to `auditor`: no await
    }
    let export = store.subscribe(to: .membership, on: .queue(exportQueue)) { change in
        exporter.export(change.record)  // on exportQueue, one call at a time
    }
    // end snippet
    return [title, audit, export]
}

private func followEnabledCount(_ store: LabelStore) -> Task<Void, Never> {
    // snippet: subscriptions-stream
    let follower = Task {
        for await change in store.changes(for: .enabledCount) {
            print("enabled:", change.enabledCount.old, "→", change.enabledCount.new)
        }
    }
    // end snippet
    return follower
}

private func followView(_ store: LabelStore) async throws -> [LabelID] {
    // snippet: subscriptions-view-from-seq
    let query = ViewQuery("ring")
    let list = store.snapshot  // one consistent state, at list.lastSeq
    var rowIDs = FilteredView(query: query, list: list).ids(in: list)
    for await change in try store.changes(for: .view(query), from: list.lastSeq + 1) {
        for rowChange in change.viewChanges {
            rowChange.apply(to: &rowIDs)  // or: tableView.insertRows / deleteRows / moveRow / reloadRows
        }
    }
    // end snippet
    return rowIDs
}

#if canImport(SwiftUI)
// snippet: subscriptions-swiftui
struct LabelToggles: View {
    @State var model: ObservableLabels  // ObservableLabels(store: store), made on the main actor

    var body: some View {
        List(model.rows) { row in
            Toggle(row.title, isOn: .constant(row.isEnabled))
        }
    }
}
// end snippet
#endif

/// Waits until the store has `count` subscribers (a stream registers when its consumer starts).
func waitForSubscribers(_ store: LabelStore, count: Int) async throws {
    var waited = 0
    while store.subscriberCount < count, waited < 10_000 {
        try await Task.sleep(for: .milliseconds(1))
        waited += 1
    }
}

@Suite struct SubscriptionSnippetTests {
    @Test func callbackHearsMembershipAfterTheWriteIsApplied() async throws {
        try await withTemporaryDirectory { directory in
            let store = try await LabelStore.open(path: directory + "/labels.labellog", options: .init(createIfMissing: true))
            let printed = try await Printed.capture {
                let subscription = subscribeToMembership(store)
                let ring = try store.add("Ring")
                try store.rename(ring, to: "Ring Two")  // not membership: not told
                try store.add("Tile")
                try store.remove(ring)
                subscription.cancel()
                try store.add("Slate")  // cancelled: not told
            }
            #expect(printed == ["seq 1: the list now has 1 labels", "seq 3: the list now has 2 labels", "seq 4: the list now has 1 labels"])
            await store.close()
        }
    }

    @Test func eachTargetRunsItsHandlerWhereItSays() async throws {
        try await withTemporaryDirectory { directory in
            let store = try await LabelStore.open(path: directory + "/labels.labellog", options: .init(createIfMissing: true))
            let ring = try await store.add("Ring")  // seq 1
            let model = TitleModel()
            let auditor = Auditor()
            let exporter = Exporter()
            let exportQueue = DispatchQueue(label: "export", attributes: .concurrent)
            let subscriptions = await subscribeOnTargets(
                store, ring: ring, model: model, auditor: auditor, exporter: exporter, exportQueue: exportQueue)
            try await store.rename(ring, to: "Ring Two")  // seq 2: the title
            try await store.add("Tile")  // seq 3: membership
            try await store.toggle(ring)  // seq 4: neither
            // The targets run later: wait until each has caught up.
            var waited = 0
            while waited < 10_000 {
                let caughtUp = await (model.title, auditor.seqs.count, exporter.seqs.count)
                if caughtUp == ("Ring Two", 3, 1) { break }
                try await Task.sleep(for: .milliseconds(1))
                waited += 1
            }
            for subscription in subscriptions { subscription.cancel() }
            #expect(await model.title == "Ring Two")
            #expect(await auditor.seqs == [2, 3, 4])
            #expect(exporter.seqs == [3])
            await store.close()
        }
    }

    @Test func streamDeliversEveryEnabledCountChangeThenEndsOnClose() async throws {
        try await withTemporaryDirectory { directory in
            let store = try await LabelStore.open(path: directory + "/labels.labellog", options: .init(createIfMissing: true))
            let printed = try await Printed.capture {
                let follower = followEnabledCount(store)
                try await waitForSubscribers(store, count: 1)
                let ring = try await store.add("Ring")
                try await store.add("Tile", isEnabled: false)  // the count does not change: not told
                try await store.toggle(ring)
                await store.close()
                await follower.value
            }
            #expect(printed == ["enabled: 0 → 1", "enabled: 1 → 0"])
        }
    }

    @Test func viewRowsFollowedFromASnapshotSeqMatchTheView() async throws {
        try await withTemporaryDirectory { directory in
            let store = try await LabelStore.open(path: directory + "/labels.labellog", options: .init(createIfMissing: true))
            let ring = try await store.add("Ring")
            let tile = try await store.add("Tile")
            let follower = Task { try await followView(store) }
            try await waitForSubscribers(store, count: 1)
            let bring = try await store.add("Bring", at: 0)
            try await store.rename(tile, to: "Ringtail")
            try await store.move(ring, to: 2)
            try await store.remove(bring)
            try await store.execute(batch: [.add(title: "Earring"), .reverse])
            let expected = store.view(ViewQuery("ring")).map(\.id)
            await store.close()
            let rowIDs = try await follower.value
            #expect(rowIDs == expected)
            #expect(rowIDs.count == 3)
        }
    }
}
