import Foundation
import LabelProjection
import Testing

@testable import LabelBenchKit

/// Command line, statistics, targets, report and the runner's alternation.
@Suite struct HarnessTests {
    @Test func parsesTheCommandLine() throws {
        #expect(try Arguments.parse(["--help"]) == .help)
        guard
            case .run(let s) = try Arguments.parse([
                "--quick", "--json", "--filter", "replay,bytes", "--filter", "single",
                "--reps", "2", "--seed", "0x10", "--dir", "/var/tmp", "--big"
            ])
        else {
            Issue.record("expected a run")
            return
        }
        #expect(s.quick && s.json && s.big)
        #expect(s.filters == ["replay", "bytes", "single"])
        #expect(s.repetitions == 2 && s.seed == 16 && s.scratchBase == "/var/tmp")
        #expect(throws: BenchError.self) { try Arguments.parse(["--reps", "0"]) }
        #expect(throws: BenchError.self) { try Arguments.parse(["--filter"]) }
        #expect(throws: BenchError.self) { try Arguments.parse(["--frobnicate"]) }
        if case .list = try Arguments.parse(["--list"]) {} else { Issue.record("expected a list") }
    }

    @Test func catalogAndFilters() {
        var settings = BenchSettings()
        let ids = WorkloadCatalog.workloads(for: settings).map(\.id)
        #expect(
            Array(ids.prefix(6)) == [
                "single-append", "batch-append", "batch-append-disk", "batch-append-pipelined", "concurrent-writers", "replay-1m"
            ])
        #expect(ids.contains("replay-fold-1m") && ids.contains("apply-1m-toggled") && ids.contains("naive-100k"))
        #expect(ids.contains("dispatch-subscribers") && ids.contains("cold-open"))
        #expect(ids.contains("store-writers") && ids.contains("store-writers-async"))
        settings.quick = true
        settings.big = true
        #expect(WorkloadCatalog.workloads(for: settings).map(\.id).contains("replay-200k"))
        #expect(WorkloadCatalog.workloads(for: settings).map(\.id).contains("replay-10m"))
        settings.filters = ["REPLAY"]
        #expect(
            WorkloadCatalog.workloads(for: settings).map(\.id) == [
                "replay-200k", "replay-10m", "replay-200k-format4", "replay-fold-200k", "replay-fold-200k-format4", "replay-fold-10m"
            ])
        settings.filters = ["apply-200k"]
        #expect(WorkloadCatalog.workloads(for: settings).count == 6)
        settings.filters = ["store-writers"]
        #expect(WorkloadCatalog.workloads(for: settings).map(\.id) == ["store-writers", "store-writers-async"])
    }

    @Test func medianAndTargets() {
        #expect(Statistics.median([3, 1, 2]) == 2)
        #expect(Statistics.median([4, 1, 3, 2]) == 2.5)
        #expect(Statistics.median([]) == 0)
        #expect(Statistics.percentile([5, 1, 4, 2, 3], 0.5) == 3 && Statistics.percentile([5, 1, 4, 2, 3], 0.99) == 5)
        #expect(Statistics.percentile([5, 1], 0) == 1 && Statistics.percentile([], 0.5) == 0)
        let batch = Target(minRatio: 3, minOurs: 5_000_000, metric: .eventsPerSecond)
        #expect(batch.text == "≥ 3× & ≥ 5 M ev/s")
        #expect(batch.isMet(ours: 6e6, ratio: 3.1))
        #expect(!batch.isMet(ours: 4e6, ratio: 3.1))
        #expect(!batch.isMet(ours: 6e6, ratio: 2.9))
        let bytes = Target(maxRatio: 0.6, metric: .bytesPerEvent)
        #expect(bytes.text == "≤ 0.6×")
        #expect(bytes.isMet(ours: 40, ratio: 0.5) && !bytes.isMet(ours: 40, ratio: 0.7))
        #expect(Metric.eventsPerSecond.describe(ratio: 2.345) == "2.35× faster")
        #expect(Metric.eventsPerSecond.describe(ratio: 0.5) == "0.50× (slower)")
        #expect(Metric.bytesPerEvent.describe(ratio: 0.45) == "0.45× the bytes")
        #expect(1_234_567.grouped == "1,234,567" && 999.grouped == "999")
        let apply = Target(maxOurs: 2, metric: .microsecondsPerEvent)
        #expect(apply.text == "≤ 2.000 µs/ev" && apply.isMet(ours: 1.5, ratio: .nan) && !apply.isMet(ours: 2.5, ratio: .nan))
        #expect(Metric.microsecondsPerEvent.describe(ratio: 0.01) == "100.00× faster")
        #expect(Metric.milliseconds.describe(ratio: 2) == "2.00× slower")
        #expect(!Target(metric: .milliseconds, text: "—").hasBounds)
    }

    @Test func runnerAlternatesSidesAndTakesMedians() throws {
        final class Fake: Workload {
            let id = "fake", title = "fake", metric = Metric.eventsPerSecond, eventCount = 1
            let target = Target(minRatio: 2, metric: .eventsPerSecond)
            var calls: [Side] = []
            func prepare(_ context: BenchContext) throws {}
            func measure(_ side: Side, repetition: Int, context: BenchContext) throws -> Double {
                calls.append(side)
                return side == .ours ? Double(10 + repetition) : 4
            }
        }
        try withScratch { scratch in
            let fake = Fake()
            var settings = BenchSettings()
            settings.repetitionsOverride = 3
            let result = try Runner.run(fake, context: BenchContext(settings: settings, scratch: scratch))
            #expect(fake.calls == [.ours, .sqlite, .sqlite, .ours, .ours, .sqlite])
            #expect(result.ours.samples == [10, 11, 12] && result.ours.median == 11 && result.sqlite.median == 4)
            #expect(result.ratio == 2.75 && result.met)
            let table = TableReport.render(
                machine: .collect(scratchDirectory: scratch.root, probeDirectory: scratch.root),
                settings: settings, results: [result])
            #expect(table.contains("| fake ") && table.contains("2.75× faster"))
            let json = try JSONReport(
                machine: .collect(scratchDirectory: scratch.root, probeDirectory: scratch.root),
                settings: settings, repetitions: 3, results: [result]
            ).encoded()
            #expect(json.contains("\"ratio\" : 2.75"))
        }
    }

    @Test func threadGangStartsTogetherAndRethrows() throws {
        struct Boom: Error {}
        let counter = Counter()
        let elapsed = try ThreadGang.run(threads: 8, setup: { $0 * 10 }, work: { _, state in counter.add(state) }, teardown: { _, _ in })
        #expect(counter.value == 280)
        #expect(elapsed > .zero)
        #expect(throws: Boom.self) {
            _ = try ThreadGang.run(threads: 3, setup: { t in if t == 1 { throw Boom() } }, work: { _, _ in }, teardown: { _, _ in })
        }
    }
}

/// A thread-safe sum for the thread gang test.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var sum = 0
    func add(_ n: Int) { lock.withLock { sum += n } }
    var value: Int { lock.withLock { sum } }
}

/// The projection workloads' fixtures and the naive peer.
@Suite struct ProjectionFixtureTests {
    @Test func batchesOfEveryKindStayConsistentAndTheNaiveArrayAgrees() throws {
        var list = try ProjectionFixtures.buildList(labels: 300, seed: 7)
        var naive = NaiveLabelArray(labels: list.labels)
        var rng = SeededGenerator(seed: 8)
        for kind in ProjectionFixtures.Kind.allCases {
            for _ in 0..<(kind == .reordered ? 2 : 50) {
                let record = try ProjectionFixtures.nextRecord(kind, on: &list, rng: &rng)
                try naive.apply(record)
            }
        }
        #expect(naive.labels == list.labels)
        #expect(list.lastSeq == 300 + 5 * 50 + 2)
    }
}
