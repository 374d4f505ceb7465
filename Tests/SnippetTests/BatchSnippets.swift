import LabelProjection
import Testing

// The ```swift blocks of LabelProjection.docc/BatchesAndOptimisticConcurrency.md,
// compiled and run in order.

@Suite struct BatchSnippetTests {
    @Test func batchIsAllOrNothingAndAStaleVersionIsRefused() async throws {
        try await withTemporaryDirectory { directory in
            let store = try await LabelStore.open(path: directory + "/labels.labellog", options: .init(createIfMissing: true))
            let ring = try await store.add("Ring")
            try await store.add("Tile")
            let printed = try await Printed.capture {
                // snippet: batches-all-or-nothing
                let amber = LabelID()
                let records = try store.execute(batch: [
                    .add(title: "Amber", id: amber, at: 0),
                    .rename(id: ring, title: "Ring Two"),
                    .setEnabled(id: ring, isEnabled: false),
                    .move(id: amber, to: 1)
                ])
                print(records.map(\.seq))  // consecutive seqs, one per event
                // end snippet
                #expect(store.labels.map(\.title) == ["Ring Two", "Amber", "Tile"])

                refusedBatch(store, ring: ring)
                #expect(store.lastSeq == 6)

                try staleEdit(store, ring: ring, otherWrite: { try store.toggle(ring) })
                #expect(store.labelVersion(ring) == 7)
            }
            #expect(
                printed == [
                    "[3, 4, 5, 6]", "2 labelRemoved", "Ring Two", "changed at seq 7 since version 5: show the new value and ask again"
                ])
            #expect(store.label(ring)?.title == "Ring Two")
            await store.close()
        }
    }
}

/// The optimistic-concurrency block; `otherWrite` is what changes the label
/// between the read and the edit ("… later").
private func staleEdit(_ store: LabelStore, ring: LabelID, otherWrite: () throws -> Void) throws {
    // snippet: batches-optimistic
    let row = store.label(ring)!  // shown to the user, with row.version
    // end snippet
    try otherWrite()
    // snippet: batches-optimistic-edit
    do {
        try store.rename(ring, to: "Ring Four", options: WriteOptions(expectation: .label(ring, version: row.version)))
    } catch {
        if case .staleVersion(let expected, let current) = error.code {
            print("changed at seq \(current) since version \(expected): show the new value and ask again")
        }
    }
    // end snippet
}

/// The refused batch.
private func refusedBatch(_ store: LabelStore, ring: LabelID) {
    // snippet: batches-refused
    do {
        try store.execute(batch: [.rename(id: ring, title: "Ring Three"), .remove(id: ring), .toggle(id: ring)])
    } catch {
        print(error.batchIndex ?? -1, error.code.name)  // 2 labelRemoved: the third command edits the label the second removed
        print(store.label(ring)?.title ?? "-")  // still "Ring Two": nothing of the batch was applied
    }
    // end snippet
}
