import LabelProjection
import Testing

#if canImport(SwiftUI)
import SwiftUI
#endif

// The ```swift blocks of LabelProjection.docc/BuildingALabelEditor.md. The
// SwiftUI screens compile where SwiftUI exists; the model code they run is
// the first block, run here on every platform.

/// The article's model code, run on the main actor; returns what it printed's values.
@MainActor
private func labelEditorModels(store: LabelStore) async throws -> (Int, Int, Int) {
    // snippet: label-editor-models
    let labels = ObservableLabels(store: store)  // the list, on the main actor
    let filter = ObservableView(labels, query: "ring")  // a filter screen's rows
    let ring = filter.rows[0]  // the same object as labels.row(ring.id)
    try await ring.rename(to: "Ring Two")  // addressed by id; both models show it on return
    filter.enabledOnly = true  // re-filters at once
    try await ring.setEnabled(false)  // leaves the filter; stays in the list, disabled
    print(filter.rows.count, labels.count, labels.enabledCount)  // 0 2 1
    // end snippet
    #expect(labels.row(ring.id) === ring && ring.title == "Ring Two")
    return (filter.rows.count, labels.count, labels.enabledCount)
}

#if canImport(SwiftUI)
// snippet: label-editor-list
struct LabelListScreen: View {
    let labels: ObservableLabels  // made once, on the main actor

    var body: some View {
        List(labels.rows) { row in LabelRow(row: row) }  // re-renders on add, remove, move
            .toolbar { EnabledCount(labels: labels) }
    }
}

struct LabelRow: View {
    let row: ObservableLabel

    var body: some View {
        HStack {
            Text(row.title)  // a rename of this label only
            Spacer()
            Button(row.isEnabled ? "On" : "Off") {  // a toggle of this label only
                Task { try? await row.toggle() }  // addressed by row.id, wherever it is now
            }
        }
    }
}
// end snippet

// snippet: label-editor-filter
struct FilterScreen: View {
    @State var filter: ObservableView  // ObservableView(labels), sharing the list's rows
    @State private var message: String?

    var body: some View {
        List {
            Toggle("Enabled only", isOn: $filter.enabledOnly)
            ForEach(filter.rows) { row in
                LabelRow(row: row)
                    .swipeActions {
                        Button("Remove", role: .destructive) { Task { await remove(row) } }
                    }
            }
        }
        .searchable(text: $filter.query)  // re-filters; rows that stay keep their identity
        .overlay(alignment: .bottom) { if let message { Text(message) } }
    }

    func remove(_ row: ObservableLabel) async {
        do {
            try await row.remove()
        } catch  where error.kind == .labelRemoved {
            message = error.message  // "Edit skipped: label was removed. …"
        } catch {
            message = error.message
        }
    }
}
// end snippet

// snippet: label-editor-count
struct EnabledCount: View {
    let labels: ObservableLabels

    var body: some View {
        Text("\(labels.enabledCount) of \(labels.count) enabled")
    }
}
// end snippet
#endif

@Suite struct LabelEditorSnippetTests {
    @Test func theEditorsModelCodeRunsAsTheArticleSays() async throws {
        let store = try LabelStore(storage: InMemoryEventLog())
        try await store.add("Grid")
        try await store.add("Ring")
        let printed = try await Printed.capture {
            let counts = try await labelEditorModels(store: store)
            #expect(counts == (0, 2, 1))
        }
        #expect(printed == ["0 2 1"])
        #expect(store.labels.map(\.title) == ["Grid", "Ring Two"])
        #expect(store.labels.map(\.isEnabled) == [true, false])
    }
}
