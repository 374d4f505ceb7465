import Dispatch
import LabelProjection
import Synchronization
import Testing

// The ```swift block of docs/PROJECTION-API.md, compiled and run.

/// A main-actor view's state (a table cell, in an app).
@MainActor private final class Cell {
    var title = ""
}

/// An actor that indexes records.
private actor RecordIndex {
    private(set) var seqs: [UInt64] = []

    func add(_ record: EventRecord) { seqs.append(record.seq) }
}

/// What a queue handler hands seqs to (thread-safe).
private final class Uploader: Sendable {
    private let queued = Mutex<[UInt64]>([])

    func enqueue(_ seq: UInt64) { queued.withLock { $0.append(seq) } }
    var seqs: [UInt64] { queued.withLock { $0 } }
}

@MainActor
private func subscribeOnEachTarget(
    _ store: LabelStore, id: LabelID, cell: Cell, index: RecordIndex, uploader: Uploader
) throws -> [Subscription] {
    // snippet: projection-api-targets
    // A main-actor row: the compiler checks that the handler touches only main-actor state.
    let row = store.subscribe(to: .label(id), on: .mainActor) { change in
        cell.title = change.label.new?.title ?? ""
    }
    // History, then live, isolated to an actor: the handler gets `index` isolated, so no await.
    let indexing = try store.subscribe(to: .everything, from: 1, on: .actor(index)) { index, change in
        index.add(change.record)
    }
    // A background queue: one call at a time, even on a concurrent queue.
    let upload = store.subscribe(to: .membership, on: .queue(.global(qos: .utility))) { change in
        uploader.enqueue(change.seq)
    }
    // end snippet
    return [row, indexing, upload]
}

@Suite struct ProjectionAPISnippetTests {
    @Test func mainActorActorAndQueueTargetsEachDeliverTheirRecords() async throws {
        let store = try LabelStore(storage: InMemoryEventLog())
        let id = try await store.add("Ring")  // seq 1, before the subscriptions: only the history replay sees it
        let cell = Cell()
        let index = RecordIndex()
        let uploader = Uploader()
        let subscriptions = try await subscribeOnEachTarget(store, id: id, cell: cell, index: index, uploader: uploader)
        try await store.rename(id, to: "Ring Two")  // seq 2: the label
        try await store.add("Tile")  // seq 3: membership
        var waited = 0
        while waited < 10_000 {
            let caughtUp = await (cell.title, index.seqs.count, uploader.seqs.count)
            if caughtUp == ("Ring Two", 3, 1) { break }
            try await Task.sleep(for: .milliseconds(1))
            waited += 1
        }
        for subscription in subscriptions { subscription.cancel() }
        #expect(await cell.title == "Ring Two")
        #expect(await index.seqs == [1, 2, 3])
        #expect(uploader.seqs == [3])
        await store.close()
    }
}
