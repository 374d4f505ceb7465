import EventLog
import LabelProjection

/// Workload `observe-100k-<kind>-<list|view>`: the main-actor time of
/// applying one record to the observable models (issue 30), at 100,000 labels.
///
/// One store (in memory) of 100,000 labels `Label N`, and on it an
/// `ObservableLabels` (`list`) or an `ObservableLabels` with one
/// `ObservableView` of query `1` (`view`, about 40% of the labels visible),
/// built once in `prepare`. Each measurement makes records of its kind with
/// the store's commands (untimed: the write, its fold and its hand-over to the
/// models' mailbox) and times only `update()` after each — the main-actor work
/// of applying the record's change description to the rows (and the view's
/// row changes). Kinds: a toggle and a rename (property edits; target ≤ 5 µs),
/// an add, a remove and a move at random positions (membership edits;
/// target ≤ 50 µs).
///
/// The peer is what an app does without per-record changes: rebuilding the
/// rows from the store's fold after each record (`reload()`, which keeps row
/// objects and assigns only what differs — O(n) per record), over fewer
/// records (it costs milliseconds each).
///
/// It runs on the main thread (labelbench's synchronous `main`), so it
/// assumes main-actor isolation; the models' scheduled main-actor runs never
/// get a turn, and `update()` does all the applying.
final class ObservableModelWorkload: Workload {
    enum Kind: String, CaseIterable {
        case toggled, renamed, added, removed, moved
    }

    let metric = Metric.microsecondsPerEvent
    let kind: Kind
    let withView: Bool
    let eventCount: Int
    let peer: String? = "reload() per record"
    private let labels: Int
    private let peerEvents: Int
    private let seed: UInt64
    private var rng: SeededGenerator
    private var store: LabelStore?
    private var state: Models?
    private var made = 0

    /// The models, main-actor objects kept by a non-isolated workload.
    final class Models: Sendable {
        let list: ObservableLabels
        let view: ObservableView?
        init(list: ObservableLabels, view: ObservableView?) {
            self.list = list
            self.view = view
        }
    }

    static func all(for settings: BenchSettings) -> [ObservableModelWorkload] {
        Kind.allCases.flatMap { kind in [false, true].map { ObservableModelWorkload(kind: kind, withView: $0, settings: settings) } }
    }

    private init(kind: Kind, withView: Bool, settings: BenchSettings) {
        self.kind = kind
        self.withView = withView
        labels = 100_000
        eventCount = settings.size(full: 2_000, quick: 500)
        peerEvents = settings.size(full: 20, quick: 10)
        seed = settings.seed
        rng = SeededGenerator(seed: settings.seed ^ 0x0B5E)
    }

    var id: String { "observe-\(labels / 1_000)k-\(kind.rawValue)-\(withView ? "view" : "list")" }
    var title: String {
        "main-actor apply, \(kind.rawValue), \(withView ? "list + view" : "list model"), \(labels.grouped) labels"
    }
    var target: Target {
        let bound: Double = kind == .toggled || kind == .renamed ? 5 : 50
        return Target(maxOurs: bound, metric: metric, text: "≤ \(Int(bound)) µs/ev")
    }

    func prepare(_ context: BenchContext) throws {
        context.progress("    adding \(labels.grouped) labels and building the models (untimed)…")
        let store = try LabelStore(storage: InMemoryEventLog())
        var commands: [LabelCommand] = []
        commands.reserveCapacity(labels)
        for n in 0..<labels { commands.append(.add(title: "Label \(n)", isEnabled: n.isMultiple(of: 2))) }
        try store.execute(batch: commands)
        let withView = self.withView
        state = MainActor.assumeIsolated {
            let list = ObservableLabels(store: store)
            return Models(list: list, view: withView ? ObservableView(list, query: "1") : nil)
        }
        self.store = store
    }

    /// Writes one record of the workload's kind (untimed).
    private func write(_ store: LabelStore) throws {
        let count = store.count
        let id = try store.id(at: rng.below(count))
        made += 1
        switch kind {
        case .toggled: try store.toggle(id)
        case .renamed: try store.rename(id, to: "Label \(made) renamed")
        case .added: try store.add("Label \(made) added", at: rng.below(count + 1))
        case .removed: try store.remove(id)
        case .moved: try store.move(id, to: rng.below(count))
        }
    }

    func measure(_ side: Side, repetition: Int, context: BenchContext) throws -> Double {
        guard let store, let state else { throw BenchError("\(id): fixture not built") }
        let n = side == .ours ? eventCount : peerEvents
        var total = Duration.zero
        for _ in 0..<n {
            try write(store)
            total += MainActor.assumeIsolated {
                Statistics.time { side == .ours ? state.list.update() : state.list.reload() }
            }
        }
        let correct = MainActor.assumeIsolated {
            state.list.appliedSeq == store.lastSeq && state.list.count == store.count
                && (state.view.map { $0.visibleCount == store.view($0.viewQuery).count } ?? true)
        }
        guard correct else { throw BenchError("\(id): the models differ from the store after the batch") }
        return Statistics.seconds(total) * 1e6 / Double(n)
    }

    func finish(_ context: BenchContext) {
        state = nil
        store = nil
    }
}
