import EventLog
import LabelProjection

/// Workload `naive-100k`: the fold of `LabelList` against the naive projection
/// a developer might write first — a plain `[Label]` where every event finds
/// its label with `firstIndex(where:)` (O(n) per event).
///
/// The same consistent batch of records (45% renamed, 45% toggled, 5% moved,
/// 2.5% added, 2.5% removed), drawn once in `prepare` on a list of 100,000
/// labels, is applied by both sides to the same starting
/// state, built untimed for every measurement (ours: a fresh fold of the
/// adds; the array: a unique copy). Timed: applying the batch — ours with
/// `LabelList.replay(_:)`, the fold with every check of `apply(_:)` but no
/// change description, since the naive array describes no changes either. Afterwards the
/// two projections must hold equal labels. Metric: µs per event; target:
/// ours ≥ 100× faster.
final class NaiveArrayWorkload: Workload {
    let metric = Metric.microsecondsPerEvent
    let target = Target(maxRatio: 0.01, metric: .microsecondsPerEvent, text: "≥ 100× faster")
    let peer: String? = "[Label] + firstIndex"
    let eventCount: Int
    private let labels: Int
    private let seed: UInt64
    private var records: [EventRecord] = []
    private var baseArray: [Label] = []
    private var expected: [Label] = []

    init(settings: BenchSettings) {
        labels = 100_000
        eventCount = settings.size(full: 10_000, quick: 5_000)
        seed = settings.seed
    }

    var id: String { "naive-\(labels / 1_000)k" }
    var title: String { "rename/toggle mix on \(labels.grouped) labels, \(eventCount.grouped) events" }

    func prepare(_ context: BenchContext) throws {
        var shadow = try ProjectionFixtures.buildList(labels: labels, seed: seed)
        baseArray = shadow.labels
        var rng = SeededGenerator(seed: seed ^ 0x4A1E)
        records = []
        for _ in 0..<eventCount {
            let roll = rng.below(1_000)
            let kind: ProjectionFixtures.Kind =
                roll < 450 ? .renamed : roll < 900 ? .toggled : roll < 950 ? .moved : roll < 975 ? .added : .removed
            records.append(try ProjectionFixtures.nextRecord(kind, on: &shadow, rng: &rng))
        }
        expected = shadow.labels
    }

    func measure(_ side: Side, repetition: Int, context: BenchContext) throws -> Double {
        let elapsed: Duration
        let result: [Label]
        switch side {
        case .ours:
            var list = try ProjectionFixtures.buildList(labels: labels, seed: seed)
            elapsed = try Statistics.time {
                for record in records { try list.replay(record) }
            }
            result = list.labels
        case .sqlite:
            var naive = NaiveLabelArray(labels: baseArray)
            elapsed = try Statistics.time {
                for record in records { try naive.apply(record) }
            }
            result = naive.labels
        }
        guard result == expected else {
            throw BenchError("\(id): \(side == .ours ? "ours" : "the naive array") folded to a different list")
        }
        return Statistics.seconds(elapsed) * 1e6 / Double(eventCount)
    }

    func finish(_ context: BenchContext) {
        records = []
        baseArray = []
        expected = []
    }
}

/// The naive projection: an array of labels, searched linearly by id. It
/// checks what `LabelList.apply` checks, so both do the same work per event.
struct NaiveLabelArray {
    private(set) var labels: [Label]
    private var lastSeq: UInt64

    /// A unique copy of `labels` (so no copy-on-write happens while timing), at the seq of their count.
    init(labels: [Label]) {
        var copy = labels
        copy.reserveCapacity(labels.count + 1_024)
        self.labels = copy
        self.lastSeq = labels.map(\.version).max() ?? 0
    }

    mutating func apply(_ record: EventRecord) throws {
        let seq = record.seq
        guard seq == lastSeq + 1 else { throw BenchError("naive: seq \(seq) after \(lastSeq)") }
        func find(_ id: LabelID) throws -> Int {
            guard let index = labels.firstIndex(where: { $0.id == id }) else { throw BenchError("naive: seq \(seq): unknown id \(id)") }
            return index
        }
        switch record.event {
        case .added(let id, let title, let isEnabled, let index):
            guard labels.firstIndex(where: { $0.id == id }) == nil, index >= 0, index <= labels.count else {
                throw BenchError("naive: seq \(seq): bad add")
            }
            labels.insert(Label(id: id, title: title, isEnabled: isEnabled, version: seq), at: index)
        case .renamed(let id, let oldTitle, let newTitle):
            let i = try find(id)
            guard labels[i].title == oldTitle else { throw BenchError("naive: seq \(seq): title mismatch") }
            if oldTitle != newTitle {
                labels[i].title = newTitle
                labels[i].version = seq
            }
        case .toggled(let id, let isEnabled):
            let i = try find(id)
            guard labels[i].isEnabled != isEnabled else { throw BenchError("naive: seq \(seq): state mismatch") }
            labels[i].isEnabled = isEnabled
            labels[i].version = seq
        case .removed(let id, let index, let title, let isEnabled):
            let i = try find(id)
            guard i == index, labels[i].title == title, labels[i].isEnabled == isEnabled else {
                throw BenchError("naive: seq \(seq): bad remove")
            }
            labels.remove(at: i)
        case .moved(let id, let from, let to):
            let i = try find(id)
            guard i == from, to >= 0, to < labels.count, from != to else { throw BenchError("naive: seq \(seq): bad move") }
            let label = labels.remove(at: i)
            labels.insert(label, at: to)
        case .reordered(let order):
            var byID: [LabelID: Label] = [:]
            for label in labels { byID[label.id] = label }
            labels = try order.map { id in
                guard let label = byID[id] else { throw BenchError("naive: seq \(seq): bad reorder") }
                return label
            }
        case .rejected:
            break
        }
        lastSeq = seq
    }
}
