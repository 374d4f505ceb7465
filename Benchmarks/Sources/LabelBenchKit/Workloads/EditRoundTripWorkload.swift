import Dispatch
import EventLog
import Foundation
import LabelProjection
import Synchronization

/// Workload `edit-roundtrip-100k-<row|store>`: the p99 of an edit's round trip
/// as an app sees it, at 100,000 labels with the list model and two
/// `ObservableView`s (issue 44, item 3): from the main actor calling
/// `try await row.toggle()` (`row`: a label visible in both views, edited
/// through its row object, which brings the models up to date before it
/// returns) or `try await store.toggle(id)` (`store`: a label in no view) to
/// the call returning on the main actor. Everything real runs: the hop to
/// the store's commit queue, the commit (an in-memory log, so the disk's sync
/// is not what is measured), the notifications' hand-over to the models'
/// mailbox, the hop back and the main actor's queue, where the models'
/// delivery runs compete with the caller.
///
/// The main thread runs the main actor's queue (`RunLoop.main`) while the
/// edits run, so main-actor jobs are scheduled as in an app. The value is the
/// 99th percentile in µs; the notes give the median, p90 and the maximum.
/// No peer: the target is absolute (p99 ≤ 1 ms).
final class EditRoundTripWorkload: Workload {
    enum Path: String, CaseIterable {
        case row, store
        /// `store.blocking.toggle` of the row's label and `update()`, on the main actor: the same
        /// commit and apply with no thread hop, so `row` minus this is what the hops and queues cost.
        case blocking
    }

    let metric = Metric.microsecondsPerEvent
    let path: Path
    let eventCount: Int
    let peer: String? = nil
    private let labels = 100_000
    private var store: LabelStore?
    private var models: ObservableModelWorkload.Models?
    private var samples: [Double] = []

    static func all(for settings: BenchSettings) -> [EditRoundTripWorkload] {
        Path.allCases.map { EditRoundTripWorkload(path: $0, settings: settings) }
    }

    private init(path: Path, settings: BenchSettings) {
        self.path = path
        eventCount = settings.size(full: 2_000, quick: 500)
    }

    var id: String { "edit-roundtrip-\(labels / 1_000)k-\(path.rawValue)" }
    var title: String {
        switch path {
        case .row: "await row.toggle(), list + 2 views, \(labels.grouped) labels, p99"
        case .store: "await store.toggle, label in no view, list + 2 views, \(labels.grouped) labels, p99"
        case .blocking: "store.blocking.toggle + update(), no hop, list + 2 views, \(labels.grouped) labels, p99"
        }
    }
    var target: Target { Target(maxOurs: 1_000, metric: metric, text: "p99 ≤ 1,000 µs") }
    var notes: [String] {
        guard !samples.isEmpty else { return [] }
        let sorted = samples.sorted()
        func at(_ q: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count) * q))] }
        return [
            String(
                format: "%@: median %.1f µs, p90 %.1f µs, p99 %.1f µs, max %.1f µs over %d edits", id, at(0.5), at(0.9), at(0.99),
                sorted.last!, sorted.count)
        ]
    }

    func prepare(_ context: BenchContext) throws {
        context.progress("    adding \(labels.grouped) labels and building the models (untimed)…")
        let store = try LabelStore(storage: InMemoryEventLog())
        var commands: [LabelCommand] = []
        commands.reserveCapacity(labels)
        // "Label N" enabled; the views are "1" and "7" (enabled only): label 17's row is in both.
        for n in 0..<labels { commands.append(.add(title: "Label \(n)", isEnabled: true)) }
        try store.execute(batch: commands)
        let (models, second) = MainActor.assumeIsolated {
            let list = ObservableLabels(store: store)
            return (
                ObservableModelWorkload.Models(list: list, view: ObservableView(list, query: "1")),
                ObservableModelWorkload.Models(list: list, view: ObservableView(list, query: "7", enabledOnly: true))
            )
        }
        self.models = models
        extraView = second
        self.store = store
    }

    /// The second view, kept alive for the run.
    private var extraView: ObservableModelWorkload.Models?

    func measure(_ side: Side, repetition: Int, context: BenchContext) throws -> Double {
        guard let store, let models else { throw BenchError("\(id): fixture not built") }
        let count = eventCount
        let path = self.path
        // A label in both views (row), and one in none (store): "Label 17" and "Label 2".
        let inViews = try store.id(at: 17), inNone = try store.id(at: 2)
        let result = Mutex<[Double]?>(nil)
        let failure = Mutex<String?>(nil)
        Task { @MainActor in
            var times: [Double] = []
            times.reserveCapacity(count)
            let clock = ContinuousClock()
            guard let row = models.list.row(inViews) else {
                failure.withLock { $0 = "the row of Label 17 is missing" }
                return
            }
            do {
                for _ in 0..<count {
                    let start = clock.now
                    switch path {
                    case .row: try await row.toggle()
                    case .store: try await store.toggle(inNone)
                    case .blocking:
                        try store.blocking.toggle(inViews)
                        models.list.update()
                    }
                    times.append(Statistics.seconds(clock.now - start) * 1e6)
                }
            } catch {
                failure.withLock { $0 = "\(error)" }
            }
            await models.list.caughtUp(to: store.lastSeq)
            result.withLock { $0 = times }
        }
        while result.withLock({ $0 == nil }), failure.withLock({ $0 == nil }) {
            _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.005))
        }
        if let message = failure.withLock({ $0 }) { throw BenchError("\(id): \(message)") }
        let times = result.withLock { $0 } ?? []
        let correct = MainActor.assumeIsolated { models.list.appliedSeq == store.lastSeq && models.list.rows.count == store.count }
        guard correct, times.count == count else { throw BenchError("\(id): the models differ from the store after the run") }
        samples += times
        let sorted = times.sorted()
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))]
    }

    func finish(_ context: BenchContext) {
        extraView = nil
        models = nil
        store = nil
    }
}
