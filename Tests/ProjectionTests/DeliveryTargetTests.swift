import Dispatch
import EventLog
import Foundation
import Synchronization
import Testing

@testable import LabelProjection

/// An actor a subscription delivers to (``DeliveryTarget/actor(_:)``).
actor Auditor {
    /// The seqs recorded (readable without hopping to the actor, for polling).
    let seqs = Collector<UInt64>()
    /// Handler calls that were given another actor than this one (must stay 0).
    var foreign = 0

    func record(_ seq: UInt64, receivedActor: Auditor) {
        if receivedActor !== self { foreign += 1 }
        seqs.append(seq)
    }
}

/// Where callbacks run (``DeliveryTarget``): the main actor, an actor, a
/// dispatch queue, the writer's thread — each in seq order, one at a time,
/// each notification once, with cancellation and store endings as documented.
@Suite struct DeliveryTargetTests {
    /// Adds 100 labels per thread from 4 threads at once, toggling every 4th.
    static func writeFromFourThreads(_ store: LabelStore) async {
        await onThreads(4) { writer in
            for i in 0..<100 {
                let id = try! store.add("\(writer).\(i)")
                if i % 4 == 0 { try! store.toggle(id) }
            }
        }
    }

    @Test func mainActorDeliveryRunsOnTheMainThreadInSeqOrderForWritesFromSeveralThreads() async throws {
        let store = try makeStore()
        let seqs = Collector<UInt64>()
        let inside = Atomic<Bool>(false)
        let overlaps = Atomic<Int>(0), offMain = Atomic<Int>(0), stale = Atomic<Int>(0)
        let subscription = store.subscribe(to: .everything, on: .mainActor) { notification in
            MainActor.assertIsolated()
            if inside.exchange(true, ordering: .acquiring) { overlaps.add(1, ordering: .relaxed) }
            if !MainQueue.isCurrent { offMain.add(1, ordering: .relaxed) }
            // Applied before delivery: the store is at least as new as the notification.
            if store.lastSeq < notification.seq { stale.add(1, ordering: .relaxed) }
            seqs.append(notification.seq)
            inside.store(false, ordering: .releasing)
        }
        await Self.writeFromFourThreads(store)
        let last = store.lastSeq
        #expect(last == 500)
        #expect(await eventually { seqs.count >= Int(last) })
        #expect(seqs.all == Array(1...last), "every seq once, in order")
        #expect(overlaps.load(ordering: .relaxed) == 0)
        #expect(offMain.load(ordering: .relaxed) == 0, "main-actor handlers run on the main queue, the main actor's executor")
        #expect(stale.load(ordering: .relaxed) == 0)
        subscription.cancel()
    }

    @MainActor
    @Test func aWriterOnTheMainActorWithAMainActorSubscriberDoesNotDeadlockAndIsNotCalledInsideTheWrite() async throws {
        #expect(MainQueue.isCurrent, "a main-actor test body runs on the main queue (here, on Linux too)")
        let store = try makeStore()
        let log = MainActorLog<UInt64>()
        let subscription = store.subscribe(to: .everything, on: .mainActor) { notification in
            MainActor.assertIsolated()
            log.call(notification.seq)
        }
        // The synchronous writes, made on the main actor (an async write suspends, letting the handler run between writes).
        func writeSynchronously() throws { for i in 0..<300 { try store.add("\(i)") } }  // 300: more than one run's batch of 128
        try writeSynchronously()
        #expect(log.all.isEmpty, "a main-actor handler never runs inside the write, even one made on the main actor")
        try await store.add("async")  // an async write on the main actor does not deadlock either
        #expect(await eventually { log.count >= 301 })
        #expect(log.all == Array(1...301))
        #expect(log.overlaps == 0)
        subscription.cancel()
    }

    @MainActor
    @Test func aMainActorHandlerThatWritesToTheStoreDoesNotDeadlockAndItsWriteFollowsTheCurrentCall() async throws {
        let store = try makeStore()
        let log = MainActorLog<String>()
        let subscription = store.subscribe(to: .membership, on: .mainActor) { notification in
            log.append("begin \(notification.seq)")
            if notification.seq == 1 {
                _ = try? store.add("Echo")
                log.append("wrote; store is at seq \(store.lastSeq)")
            }
            log.append("end \(notification.seq)")
        }
        try await store.add("First")
        #expect(await eventually { log.count >= 5 })
        #expect(log.all == ["begin 1", "wrote; store is at seq 2", "end 1", "begin 2", "end 2"])
        #expect(store.labels.map(\.title) == ["First", "Echo"])
        subscription.cancel()
    }

