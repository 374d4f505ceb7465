import EventLog
import LabelProjection

/// Workload `apply-1m-<kind>`: the fold's cost per event of one kind on a big list.
///
/// Two equal lists of 1,000,000 labels (quick: 200,000) are folded from the
/// same `added` records, once, in `prepare`, and are shared by the six kinds.
/// Each measurement draws a batch of records of its kind on the *shadow* list
/// (applying each to it, so the batch stays consistent; untimed), then times
/// applying the same records to the *primary* list, which is uniquely
/// referenced (no copy-on-write inside the timed region). Afterwards both
/// lists are equal again. Metric: µs per event; target ≤ 2 µs, except
/// `reordered` (O(n) by design), which is reported without a target.
/// There is no peer: a naive array at this size would take minutes (see `naive-100k`).
final class ApplyKindWorkload: Workload {
    let metric = Metric.microsecondsPerEvent
    let kind: ProjectionFixtures.Kind
    let eventCount: Int
    let peer: String? = nil
    private let fixture: Fixture

    /// The lists shared by the kinds, built by the first and released by the last selected one.
    final class Fixture {
        let labels: Int
        let seed: UInt64
        var users = 0
        var primary: LabelList?
        var shadow: LabelList?
        var rng: SeededGenerator

        init(labels: Int, seed: UInt64) {
            self.labels = labels
            self.seed = seed
            rng = SeededGenerator(seed: seed ^ 0xA991)
        }

        func acquire(_ context: BenchContext) throws {
            guard primary == nil else { return }
            context.progress("    folding \(labels.grouped) adds into two lists (untimed)…")
            primary = try ProjectionFixtures.buildList(labels: labels, seed: seed)
            shadow = try ProjectionFixtures.buildList(labels: labels, seed: seed)
        }

        func release() {
            users -= 1
            if users <= 0 {
                primary = nil
                shadow = nil
            }
        }
    }

    /// The six kinds over one shared fixture; `settings` decides the size and which are selected.
    static func all(for settings: BenchSettings) -> [ApplyKindWorkload] {
        let fixture = Fixture(labels: settings.size(full: 1_000_000, quick: 200_000), seed: settings.seed)
        let workloads = ProjectionFixtures.Kind.allCases.map { ApplyKindWorkload(kind: $0, fixture: fixture, settings: settings) }
        fixture.users = workloads.filter { settings.includes($0.id) }.count
        return workloads
    }

    private init(kind: ProjectionFixtures.Kind, fixture: Fixture, settings: BenchSettings) {
        self.kind = kind
        self.fixture = fixture
        self.eventCount = kind == .reordered ? settings.size(full: 5, quick: 3) : settings.size(full: 100_000, quick: 20_000)
    }

    private var sizeName: String { fixture.labels % 1_000_000 == 0 ? "\(fixture.labels / 1_000_000)m" : "\(fixture.labels / 1_000)k" }
    var id: String { "apply-\(sizeName)-\(kind.rawValue)" }
    var title: String { "apply \(kind.rawValue) on \(fixture.labels.grouped) labels, \(eventCount.grouped) events" }
    var target: Target {
        kind == .reordered ? Target(metric: metric, text: "— (O(n))") : Target(maxOurs: 2, metric: metric, text: "≤ 2 µs/ev")
    }

    func prepare(_ context: BenchContext) throws { try fixture.acquire(context) }

    func measure(_ side: Side, repetition: Int, context: BenchContext) throws -> Double {
        guard var shadow = fixture.shadow, var primary = fixture.primary else { throw BenchError("\(id): fixture not built") }
        fixture.shadow = nil
        fixture.primary = nil
        var records: [EventRecord] = []
        records.reserveCapacity(eventCount)
        for _ in 0..<eventCount {
            records.append(try ProjectionFixtures.nextRecord(kind, on: &shadow, rng: &fixture.rng))
        }
        let elapsed = try Statistics.time {
            for record in records { try primary.apply(record) }
        }
        guard primary.lastSeq == shadow.lastSeq, primary.count == shadow.count, primary.enabledCount == shadow.enabledCount else {
            throw BenchError("\(id): the primary and shadow lists differ after the batch")
        }
        fixture.shadow = shadow
        fixture.primary = primary
        return Statistics.seconds(elapsed) * 1e6 / Double(eventCount)
    }

    func finish(_ context: BenchContext) { fixture.release() }
}
