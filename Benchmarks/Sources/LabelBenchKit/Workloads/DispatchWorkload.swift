import EventLog
import LabelProjection
import Synchronization

/// Workload `dispatch-subscribers`: does the cost of a write grow with the
/// number of subscribers that are *not* interested in it?
///
/// Two stores over an `InMemoryEventLog` of the same 100,010 labels (built in
/// `prepare`, untimed). Ours: 100,000 row subscribers, each on `.title(id)`
/// or `.isEnabled(id)` (alternating) of a distinct label; the peer: 10 such
/// subscribers. In both, one more subscriber watches `.isEnabled` of the
/// toggled label. Timed: `toggle` of that label, one command at a time
/// (validate, append, apply, dispatch, the one callback). Metric: µs per
/// event; target: ours (100,000) ≤ 1.5× the peer (10). After each
/// measurement exactly one callback per toggle must have run.
final class DispatchWorkload: Workload {
    let metric = Metric.microsecondsPerEvent
    let target = Target(maxRatio: 1.5, metric: .microsecondsPerEvent, text: "100k / 10 ≤ 1.5×")
    let peer: String? = "10 subscribers"
    let eventCount: Int
    private let manySubscribers = 100_000
    private let fewSubscribers = 10
    private let seed: UInt64
    private var stores: [Side: (store: LabelStore, toggled: LabelID, subscriptions: [Subscription])] = [:]
    private let calls = CallCounter()

    init(settings: BenchSettings) {
        eventCount = settings.size(full: 20_000, quick: 5_000)
        seed = settings.seed
    }

    var id: String { "dispatch-subscribers" }
    var title: String { "toggle with 100,000 vs 10 row subscribers, \(eventCount.grouped) events" }

    func describe(ratio: Double) -> String { String(format: "%.2f× the 10-sub cost", ratio) }

    func prepare(_ context: BenchContext) throws {
        let labels = manySubscribers + 10
        var rng = SeededGenerator(seed: seed ^ 0xD15)
        let records = (0..<labels).map { i in ProjectionFixtures.addedRecord(seq: UInt64(i + 1), index: i, rng: &rng) }
        for side in [Side.ours, .sqlite] {
            let log = InMemoryEventLog(records: records, clock: { ProjectionFixtures.timestamp(0) })
            let store = try LabelStore(storage: log)
            let ids = store.snapshot.ids
            let toggled = ids[labels - 1]
            let counter = calls
            var subscriptions: [Subscription] = []
            let count = side == .ours ? manySubscribers : fewSubscribers
            subscriptions.reserveCapacity(count + 1)
            for i in 0..<count {
                let dependency: Dependency = i % 2 == 0 ? .title(ids[i]) : .isEnabled(ids[i])
                subscriptions.append(store.subscribe(to: dependency) { _ in counter.add() })
            }
            subscriptions.append(store.subscribe(to: .isEnabled(toggled)) { _ in counter.add() })
            stores[side] = (store, toggled, subscriptions)
        }
    }

    func measure(_ side: Side, repetition: Int, context: BenchContext) throws -> Double {
        guard let (store, toggled, _) = stores[side] else { throw BenchError("\(id): not prepared") }
        let before = calls.value
        let elapsed = try Statistics.time {
            for _ in 0..<eventCount { _ = try store.toggle(toggled) }
        }
        let called = calls.value - before
        guard called == eventCount else { throw BenchError("\(id): \(called) callbacks for \(eventCount) toggles") }
        return Statistics.seconds(elapsed) * 1e6 / Double(eventCount)
    }

    func finish(_ context: BenchContext) {
        for (_, entry) in stores {
            for subscription in entry.subscriptions { subscription.cancel() }
            entry.store.close()
        }
        stores = [:]
    }
}

/// A thread-safe count of callbacks.
final class CallCounter: Sendable {
    private let count = Atomic<Int>(0)
    func add() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}
