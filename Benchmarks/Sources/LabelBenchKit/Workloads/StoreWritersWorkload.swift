import EventLog
import Foundation
import LabelProjection

/// Workloads `store-writers` and `store-writers-async`: 8 writers issuing
/// durable single commands through one `LabelStore` on a file log, against
/// SQLite's 8 writers doing one durable transaction per write.
///
/// Ours: a store opened with the default durability (`.syncEachAppend`) on a
/// new file log, seeded (untimed) with 100 labels per writer in one append.
/// Then 8 writers — threads (``ThreadGang``) calling the synchronous
/// `execute(_:)`, or, for `-async`, 8 child tasks (``TaskGang``) awaiting the
/// async `execute(_:)` — each run their own ``StoreWriteScript`` of renames,
/// toggles and adds on labels only they touch, one command at a time, each
/// acknowledged durable before the next. The store group-commits them (one
/// append and one sync per group). Its clock is a ``GroupTicker`` (the
/// committer reads it once per group), so the log tells each record's group.
///
/// SQLite: the setup of ``ConcurrentWritersWorkload`` — WAL, `synchronous=FULL`,
/// 8 threads with a connection each, `busy_timeout` 60 s — the same seed in one
/// transaction (untimed), then each thread inserts the event its script's
/// command produces with `BEGIN IMMEDIATE; INSERT; COMMIT`. SQLite has no
/// async API: its side is the same threads in both variants. It validates
/// nothing (the store checks each command against the state): a lighter job.
///
/// Timed: from the start until the last writer is done. Metric: writes/s (one
/// event per write). After each measurement the writes must all have landed,
/// or the run fails: ours — each call returned one record, the last seq, the
/// records after the seed and every label's final state are as scripted;
/// SQLite — the row count.
final class StoreWritersWorkload: Workload {
    /// What the writers are.
    enum Writers: String {
        /// Threads calling the synchronous API.
        case threads
        /// Swift tasks awaiting the async API.
        case tasks
    }

    /// Writers (threads or tasks).
    static let writers = 8
    /// Seeded labels per writer.
    static let labelsPerWriter = 100

    let metric = Metric.eventsPerSecond
    let target = Target(minRatio: 5, metric: .eventsPerSecond)
    let eventCount: Int
    let writers: Writers
    private let writesPerWriter: Int
    private let seed: UInt64
    private var script: StoreWriteScript?
    private var latencies: [Side: [Double]] = [:]
    private var groupSizes: [Int] = []

    /// 4,000 writes, 500 per writer (quick: 800, 100 per writer); `writesPerWriter` overrides both (tests).
    init(settings: BenchSettings, writers: Writers, writesPerWriter: Int? = nil) {
        self.writers = writers
        self.writesPerWriter = writesPerWriter ?? settings.size(full: 500, quick: 100)
        eventCount = self.writesPerWriter * Self.writers
        seed = settings.seed
    }

    var id: String { writers == .threads ? "store-writers" : "store-writers-async" }

    var title: String {
        let who = writers == .threads ? "writers" : "async tasks"
        return "\(Self.writers) \(who) through LabelStore, \(eventCount.grouped) commands"
    }

    var notes: [String] {
        var notes: [String] = []
        if let ours = latencies[.ours], let peer = latencies[.sqlite], !ours.isEmpty, !peer.isEmpty {
            func p(_ values: [Double], _ q: Double) -> String { String(format: "%.2f", Statistics.percentile(values, q)) }
            notes.append(
                "latency per write, p50 / p99: ours \(p(ours, 0.5)) / \(p(ours, 0.99)) ms, "
                    + "SQLite \(p(peer, 0.5)) / \(p(peer, 0.99)) ms (every write of every repetition)")
        }
        if !groupSizes.isEmpty {
            let writes = groupSizes.reduce(0, +)
            var histogram: [Int: Int] = [:]
            for size in groupSizes { histogram[size, default: 0] += 1 }
            let sizes = histogram.keys.sorted().map { "\($0)×\(histogram[$0] ?? 0)" }.joined(separator: ", ")
            notes.append(
                "\(groupSizes.count.grouped) commit groups for \(writes.grouped) writes, "
                    + String(format: "%.2f", Double(writes) / Double(groupSizes.count))
                    + " writes per group (size×groups: \(sizes))")
        }
        return notes
    }

