import EventLog
import Observation
import Testing

@testable import LabelProjection

/// Registers `withObservationTracking` on every observed property of a list
/// model, its rows and some views, and collects the names of those a step
/// invalidated. Rows are named by id (`names`), so a name survives a rename.
@MainActor
struct Invalidations {
    let fired = Collector<String>()

    /// Watches `labels` (`rows`, `count`, `enabledCount`), each of its rows
    /// (`<name>.title`, `.isEnabled`, `.version`) and each view
    /// (`<view>.rows`, `.visibleCount`, `.query`, `.enabledOnly`).
    init(_ labels: ObservableLabels, views: [String: ObservableView] = [:], names: [LabelID: String]) {
        var reads: [String: () -> Void] = [
            "rows": { _ = labels.rows }, "count": { _ = labels.count }, "enabledCount": { _ = labels.enabledCount }
        ]
        for row in labels.rows {
            let name = names[row.id] ?? "\(row.id)"
            reads["\(name).title"] = { _ = row.title }
            reads["\(name).isEnabled"] = { _ = row.isEnabled }
            reads["\(name).version"] = { _ = row.version }
        }
        for (name, view) in views {
            reads["\(name).rows"] = { _ = view.rows }
            reads["\(name).visibleCount"] = { _ = view.visibleCount }
            reads["\(name).query"] = { _ = view.query }
            reads["\(name).enabledOnly"] = { _ = view.enabledOnly }
        }
        for (name, read) in reads {
            withObservationTracking {
                read()
            } onChange: { [fired] in
                fired.append(name)
            }
        }
    }

    /// The names of the properties invalidated since `init`.
    var all: Set<String> { Set(fired.all) }
}