    @Test func actorDeliveryRunsIsolatedToThatActorInSeqOrder() async throws {
        let store = try makeStore()
        let auditor = Auditor()
        let subscription = store.subscribe(to: .everything, on: .actor(auditor)) { isolatedAuditor, notification in
            isolatedAuditor.assertIsolated()
            isolatedAuditor.record(notification.seq, receivedActor: auditor)  // synchronous: no await
        }
        await Self.writeFromFourThreads(store)
        let last = store.lastSeq
        #expect(await eventually { auditor.seqs.count >= Int(last) })
        #expect(auditor.seqs.all == Array(1...last))
        #expect(await auditor.foreign == 0, "the handler receives the actor it was given")
        subscription.cancel()
    }

    @Test func queueDeliveryIsSerializedEvenOnAConcurrentQueue() async throws {
        let store = try makeStore()
        let queue = DispatchQueue(label: "delivery-test", attributes: .concurrent)
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 7)
        let inside = Atomic<Bool>(false)
        let overlaps = Atomic<Int>(0), offQueue = Atomic<Int>(0)
        let seqs = Collector<UInt64>()
        let subscription = store.subscribe(to: .everything, on: .queue(queue)) { notification in
            if inside.exchange(true, ordering: .acquiring) { overlaps.add(1, ordering: .relaxed) }
            if DispatchQueue.getSpecific(key: key) != 7 { offQueue.add(1, ordering: .relaxed) }
            var spin = notification.seq  // widen the window in which an overlap would show
            for _ in 0..<2_000 { spin = spin &* 6_364_136_223_846_793_005 &+ 1 }
            if spin == 0 { seqs.append(0) }
            seqs.append(notification.seq)
            inside.store(false, ordering: .releasing)
        }
        await Self.writeFromFourThreads(store)
        let last = store.lastSeq
        #expect(await eventually { seqs.count >= Int(last) })
        #expect(seqs.all == Array(1...last))
        #expect(overlaps.load(ordering: .relaxed) == 0, "one call at a time on a concurrent queue")
        #expect(offQueue.load(ordering: .relaxed) == 0, "calls run on the given queue")
        subscription.cancel()
    }

    @Test func writerTargetIsTodaysBehaviourTheHandlerRunsBeforeTheWriteReturns() throws {
        let store = try makeStore()
        let seqs = Collector<UInt64>()
        let subscription = store.subscribe(to: .everything, on: .writer) { seqs.append($0.seq) }
        try store.add("A")
        #expect(seqs.all == [1])
        try store.add("B")
        #expect(seqs.all == [1, 2])
        subscription.cancel()
        let targets: [String] = [
            DeliveryTarget.writer.description, DeliveryTarget.mainActor.description,
            DeliveryTarget.queue(DispatchQueue(label: "q")).description, DeliveryTarget.actor(Auditor()).description
        ]
        #expect(targets == ["writer", "mainActor", "queue(q)", "actor(Auditor)"])
    }

    @MainActor
    @Test func cancellingOnTheMainActorMidStreamDiscardsEverythingAlreadyQueued() async throws {
        let store = try makeStore()
        let log = MainActorLog<UInt64>()
        let holder = MainActorLog<Subscription>()
        let subscription = store.subscribe(to: .everything, on: .mainActor) { notification in
            log.append(notification.seq)
            if notification.seq == 10 { holder.all.forEach { $0.cancel() } }
        }
        holder.append(subscription)
        let sentinel = MainActorLog<UInt64>()
        let keep = store.subscribe(to: .everything, on: .mainActor) { sentinel.append($0.seq) }
        for i in 0..<100 { try await store.add("\(i)") }  // all 100 queued to the main actor before any runs
        #expect(await eventually { sentinel.count >= 100 && log.count >= 10 })
        #expect(subscription.isCancelled && store.subscriberCount == 1)
        for i in 0..<10 { try await store.add("after \(i)") }
        #expect(await eventually { sentinel.count >= 110 })
        #expect(log.all == Array(1...10), "nothing runs after a cancel made on the target, not even what was queued")
        keep.cancel()
    }

    @Test func cancellingFromAnotherThreadMidStreamLetsAtMostTheRunningCallFinish() async throws {
        let store = try makeStore()
        let seqs = Collector<UInt64>()
        let subscription = store.subscribe(to: .everything, on: .mainActor) { seqs.append($0.seq) }
        let sentinel = Collector<UInt64>()
        let keep = store.subscribe(to: .everything, on: .mainActor) { sentinel.append($0.seq) }
        let countAtCancel = Atomic<Int>(-1)
        await onThreads(2) { thread in
            if thread == 0 {
                for i in 0..<1_000 { try! store.add("\(i)") }
            } else {
                while seqs.count < 50 { Thread.sleep(forTimeInterval: 0.000_1) }
                subscription.cancel()
                countAtCancel.store(seqs.count, ordering: .relaxed)
            }
        }
        #expect(await eventually { sentinel.count >= 1_000 })
        let atCancel = countAtCancel.load(ordering: .relaxed)
        #expect(atCancel >= 50)
        #expect(seqs.count <= atCancel + 1, "after cancel() returns, only a call already running may finish")
        #expect(seqs.all == Array(1...UInt64(seqs.count)), "what did run ran in order")
        #expect(store.subscriberCount == 1)
        keep.cancel()
    }

    @Test func subscribingFromASeqOnTheMainActorReplaysHistoryThenContinuesWithoutGapOrDuplicate() async throws {
        let store = try makeStore()
        for i in 0..<40 { try await store.add("seed \(i)") }
        let seqs = Collector<UInt64>()
        let offMain = Collector<UInt64>()  // seqs delivered off the main thread
        let subscriptions = Collector<Subscription>()
        await onThreads(2) { thread in
            if thread == 0 {
                for i in 0..<200 { try! store.add("live \(i)") }
            } else {
                let subscription = try! store.subscribe(to: .everything, from: 5, on: .mainActor) { notification in
                    if !MainQueue.isCurrent { offMain.append(notification.seq) }
                    seqs.append(notification.seq)
                }
                subscriptions.append(subscription)
            }
        }
        let last = store.lastSeq
        #expect(await eventually { seqs.count >= Int(last) - 4 })
        #expect(seqs.all == Array(5...last))
        #expect(offMain.all.isEmpty)
        #expect(throws: StoreError.self) { try store.subscribe(to: .everything, from: last + 2, on: .mainActor) { _ in } }
        subscriptions.all.forEach { $0.cancel() }
    }

    @MainActor
    @Test func closingTheStoreRunsWhatWasAlreadyHandedToTheTargetThenEnds() async throws {
        let store = try makeStore()
        let log = MainActorLog<UInt64>()
        let subscription = store.subscribe(to: .everything, on: .mainActor) { log.append($0.seq) }
        for i in 0..<50 { try await store.add("\(i)") }  // handed to the main actor, not run yet
        await store.close()
        #expect(store.subscriberCount == 0)
        #expect(await eventually { log.count >= 50 })
        #expect(log.all == Array(1...50), "records applied before the close are still delivered")
        #expect(!subscription.isCancelled, "closing ends the subscription without cancelling it")
        let refused = store.subscribe(to: .everything, on: .mainActor) { _ in }
        #expect(refused.isCancelled, "a closed store hands back a cancelled subscription")
    }

    @Test func releasingTheStoreEndsTargetedSubscriptionsAndLetsGoOfTheHandler() async throws {
        weak var weakStore: LabelStore?
        weak var weakToken: Token?
        let seqs = Collector<UInt64>()
        var subscription: Subscription?
        do {
            let store = try makeStore()
            let token = Token()
            weakStore = store
            weakToken = token
            subscription = store.subscribe(to: .everything, on: .queue(DispatchQueue(label: "release-test"))) { notification in
                _ = token
                seqs.append(notification.seq)
            }
            for i in 0..<20 { try await store.add("\(i)") }
        }
        #expect(weakStore == nil, "a targeted subscription does not keep the store alive")
        #expect(await eventually { seqs.count >= 20 })
        #expect(seqs.all == Array(1...20))
        #expect(await eventually { weakToken == nil }, "once it has run what it held, the subscription lets go of its handler")
        subscription?.cancel()
        subscription = nil
    }
}
