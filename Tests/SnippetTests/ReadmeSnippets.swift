import LabelProjection
import Testing

#if canImport(SwiftUI)
import SwiftUI
#endif

// The ```swift blocks of README.md, compiled, between `// snippet:` and
// `// end snippet` (DocumentedSnippetTests checks that each block is one of
// these regions, and each region is a block). The functions around them
// supply what a block uses but does not declare.

/// README.md, "The library in ten lines".
private func readmeTenLines(path: String) throws -> (LabelStore, Subscription) {
    // snippet: readme-ten-lines
    let store = try LabelStore.open(path: path, options: .init(createIfMissing: true))
    let ring = try store.add("Ring")  // the new label's stable id
    try store.add("Tile", isEnabled: false)

    // Subscribe to one label's title: told only when *that* changes, after it is applied.
    let subscription = store.subscribe(to: .title(ring)) { change in
        print("title:", change.title?.old ?? "-", "→", change.title?.new ?? "-")
    }

    // Edit through a filtered view: rows carry ids; writes go to ids, never to view positions.
    let rows = store.view(ViewQuery("ring"))  // [Label], in list order
    try store.rename(rows[0].id, to: "Ring Two")  // prints: title: Ring → Ring Two
    // end snippet
    return (store, subscription)
}

/// README.md, the block after "More:".
private func readmeMore(store: LabelStore, staleID: LabelID, id: LabelID, row: Label) async throws {
    // snippet: readme-more
    // A stale row: its label was removed meanwhile.
    do { try await store.toggle(staleID) } catch {
        print(error.message)  // "Edit skipped: label was removed. (removed at seq 12; label …)"
    }

    // Optimistic concurrency: refuse the write if the row changed since it was read.
    try await store.rename(id, to: "Grid Two", options: WriteOptions(expectation: .label(id, version: row.version)))

    // Time travel: the list as it was at seq 40.
    let then = try store.state(atSeq: 40)
    print(then.labels.map(\.title))

    // A lossless async stream with history: replay from seq 1, then continue live (until the store closes).
    for await change in try store.changes(for: .membership, from: 1) { print(change.seq, change.record.event) }
    // end snippet
}

#if canImport(SwiftUI)
// snippet: readme-swiftui
// SwiftUI (Apple platforms): rows re-render only when a property they read changes.
struct LabelsView: View {
    @State var filter: ObservableView  // ObservableView(ObservableLabels(store: store)), on the main actor

    var body: some View {
        List(filter.rows) { row in  // the list model's row objects, kept current by themselves
            Button(row.title) { Task { try? await row.toggle() } }  // edits go to row.id, never to a position
        }
        .searchable(text: $filter.query)  // re-filters; a row that stops matching leaves, stays in the list
    }
}
// end snippet
#endif

@Suite struct ReadmeSnippetTests {
    @Test func tenLinesOpenWriteSubscribeAndEditThroughAView() async throws {
        try await withTemporaryDirectory { directory in
            var opened: (store: LabelStore, subscription: Subscription)?
            let printed = try await Printed.capture { opened = try readmeTenLines(path: directory + "/labels.labellog") }
            let (store, subscription) = try #require(opened)
            #expect(printed == ["title: Ring → Ring Two"])
            #expect(store.labels.map(\.title) == ["Ring Two", "Tile"])
            #expect(store.labels.map(\.isEnabled) == [true, false])
            subscription.cancel()
            await store.close()
        }
    }

    @Test func moreRefusesAStaleRowChecksAVersionTravelsAndStreamsHistory() async throws {
        try await withTemporaryDirectory { directory in
            let store = try await LabelStore.open(path: directory + "/labels.labellog", options: .init(createIfMissing: true))
            let grid = try await store.add("Grid")  // seq 1
            let tile = try await store.add("Tile")  // seq 2
            try await store.remove(tile)  // seq 3
            for _ in 0..<40 { try await store.toggle(grid) }  // seqs 4...43
            let row = try #require(store.label(grid))

            let printed = try await Printed.capture {
                let reader = Task { try await readmeMore(store: store, staleID: tile, id: grid, row: row) }
                // The stream ends when the store closes; close it once the stream is registered.
                var waited = 0
                while store.subscriberCount == 0, waited < 10_000 {
                    try await Task.sleep(for: .milliseconds(1))
                    waited += 1
                }
                await store.close()
                try await reader.value
            }
            #expect(printed.count == 5)
            #expect(printed.first?.hasPrefix("Edit skipped: label was removed. (removed at seq 3; label ") == true)
            #expect(printed.dropFirst().first == #"["Grid"]"#)
            // Membership: the two adds and the removal (toggles and renames do not change membership).
            #expect(printed.dropFirst(2).map { $0.prefix(2) } == ["1 ", "2 ", "3 "])
            #expect(store.label(grid)?.title == "Grid Two")
        }
    }
}
