import LabelProjection

/// The seeds' filter screen, written as an app would write it: the public API
/// only (no `@testable`), from the README, docs/PROJECTION-API.md and the DocC
/// catalog. A list model, one filtered view with a query and an "enabled only"
/// switch, and the row actions a screen offers; every edit goes through a row
/// (by id), never through a position on the screen.
@MainActor
final class FilterScreen {
    let store: LabelStore
    let labels: ObservableLabels
    let view: ObservableView
    /// The message the screen last showed for a refused edit.
    private(set) var banner: String?

    init(store: LabelStore) {
        self.store = store
        labels = ObservableLabels(store: store)
        view = ObservableView(labels)
    }

    /// What the screen lists: the view's rows as (title, enabled).
    var shown: [(title: String, isEnabled: Bool)] { view.rows.map { ($0.title, $0.isEnabled) } }

    func search(_ text: String) { view.query = text }
    func enabledOnly(_ on: Bool) { view.enabledOnly = on }

    /// Renames the row at `row` of the screen (resolved to its label's id now).
    func rename(row: Int, to title: String) async { await act { try await self.view.rows[row].rename(to: title) } }
    func toggle(row: Int) async { await act { try await self.view.rows[row].toggle() } }
    func remove(row: Int) async { await act { try await self.view.rows[row].remove() } }
    func move(row: Int, toListPosition position: Int) async { await act { try await self.view.rows[row].move(to: position) } }

    /// Runs an edit, showing its refusal (the store's message) instead of throwing, as a screen does.
    private func act(_ edit: () async throws -> Void) async {
        do {
            try await edit()
            banner = nil
        } catch let error as StoreError {
            banner = error.message
        } catch {
            banner = "\(error)"
        }
    }
}
