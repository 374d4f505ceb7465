import LabelProjection
import Testing

// The ```swift blocks of LabelProjection.docc/GettingStarted.md, compiled and
// run in order, as the article tells them.

@Suite struct GettingStartedSnippetTests {
    @Test func opensWritesFromTasksReadsSubscribesTravelsClosesAndReopens() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/labels.labellog"
            let printed = try await Printed.capture {
                // snippet: getting-started-open
                let store = try await LabelStore.open(path: path, options: LabelStore.Options(createIfMissing: true))
                // end snippet
                #expect(store.createdLog)

                // snippet: getting-started-write
                let ring = try await store.add("Ring")  // at the end; returns the new label's stable id
                let tile = try await store.add("Tile", isEnabled: false, at: 0)
                try await store.rename(ring, to: "Ring Two")
                try await store.toggle(tile)  // or setEnabled(tile, true)
                try await store.move(ring, to: 0)  // a position in the full list
                try await store.remove(tile)  // its id stays known: later edits are refused
                // end snippet
                #expect(store.lastSeq == 6)
                #expect(store.labels.map(\.title) == ["Ring Two"])
                #expect(store.removal(of: tile) == 6)

                // snippet: getting-started-tasks
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for title in ["Amber", "Copper", "Slate"] {
                        group.addTask { _ = try await store.add(title) }
                    }
                    try await group.waitForAll()
                }
                // end snippet
                #expect(store.count == 4)
                #expect(store.lastSeq == 9)

                // snippet: getting-started-read
                for label in store.labels {  // [Label], in list order
                    print(label.title, label.isEnabled ? "on" : "off", "version", label.version)
                }
                if let row = store.label(ring) {  // nil once removed
                    print(row.title)
                }
                print(store.count, "labels,", store.enabledCount, "enabled, last seq", store.lastSeq)
                print(store.view(ViewQuery("ring", enabledOnly: true)).map(\.title))  // a filtered view, in list order: ["Ring Two"]
                // end snippet

                // snippet: getting-started-subscribe
                let subscription = store.subscribe(to: .title(ring)) { change in
                    print("seq", change.seq, ":", change.title?.old ?? "-", "→", change.title?.new ?? "-")
                }
                try await store.rename(ring, to: "Ring Three")  // prints: seq 10 : Ring Two → Ring Three
                // end snippet

                // snippet: getting-started-time-travel
                let before = try store.state(atSeq: 2)  // the list right after record 2
                print(before.labels.map(\.title))  // ["Tile", "Ring"]
                let earlier = try store.state(atTime: EventTimestamp.now())  // the list as it was at a time
                print(earlier.count)
                // end snippet

                // snippet: getting-started-close
                subscription.cancel()
                await store.close()

                let reopened = try await LabelStore.open(path: path)  // the same list, folded from the log
                print(reopened.labels.map(\.title))  // ["Ring Three", "Amber", "Copper", "Slate"] (the three in any order)
                await reopened.close()
                // end snippet
                #expect(!reopened.createdLog)
                #expect(reopened.labels.map(\.title).first == "Ring Three")
                #expect(Set(reopened.labels.map(\.title).dropFirst()) == ["Amber", "Copper", "Slate"])
            }
            #expect(printed.first == "Ring Two on version 3")
            #expect(
                printed.dropFirst(4).prefix(4) == [
                    "Ring Two", "4 labels, 4 enabled, last seq 9", #"["Ring Two"]"#, "seq 10 : Ring Two → Ring Three"
                ])
            #expect(printed.dropFirst(8).first == #"["Tile", "Ring"]"#)
            #expect(printed.dropFirst(9).first == "4")
            #expect(printed.last?.hasPrefix(#"["Ring Three", "#) == true)
        }
    }
}