    func prepare(_ context: BenchContext) throws {
        script = StoreWriteScript(
            writers: Self.writers, writesPerWriter: writesPerWriter, labelsPerWriter: Self.labelsPerWriter, seed: seed)
        latencies = [:]
        groupSizes = []
    }

    func measure(_ side: Side, repetition: Int, context: BenchContext) throws -> Double {
        guard let script else { throw BenchError("\(id): not prepared") }
        let directory = try context.scratch.freshDirectory("\(id)-\(side.rawValue)")
        defer { context.scratch.remove(directory) }
        let sink = LatencySink(writers: Self.writers)
        let elapsed: Duration
        switch side {
        case .ours:
            let ticker = GroupTicker()
            let store = try LabelStore.open(
                path: "\(directory)/\(Fixtures.logName)",
                options: LabelStore.Options(createIfMissing: true, clock: { ticker.next() }))
            defer { store.close() }
            try store.append(entries: script.seedEntries)
            ScratchSpace.flushFileSystems()
            elapsed = try runStore(store, script: script, sink: sink)
            let records = try script.verify(store)
            groupSizes += StoreWriteScript.groupSizes(records)
        case .sqlite:
            let path = "\(directory)/\(Fixtures.databaseName)"
            let db = try SQLiteEventDatabase.open(path: path, synchronous: .full)  // creates the table
            defer { db.close() }
            try SQLiteEventWriter(connection: db).insertTransaction(script.seedEntries)
            ScratchSpace.flushFileSystems()
            let writes = script.writers
            elapsed = try ThreadGang.run(
                threads: Self.writers,
                setup: { _ in
                    let connection = try SQLiteEventDatabase.open(
                        path: path, synchronous: .full, busyTimeout: ConcurrentWritersWorkload.busyTimeoutMilliseconds)
                    return try SQLiteEventWriter(connection: connection)
                },
                work: { writer, inserter in
                    let clock = ContinuousClock()
                    var latencies: [Double] = []
                    latencies.reserveCapacity(writes[writer].count)
                    for write in writes[writer] {
                        let start = clock.now
                        try inserter.insertTransaction(CollectionOfOne(write.entry), immediate: true)
                        latencies.append(Statistics.seconds(clock.now - start) * 1e3)
                    }
                    sink.keep(latencies, writer: writer)
                },
                teardown: { _, inserter in inserter.connection.close() })
            let stored = try SQLiteEventDatabase.rowCount(db)
            let expected = script.seedEntries.count + script.writeCount
            guard stored == expected else { throw BenchError("\(id): SQLite stored \(stored) rows, expected \(expected)") }
        }
        latencies[side, default: []] += sink.all
        return Statistics.rate(events: script.writeCount, in: elapsed)
    }

    /// Runs the script's writers against `store` (threads or tasks); returns the timed region's duration.
    private func runStore(_ store: LabelStore, script: StoreWriteScript, sink: LatencySink) throws -> Duration {
        let writes = script.writers
        let id = self.id
        switch writers {
        case .threads:
            return try ThreadGang.run(
                threads: Self.writers,
                setup: { _ in () },
                work: { writer, _ in
                    let clock = ContinuousClock()
                    var latencies: [Double] = []
                    latencies.reserveCapacity(writes[writer].count)
                    for write in writes[writer] {
                        let start = clock.now
                        let records = try store.execute(write.command)
                        latencies.append(Statistics.seconds(clock.now - start) * 1e3)
                        try Self.check(records, of: write, id: id)
                    }
                    sink.keep(latencies, writer: writer)
                },
                teardown: { _, _ in })
        case .tasks:
            return try TaskGang.run(tasks: Self.writers) { writer in
                let clock = ContinuousClock()
                var latencies: [Double] = []
                latencies.reserveCapacity(writes[writer].count)
                for write in writes[writer] {
                    let start = clock.now
                    let records = try await store.execute(write.command)
                    latencies.append(Statistics.seconds(clock.now - start) * 1e3)
                    try Self.check(records, of: write, id: id)
                }
                sink.keep(latencies, writer: writer)
            }
        }
    }

    /// Throws unless a write appended exactly one record (each scripted command changes something).
    private static func check(_ records: [EventRecord], of write: StoreWriteScript.Write, id: String) throws {
        guard records.count == 1 else { throw BenchError("\(id): \(write.command) appended \(records.count) records, not 1") }
    }

    func finish(_ context: BenchContext) { script = nil }
}
