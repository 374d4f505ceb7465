import EventLog
import Testing

@testable import LabelProjection

/// `store.blocking`: the synchronous writes, called on purpose from async code.
@MainActor
@Suite struct BlockingWritesTests {
    /// Two writes in one main-actor turn, with no suspension between them: the
    /// list model has applied neither until `update()` (or a later turn), which is
    /// how a stale-row bug is reproduced deterministically.
    @Test func blockingWritesFromAMainActorTestDoNotSuspend() async throws {
        let store = try makeStore(recordRejections: true)
        let labels = ObservableLabels(store: store)
        let a = try store.blocking.add("A")
        try store.blocking.rename(a, to: "A2")
        #expect(store.lastSeq == 2, "both writes are durable and applied when the calls return")
        #expect(labels.appliedSeq == 0, "no suspension: the model's delivery has not run yet")
        labels.update()
        #expect(labels.rows.map(\.title) == ["A2"])
        let b = try store.blocking.add("B", isEnabled: false, at: 0)
        try store.blocking.setEnabled(b, true)
        try store.blocking.toggle(a)
        try store.blocking.move(a, to: 0)
        try store.blocking.reverse()
        try store.blocking.reorder([a, b])
        try store.blocking.execute(.rename(id: b, title: "B2"))
        try store.blocking.execute(batch: [.add(title: "C"), .remove(id: b)])
        try store.blocking.remove(a)
        try store.blocking.append(entries: [LogEntry(.toggled(id: store.labels[0].id, isEnabled: false))])
        #expect(store.labels.map(\.title) == ["C"] && store.labels[0].isEnabled == false)
        let refused = #expect(throws: StoreError.self) { try store.blocking.rename(a, to: "gone") }
        #expect(refused?.kind == .labelRemoved && refused?.auditSeq != nil)
        labels.update()
        #expect(labels.rows.map(\.label) == store.labels && labels.appliedSeq == store.lastSeq)
    }
}
