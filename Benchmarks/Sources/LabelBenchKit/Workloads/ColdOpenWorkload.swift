import EventLog
import LabelProjection

/// Workload `cold-open`: opening a big log with a snapshot against a full replay.
///
/// `prepare` writes one log of 10,000,000 events (quick: 1,000,000) from the
/// event stream, in appends of 10,000 records each followed by a sync (as a
/// store's group commit leaves a log: every record's unsynced group is short):
/// all but the last 1,000, then a snapshot with `LabelStore.writeSnapshot()`,
/// then the 1,000-record tail. (A log written wholly without syncs is one
/// unsynced group: an open that starts from a snapshot checks every frame
/// before its record, docs/FORMAT.md "Continuation".)
/// Timed, both from a warm page cache: `LabelStore.open` + `close`, ours
/// with the snapshot (`useOnOpen`), the peer without (a full replay of the
/// log). Both must end with equal lists; ours must report that it used the
/// snapshot, resumed the log's scan at its record, and replayed only the tail. Metric: ms per open; target: ≤ 100 ms
/// plus the tail (the tail's cost estimated from the full replay's rate).
final class ColdOpenWorkload: Workload {
    let metric = Metric.milliseconds
    let peer: String? = "full replay"
    let eventCount: Int
    let repetitions: Int?
    private let tail = 1_000
    private let seed: UInt64
    private var directory: String?
    private var digests: [Side: String] = [:]
    private var fullSamples: [Double] = []
    private var snapshotBytes = 0

    init(settings: BenchSettings) {
        eventCount = settings.size(full: 10_000_000, quick: 1_000_000)
        seed = settings.seed
        repetitions = settings.repetitionsOverride ?? (settings.quick ? nil : 3)
    }

    var id: String { "cold-open" }
    var title: String { "open \(eventCount.grouped) events: snapshot + \(tail.grouped) tail" }

    /// The tail's estimated cost: the full replay's median time per record × the tail.
    private var tailMilliseconds: Double { Statistics.median(fullSamples) * Double(tail) / Double(eventCount) }

    var target: Target {
        Target(
            maxOurs: 100 + tailMilliseconds, metric: .milliseconds,
            text: fullSamples.isEmpty ? "≤ 100 ms + tail" : String(format: "≤ 100 ms + tail (%.2f ms)", tailMilliseconds))
    }

    var notes: [String] {
        [
            "snapshot at seq \((eventCount - tail).grouped), \(snapshotBytes.grouped) bytes; ours replays the \(tail.grouped)-record tail on top of it, the peer replays all \(eventCount.grouped) records"
        ]
    }

    private var logPath: String { "\(directory ?? "")/\(Fixtures.logName)" }

    private func options(useSnapshot: Bool) -> LabelStore.Options {
        LabelStore.Options(
            durability: .noSync,
            snapshots: SnapshotPolicy(everyRecords: 0, everyBytes: 0, onClose: false, useOnOpen: useSnapshot))
    }

    func prepare(_ context: BenchContext) throws {
        let directory = try context.scratch.freshDirectory(id)
        self.directory = directory
        context.progress("    writing \(eventCount.grouped) events and a snapshot at seq \((eventCount - tail).grouped) (untimed)…")
        var stream = EventStream(seed: seed)
        func write(_ count: Int) throws {
            let log = try LogWriter.open(path: logPath, options: LogWriter.Options(durability: .noSync, createIfMissing: true))
            defer { log.close() }
            var written = 0
            while written < count {
                try log.append(stream.next(min(10_000, count - written)))
                written += min(10_000, count - written)
                // Each batch synced, as a store's group commit leaves a log: a log written
                // wholly without syncs is one unsynced group, which an open checks from seq 1.
                try log.sync()
            }
        }
        try write(eventCount - tail)
        let store = try LabelStore.open(path: logPath, options: options(useSnapshot: false))
        let info = try store.writeSnapshot()
        store.close()
        snapshotBytes = info.byteCount
        guard info.seq == UInt64(eventCount - tail) else { throw BenchError("\(id): snapshot at seq \(info.seq)") }
        try write(tail)
        ScratchSpace.flushFileSystems()
    }

    func measure(_ side: Side, repetition: Int, context: BenchContext) throws -> Double {
        var list = LabelList()
        var report: SnapshotReport?
        let elapsed = try Statistics.time {
            let store = try LabelStore.open(path: logPath, options: options(useSnapshot: side == .ours))
            list = store.snapshot
            report = store.snapshotReport
            store.close()
        }
        guard list.lastSeq == UInt64(eventCount) else { throw BenchError("\(id): opened at seq \(list.lastSeq), not \(eventCount)") }
        if side == .ours {
            guard let report, report.usedSeq == UInt64(eventCount - tail), report.replayedRecords == UInt64(tail), report.resumedScan else {
                throw BenchError("\(id): the snapshot was not used: \(report?.summary ?? "no report")")
            }
        }
        let digest = "\(list.count) labels, \(list.enabledCount) enabled, list version \(list.listVersion)"
        digests[side] = digest
        if let ours = digests[.ours], let full = digests[.sqlite], ours != full {
            throw BenchError("\(id): snapshot open and full replay differ:\n  ours: \(ours)\n  full: \(full)")
        }
        let milliseconds = Statistics.seconds(elapsed) * 1e3
        if side == .sqlite { fullSamples.append(milliseconds) }
        return milliseconds
    }

    func finish(_ context: BenchContext) {
        if let directory { context.scratch.remove(directory) }
        directory = nil
    }
}
