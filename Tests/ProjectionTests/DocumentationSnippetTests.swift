import EventLog
import Foundation
import LabelProjection
import Testing

/// The README's ten-line snippet, run against a store it names by path (Tests/SnippetTests
/// compiles every documented block verbatim; this keeps the older check of what it does).
@Suite struct DocumentationSnippetTests {
    @Test func readmeSnippetOpensEditsThroughAViewAndHearsOneTitle() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("snippet-\(UUID().uuidString).log").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let printed = Collector<String>()

        let store = try LabelStore.open(path: path, options: .init(createIfMissing: true))
        let ring = try store.add("Ring")
        try store.add("Tile", isEnabled: false)
        let subscription = store.subscribe(to: .title(ring)) { change in
            printed.append("title: \(change.title?.old ?? "-") → \(change.title?.new ?? "-")")
        }
        let rows = store.view(ViewQuery("ring"))
        try store.rename(rows[0].id, to: "Ring Two")

        #expect(printed.all == ["title: Ring → Ring Two"])
        #expect(store.labels.map(\.title) == ["Ring Two", "Tile"])
        subscription.cancel()
        store.close()
    }
}
