import EventLog
import Foundation
import Synchronization
import Testing

@testable import LabelProjection

/// Subscriptions: catch-up without gap or duplicate, async streams, ordering,
/// re-entrancy and cancellation.
@Suite struct SubscriptionTests {
    @Test func subscribingFromASeqWhileOthersWriteReplaysThenContinuesWithoutGapOrDuplicate() async throws {
        let store = try makeStore()
        for i in 0..<50 { try await store.add("seed \(i)") }
        let collectors = (0..<4).map { _ in Collector<UInt64>() }
        let subscriptions = Collector<Subscription>()
        await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<2 {
                group.addTask {
                    for i in 0..<150 {
                        let id = try store.add("w\(writer)-\(i)")
                        if i % 3 == 0 { try store.toggle(id) }
                    }
                }
            }
            for (n, collector) in collectors.enumerated() {
                group.addTask {
                    let from = UInt64(1 + n * 20)
                    let subscription = try store.subscribe(to: .everything, from: from) { collector.append($0.seq) }
                    subscriptions.append(subscription)
                }
            }
        }
        let last = store.lastSeq
        for (n, collector) in collectors.enumerated() {
            #expect(
                collector.all == Array(UInt64(1 + n * 20)...last),
                "subscriber \(n) must see every seq from its start exactly once, in order")
        }
        subscriptions.all.forEach { $0.cancel() }
    }

    @Test func asyncStreamDeliversEveryNotificationInSeqOrderAndEndsWhenTheStoreCloses() async throws {
        let store = try makeStore()
        let early = try await store.add("Early")
        let history = try store.changes(for: .membership, from: 1)
        let live = store.changes(for: .title(early))
        let later = try await store.add("Later")
        try await store.rename(early, to: "Early Two")
        try await store.remove(later)
        try await store.toggle(early)
        await store.close()
        var seqs: [UInt64] = []
        for await notification in history { seqs.append(notification.seq) }
        #expect(seqs == [1, 2, 4])
        var titles: [String?] = []
        for await notification in live { titles.append(notification.title?.new) }
        #expect(titles == ["Early Two"])
    }

    @Test func callbacksRunOneAtATimeInSeqOrderUnderConcurrentWriters() async throws {
        let store = try makeStore()
        let inside = Atomic<Bool>(false)
        let overlaps = Atomic<Int>(0)
        let seqs = Collector<UInt64>()
        let subscription = store.subscribe(to: .everything) { notification in
            if inside.exchange(true, ordering: .acquiring) { overlaps.add(1, ordering: .relaxed) }
            seqs.append(notification.seq)
            inside.store(false, ordering: .releasing)
        }
        await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask { for i in 0..<100 { try store.add("\(writer).\(i)") } }
            }
        }
        #expect(overlaps.load(ordering: .relaxed) == 0)
        #expect(seqs.all == Array(1...store.lastSeq))
        subscription.cancel()
    }

    @Test func writeFromInsideACallbackDoesNotDeadlockAndIsDeliveredAfterTheCurrentCallback() throws {
        let store = try makeStore()
        let log = Collector<String>()
        let subscription = store.subscribe(to: .membership) { notification in
            log.append("begin \(notification.seq)")
            if notification.seq == 1 {
                _ = try? store.add("Echo")
                log.append("wrote; store is at seq \(store.lastSeq)")
            }
            log.append("end \(notification.seq)")
        }
        try store.add("First")
        #expect(log.all == ["begin 1", "wrote; store is at seq 2", "end 1", "begin 2", "end 2"])
        #expect(store.labels.map(\.title) == ["First", "Echo"])
        subscription.cancel()
    }

    @Test func cancelledOrReleasedSubscriptionReceivesNothingMore() throws {
        let store = try makeStore()
        let kept = Collector<UInt64>(), cancelled = Collector<UInt64>(), released = Collector<UInt64>()
        let keep = store.subscribe(to: .everything) { kept.append($0.seq) }
        let cancel = store.subscribe(to: .everything) { cancelled.append($0.seq) }
        do {
            let temporary = store.subscribe(to: .everything) { released.append($0.seq) }
            try store.add("A")
            _ = temporary
        }
        cancel.cancel()
        #expect(cancel.isCancelled)
        try store.add("B")
        #expect(kept.all == [1, 2] && cancelled.all == [1] && released.all == [1])
        keep.cancel()
    }

    @Test func subscriptionMayCancelItselfFromInsideItsCallback() throws {
        let store = try makeStore()
        let received = Collector<UInt64>()
        let holder = Collector<Subscription>()
        let subscription = store.subscribe(to: .everything) { notification in
            received.append(notification.seq)
            holder.all.forEach { $0.cancel() }
        }
        holder.append(subscription)
        try store.add("A")
        try store.add("B")
        #expect(received.all == [1])
    }

    @Test func subscribingFromASeqOutsideTheLogIsRefused() throws {
        let store = try makeStore()
        try store.add("A")
        let error = #expect(throws: StoreError.self) { try store.subscribe(to: .everything, from: 3) { _ in } }
        #expect(error?.code == .seqOutOfRange(seq: 3, lastSeq: 1))
        #expect(throws: StoreError.self) { try store.changes(for: .membership, from: 0) }
        let live = try store.subscribe(to: .everything, from: 2) { _ in }
        #expect(!live.isCancelled)
    }

    @Test func viewSubscriberFromASeqGetsHistoryInViewCoordinates() throws {
        let store = try makeStore()
        let ring = try store.add("Ring")
        try store.add("Grid", at: 0)
        try store.rename(ring, to: "Tile")
        let received = Collector<ChangeNotification>()
        let subscription = try store.subscribe(to: .view(ViewQuery("ring")), from: 1) { received.append($0) }
        try store.rename(ring, to: "Ring Two")
        #expect(received.all.map(\.seq) == [1, 3, 4])
        #expect(
            received.all.map(\.viewChanges) == [[.inserted(id: ring, at: 0)], [.removed(id: ring, at: 0)], [.inserted(id: ring, at: 0)]])
        subscription.cancel()
    }
}
