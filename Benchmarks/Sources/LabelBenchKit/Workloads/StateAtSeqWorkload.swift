import EventLog
import Foundation
import LabelProjection

/// Workloads `state-at-<size>-early|middle|late|worst`: the list at an
/// earlier seq, `LabelStore.state(atSeq:)`, in process, on the
/// ``HistoryFixture`` (1,000,000 events; quick: 200,000; `--big` adds
/// 10,000,000) with its checkpoint file.
///
/// Seqs: early (N/10), middle (N/2), late (N − 1,000) and the worst case, the
/// seq just before the last checkpoint (the longest fold: interval − 1
/// records). Ours: `state(atSeq:)` of the open store, which folds from the
/// nearest checkpoint; the peer: the same call with the checkpoint file moved
/// away, a fold from seq 1. Both lists must be equal. Metric: ms per call,
/// the median; the worst of the repetitions is in the notes. Target: ≤ 100 ms.
///
/// `after-open` is N/2 asked of a store that has just opened the log from a
/// snapshot at its end (each repetition opens it anew, untimed): the first
/// call of an app that opens its store and looks back, whose writer has read
/// no record before the snapshot.
final class StateAtSeqWorkload: Workload {
    /// Where the seq falls.
    enum Position: String, CaseIterable {
        case early, middle, late, worst
        /// N/2, the first call of a store just opened from a snapshot at the end.
        case afterOpen = "after-open"
    }

    let metric = Metric.milliseconds
    let position: Position
    let repetitions: Int?
    private let fixture: HistoryFixture
    private var samples: [Side: [Double]] = [:]
    private var digests: [Side: String] = [:]

    init(position: Position, fixture: HistoryFixture, repetitions: Int?) {
        self.position = position
        self.fixture = fixture
        self.repetitions = repetitions
    }

    var eventCount: Int { fixture.eventCount }
    var id: String { "state-at-\(HistoryFixture.sizeName(eventCount))-\(position.rawValue)" }
    var title: String {
        let at =
            switch position {
            case .early: "N/10"
            case .middle: "N/2"
            case .late: "N − 1,000"
            case .worst: "just before the last checkpoint"
            case .afterOpen: "N/2, first call after open"
            }
        return "state(atSeq:) \(position.rawValue) (\(at)), \(eventCount.grouped) events"
    }
    var peer: String? { "fold from seq 1" }
    var target: Target { Target(maxOurs: 100, metric: .milliseconds) }

    /// The seq asked for.
    var seq: UInt64 { Self.seq(position, eventCount: eventCount, interval: fixture.interval) }

    /// The seq at `position` in a history of `eventCount` records with a checkpoint every
    /// `interval` records: N/10, N/2, N − 1,000, or the one just before the last checkpoint.
    static func seq(_ position: Position, eventCount n: Int, interval: Int) -> UInt64 {
        let lastCheckpoint = interval > 0 ? n / interval * interval : n
        switch position {
        case .early: return UInt64(n / 10)
        case .middle, .afterOpen: return UInt64(n / 2)
        case .late: return UInt64(n - 1_000)
        case .worst: return UInt64(max(1, lastCheckpoint == n ? n - interval - 1 : lastCheckpoint - 1))
        }
    }

    var notes: [String] {
        let interval = UInt64(max(fixture.interval, 1))
        let from = seq / interval * interval
        let worstOurs = samples[.ours]?.max() ?? 0, worstPeer = samples[.sqlite]?.max() ?? 0
        return [
            "seq \(Int(seq).grouped): folds \(Int(seq - from).grouped) records \(from == 0 ? "from seq 1 (no checkpoint before it)" : "from the checkpoint at seq \(Int(from).grouped)") (interval \(fixture.interval.grouped), \(fixture.checkpointCount) checkpoints (\(fixture.fullCheckpoints) full images) in \(fixture.checkpointBytes.grouped) bytes, \(fixture.checkpointBytes * 100 / max(1, fixture.logBytes)) % of the log's \(fixture.logBytes.grouped); at the end \(fixture.liveLabels.grouped) labels live, \(fixture.removedLabels.grouped) removed); worst of \(samples[.ours]?.count ?? 0): ours \(Metric.milliseconds.format(worstOurs)), fold from seq 1 \(Metric.milliseconds.format(worstPeer))"
        ]
    }

    func prepare(_ context: BenchContext) throws { try fixture.acquire(context) }

    func finish(_ context: BenchContext) {
        if position == .afterOpen { try? fixture.dropSnapshots() }
        fixture.release(context)
    }

    func measure(_ side: Side, repetition: Int, context: BenchContext) throws -> Double {
        let seq = self.seq
        var list = LabelList()
        func call(_ store: LabelStore) throws -> Duration { try Statistics.time { list = try store.state(atSeq: seq) } }
        func call() throws -> Duration {
            if position == .afterOpen { return try fixture.withStoreJustOpened(call) }
            guard let store = fixture.store else { throw BenchError("\(id): the history's store is not open") }
            return try call(store)
        }
        let elapsed = side == .ours ? try call() : try fixture.withoutHistoryFiles(call)
        guard list.lastSeq == seq else { throw BenchError("\(id): state(atSeq: \(seq)) ended at seq \(list.lastSeq)") }
        digests[side] = ProjectionFixtures.digest(list)
        if let a = digests[.ours], let b = digests[.sqlite], a != b {
            throw BenchError("\(id): the list from the checkpoint and the fold from seq 1 differ at seq \(seq)")
        }
        let milliseconds = Statistics.seconds(elapsed) * 1e3
        samples[side, default: []].append(milliseconds)
        return milliseconds
    }
}
