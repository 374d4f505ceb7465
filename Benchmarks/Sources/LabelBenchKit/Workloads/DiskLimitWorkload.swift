import EventLog

/// Workload `batch-append-disk`: the batch appends against the disk's limit
/// for their I/O pattern, measured in the same run, alternating.
///
/// Ours: as `batch-append` (`.syncEachAppend`, appends of 1,000 events, one
/// `pwrite` + `fdatasync` each); or, for `batch-append-pipelined`, the same
/// appends through `LogWriter.appendPipelined`, each acknowledged once its
/// own sync (on the writer's sync thread) returned, with at most two pending
/// (the next batch is encoded and written while the last one syncs). The peer, ``DiskProbe``: the same byte count
/// per batch (each batch's encoded size, taken untimed from a log written
/// without preallocation) as one `pwrite` + `fdatasync` into a preallocated
/// file, no encoding; converted to events/s. Ratio: ours / limit; target
/// ≥ 80 % of the limit.
final class DiskLimitWorkload: Workload {
    let id: String
    /// Whether ours appends through `appendPipelined` (two pending at most).
    let pipelined: Bool
    let metric = Metric.eventsPerSecond
    let target = Target(minRatio: 0.8, metric: .eventsPerSecond, text: "≥ 80% of the disk")
    let eventCount: Int
    private let seed: UInt64
    private var batches: [[LogEntry]] = []
    private var batchBytes: [Int] = []

    /// 1,000,000 events (quick: 100,000), as `batch-append`.
    init(settings: BenchSettings, pipelined: Bool = false) {
        self.pipelined = pipelined
        id = pipelined ? "batch-append-pipelined" : "batch-append-disk"
        eventCount = settings.size(full: 1_000_000, quick: 100_000)
        seed = settings.seed
    }

    var title: String {
        "\(pipelined ? "pipelined " : "")batch appends vs the disk, \(eventCount.grouped) events in \(BatchAppendWorkload.batchSize.grouped)s"
    }
    var peer: String? { "disk: pwrite + fdatasync" }
    func describe(ratio: Double) -> String { String(format: "%.0f%% of the disk", ratio * 100) }

    var notes: [String] {
        let total = batchBytes.reduce(0, +)
        return [
            "\(batchBytes.count.grouped) writes of \((total / max(batchBytes.count, 1)).grouped) bytes on average (\(total.grouped) bytes), each followed by fdatasync, into a preallocated file"
        ]
    }

    func prepare(_ context: BenchContext) throws {
        batches = EventStream.batches(count: eventCount, batchSize: BatchAppendWorkload.batchSize, seed: seed)
        let directory = try context.scratch.freshDirectory("\(id)-sizes")
        defer { context.scratch.remove(directory) }
        let log = try LogWriter.open(
            path: "\(directory)/\(Fixtures.logName)",
            options: LogWriter.Options(durability: .noSync, createIfMissing: true, preallocation: 0))
        defer { log.close() }
        let path = "\(directory)/\(Fixtures.logName)"
        var sizes = [ScratchSpace.fileSize(path)]
        for batch in batches {
            try log.append(batch)
            sizes.append(ScratchSpace.fileSize(path))
        }
        batchBytes = DiskProbe.batchByteCounts(fileSizes: sizes)
    }

    func measure(_ side: Side, repetition: Int, context: BenchContext) throws -> Double {
        let directory = try context.scratch.freshDirectory("\(id)-\(side.rawValue)")
        defer { context.scratch.remove(directory) }
        switch side {
        case .ours:
            let log = try Fixtures.createLog(in: directory, durability: .syncEachAppend)
            defer { log.close() }
            let batches = self.batches
            ScratchSpace.flushFileSystems()
            let pipelined = self.pipelined
            let elapsed = try Statistics.time {
                if pipelined {
                    // Each batch is acknowledged (its sync returned) before the one after next is written.
                    var pending: [PendingAppend] = []
                    for batch in batches {
                        pending.append(try log.appendPipelined(batch))
                        if pending.count > 2 { try pending.removeFirst().waitUntilDurable() }
                    }
                    for append in pending { try append.waitUntilDurable() }
                } else {
                    for batch in batches { try log.append(batch) }
                }
            }
            guard log.lastSeq == UInt64(eventCount) else { throw BenchError("\(id): stored \(log.lastSeq) of \(eventCount) events") }
            return DiskProbe.eventsPerSecond(events: eventCount, elapsed: elapsed)
        case .sqlite:
            let elapsed = try DiskProbe.run(path: "\(directory)/probe", batches: batchBytes)
            return DiskProbe.eventsPerSecond(events: eventCount, elapsed: elapsed)
        }
    }

    func finish(_ context: BenchContext) { batches = [] }
}
