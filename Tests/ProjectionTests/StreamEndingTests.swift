import EventLog
import Foundation
import LabelStoreTestSupport
import Testing

@testable import LabelProjection

/// A stream ends only after its consumer has received what it is owed: when
/// the store is closed while the stream catches up, and when the store is
/// released before the stream is read.
@Suite struct StreamEndingTests {
    func collect(_ stream: AsyncStream<ChangeNotification>) async -> [UInt64] {
        var seqs: [UInt64] = []
        for await notification in stream { seqs.append(notification.seq) }
        return seqs
    }

    func withTemporaryDirectory<T>(_ body: (String) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stream-ending-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await body(directory.path)
    }

    func fileOptions(bufferLimit: Int = 10_000) -> LabelStore.Options {
        LabelStore.Options(
            durability: .noSync, createIfMissing: true, clock: StepClock().now,
            snapshots: SnapshotPolicy(everyRecords: 0, everyBytes: 0, onClose: false), streamBufferLimit: bufferLimit)
    }

    @Test func closingTheStoreWhileHistoryStreamsCatchUpLosesNothing() async throws {
        try await withTemporaryDirectory { directory in
            for round in 0..<6 {
                let store = try await LabelStore.open(path: directory + "/round-\(round).log", options: fileOptions())
                // Long titles: a catch-up batch spans several reads of the file, so a close lands inside one.
                let padding = String(repeating: "-", count: 1_100)
                try await store.execute(batch: (0..<1_500).map { .add(title: "label \($0) \(padding)", isEnabled: true, id: nil, at: nil) })
                let streams = try (0..<6).map { _ in try store.changes(for: .everything, from: 1) }
                let tasks = streams.map { stream in Task { await collect(stream) } }
                // Close from a thread of its own: the collecting tasks keep the cooperative pool busy while they catch up.
                let closed = DispatchSemaphore(value: 0)
                Thread {
                    Thread.sleep(forTimeInterval: Double(round * 4) / 1000)
                    store.close()
                    closed.signal()
                }.start()
                defer { closed.wait() }
                for (n, task) in tasks.enumerated() {
                    let seqs = await task.value
                    #expect(seqs == Array(1...1_500), "round \(round), stream \(n): \(seqs.count) of 1,500 notifications")
                }
            }
        }
    }

    @Test func aHistoryStreamOfAReleasedInMemoryStoreDeliversItsHistoryThenEnds() async throws {
        var store: LabelStore? = try makeStore()
        for i in 0..<10 { try await store!.add("label \(i)") }
        let stream = try store!.changes(for: .everything, from: 1)
        let membership = try store!.changes(for: .membership, from: 4)
        store = nil
        #expect(await collect(stream) == Array(1...10))
        #expect(await collect(membership) == Array(4...10))
    }

    @Test func aHistoryStreamOfAReleasedFileStoreDeliversItsHistoryThenEnds() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/labels.log"
            var store: LabelStore? = try await LabelStore.open(path: path, options: fileOptions())
            for i in 0..<10 { try await store!.add("label \(i)") }
            let stream = try store!.changes(for: .everything, from: 1)
            store = nil
            #expect(await collect(stream) == Array(1...10))
            // The released store let go of its log: it opens again.
            let reopened = try await LabelStore.open(path: path, options: fileOptions())
            #expect(reopened.lastSeq == 10)
            await reopened.close()
        }
    }

    @Test func anOverflowedLiveStreamOfAReleasedStoreCatchesUpToTheStoresLastSeq() async throws {
        for file in [false, true] {
            try await withTemporaryDirectory { directory in
                var store: LabelStore? =
                    await file
                    ? try LabelStore.open(path: directory + "/labels.log", options: fileOptions(bufferLimit: 3))
                    : try LabelStore(storage: InMemoryEventLog(), options: .init(clock: StepClock().now, streamBufferLimit: 3))
                let live = store!.changes(for: .everything)
                let view = store!.changes(for: .view(ViewQuery("1")))
                for i in 0..<40 { try await store!.add("label \(i)") }
                #expect(store!.streamOverflows == 2)
                store = nil
                #expect(await collect(live) == Array(1...40), file ? "file log" : "in-memory log")
                #expect(await collect(view) == [2, 11] + Array(12...20) + [22, 32], file ? "file log" : "in-memory log")
            }
        }
    }

    @Test func aStreamOfAClosedStoreThenReleasedStillCatchesUp() async throws {
        var store: LabelStore? = try LabelStore(storage: InMemoryEventLog(), options: .init(clock: StepClock().now, streamBufferLimit: 5))
        let live = store!.changes(for: .everything)
        for i in 0..<30 { try await store!.add("label \(i)") }
        await store!.close()
        store = nil
        #expect(await collect(live) == Array(1...30))
    }

    @Test func catchingUpOverAClosedFileLogContinuesWhereTheLastBatchStopped() async throws {
        try await withTemporaryDirectory { directory in
            let store = try await LabelStore.open(path: directory + "/labels.log", options: fileOptions(bufferLimit: 4))
            try await store.execute(batch: (0..<3_000).map { .add(title: "label \($0)", isEnabled: true, id: nil, at: nil) })
            let streams = try [store.changes(for: .everything, from: 1), store.changes(for: .membership, from: 1_000)]
            await store.close()
            async let first = collect(streams[0])
            async let second = collect(streams[1])
            #expect(await first == Array(1...3_000))
            #expect(await second == Array(1_000...3_000))
            // Batches of two records: reopening the file for each (and scanning it from seq 1) would open about 2,500 readers.
            #expect(store.log.readersOpened.load(ordering: .relaxed) <= 8)
        }
    }
}
