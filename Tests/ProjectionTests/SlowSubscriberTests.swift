import EventLog
import Foundation
import LabelStoreTestSupport
import Testing

@testable import LabelProjection

/// Async streams whose consumers fall behind: bounded memory, nothing lost,
/// nothing repeated, and no effect on other subscribers.
@Suite struct SlowSubscriberTests {
    /// Drains `stream` until it ends, returning everything it delivered.
    func collect(_ stream: AsyncStream<ChangeNotification>) async -> [ChangeNotification] {
        var all: [ChangeNotification] = []
        for await notification in stream { all.append(notification) }
        return all
    }

    @Test func aConsumerThatNeverReadsKeepsMemoryBoundedThenReceivesEveryNotificationOnceInOrder() async throws {
        let store = try makeStore()  // default limit: 10,000 per stream
        #expect(store.options.streamBufferLimit == 10_000)
        let everything = store.changes(for: .everything)
        let query = ViewQuery("7")
        let view = store.changes(for: .view(query))
        var ids: [LabelID] = []
        var most = 0
        for i in 0..<50_000 {
            if i % 5 == 4, !ids.isEmpty {
                try await store.toggle(ids[i % ids.count])
            } else if i % 7 == 6, ids.count > 2 {
                let id = ids[(i * 31) % ids.count]
                try await store.move(id, to: store.snapshot.position(of: id) == 0 ? 1 : 0)
            } else {
                await ids.append(try store.add("label \(i)", at: i % (ids.count + 1)))
            }
            if i % 250 == 0 { most = max(most, store.bufferedStreamNotifications) }
        }
        most = max(most, store.bufferedStreamNotifications)
        #expect(store.lastSeq >= 49_000)
        #expect(most <= 2 * 10_000, "two streams hold at most their limit each; they held \(most)")
        #expect(store.streamOverflows >= 2, "both streams must have dropped their buffers")
        await store.close()

        let received = await collect(everything)
        #expect(received.map(\.seq) == Array(1...store.lastSeq), "every record exactly once, in order")
        var rows: [LabelID] = []
        var last: UInt64 = 0
        for notification in await collect(view) {
            #expect(notification.seq > last)
            last = notification.seq
            for change in notification.viewChanges { change.apply(to: &rows) }
        }
        #expect(rows == store.view(query).map(\.id), "the view's row changes, caught up, rebuild its rows")
    }

    @Test func aFastConsumerIsUnaffectedByASlowAndACancelledOne() async throws {
        let store = try LabelStore(storage: InMemoryEventLog(), options: .init(clock: StepClock().now, streamBufferLimit: 300))
        let slow = store.changes(for: .everything)
        let fast = store.changes(for: .everything)
        let cancelled = store.changes(for: .membership)
        let fastTask = Task { await collect(fast) }
        let cancelledTask = Task {
            var n = 0
            for await _ in cancelled {
                n += 1
                if n == 50 { withUnsafeCurrentTask { $0?.cancel() } }
            }
            return n
        }
        for i in 0..<6_000 {
            try await store.add("label \(i)")
            if i == 3_000 { #expect(await cancelledTask.value >= 50) }
        }
        #expect(store.bufferedStreamNotifications <= 2 * 300)
        await store.close()
        #expect(await fastTask.value.map(\.seq) == Array(1...6_000))
        #expect(await collect(slow).map(\.seq) == Array(1...6_000))
    }

    @Test func aLaggingStreamSwitchesBackToLiveWhileWritersKeepWritingWithoutGapOrDuplicate() async throws {
        let store = try LabelStore(storage: InMemoryEventLog(), options: .init(clock: StepClock().now, streamBufferLimit: 40))
        let everything = store.changes(for: .everything)
        let enabled = store.changes(for: .enabledCount)
        let consumer = Task {
            var seqs: [UInt64] = []
            for await notification in everything {
                seqs.append(notification.seq)
                if seqs.count % 97 == 0 { try? await Task.sleep(for: .milliseconds(2)) }  // fall behind now and then
            }
            return seqs
        }
        await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<3 {
                group.addTask {
                    for i in 0..<1_500 {
                        let id = try store.add("w\(writer) \(i)")
                        if i % 4 == 0 { try store.toggle(id) }
                    }
                }
            }
        }
        #expect(store.streamOverflows > 0, "the consumer must have fallen behind at least once")
        await store.close()
        let last = store.lastSeq
        #expect(await consumer.value == Array(1...last), "every seq once, in order, across overflows and switches back to live")
        var counts: [Int] = []
        for await notification in enabled { counts.append(notification.enabledCount.new) }
        #expect(counts.last == store.enabledCount)
        #expect(zip(counts, counts.dropFirst()).allSatisfy { $0 != $1 }, "each notification is a change of the count")
    }

    @Test func aCancelledStreamUnregistersItself() async throws {
        let store = try makeStore()
        let stream = store.changes(for: .everything)
        let task = Task { await collect(stream) }
        while store.subscriberCount == 0 { await Task.yield() }
        try await store.add("A")
        task.cancel()
        _ = await task.value
        #expect(store.subscriberCount == 0)
        try await store.add("B")
    }

    @Test func aHistoryStreamIsFoldedLazilyWithinItsBoundAndJoinsLiveWithoutGap() async throws {
        let store = try LabelStore(storage: InMemoryEventLog(), options: .init(clock: StepClock().now, streamBufferLimit: 100))
        for i in 0..<5_000 { try await store.add("label \(i)") }
        let stream = try store.changes(for: .everything, from: 1)
        var iterator = stream.makeAsyncIterator()
        var seqs: [UInt64] = []
        for _ in 0..<2_500 {
            guard let notification = await iterator.next() else { break }
            seqs.append(notification.seq)
            #expect(store.bufferedStreamNotifications <= 100)
        }
        for i in 0..<300 { try await store.add("live \(i)") }
        await store.close()
        while let notification = await iterator.next() { seqs.append(notification.seq) }
        #expect(seqs == Array(1...5_300))
    }

    @Test func aLaggingStreamOfAClosedFileStoreCatchesUpFromTheFile() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("slow-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let options = LabelStore.Options(
            durability: .noSync, createIfMissing: true, clock: StepClock().now,
            snapshots: SnapshotPolicy(everyRecords: 700, everyBytes: 0, onClose: false), streamBufferLimit: 50)
        let store = try await LabelStore.open(path: directory.path + "/labels.log", options: options)
        let stream = store.changes(for: .membership)
        for i in 0..<2_000 { try await store.add("label \(i)") }
        #expect(store.streamOverflows == 1 && store.bufferedStreamNotifications == 0)
        await store.close()
        #expect(await collect(stream).map(\.seq) == Array(1...2_000))
    }
}
