import EventLog
import LabelProjection

/// Workload 4: open a store and replay its whole history.
///
/// Ours: `LogWriter.openWithViews(path:options:replayViews:)` (lock, recovery
/// scan, CRC check and in-place decode of every record), passing each
/// record's view to the consumer. SQLite: open the database,
/// `SELECT … ORDER BY seq`, and pass each row, read in place, to the
/// consumer. A consumer that wants `EventRecord`s (the fold) gets them on
/// both sides: the view copied out, the row decoded. Timed: open, read
/// everything, close. Both files are freshly written, so both are read from
/// the page cache. Metric: events/s.
///
/// The consumer is the generic parameter: ``DecodeOnlyConsumer`` (decode
/// only) or ``ProjectionFoldConsumer`` (the projection's fold; our side then
/// runs `LabelStore.open(path:options:)` with manual snapshots instead of
/// `LogWriter.open`, see `ProjectionWorkloads.swift`).
final class ReplayWorkload<Consumer: ReplayConsumer>: Workload {
    let metric = Metric.eventsPerSecond
    let target = Target(minRatio: 3, minOurs: 10_000_000, metric: .eventsPerSecond)
    let eventCount: Int
    let repetitions: Int?
    private let seed: UInt64
    private var directory: String?
    private var digests: [Side: String] = [:]
    /// The log format our side's log is written in (2, or 4: batch frames).
    private let format: UInt16

    /// Replays `eventCount` events with `Consumer` from a log of `format`; `repetitions` overrides the run's default.
    init(eventCount: Int, settings: BenchSettings, repetitions: Int? = nil, format: UInt16 = LogFormat.currentVersion) {
        self.eventCount = eventCount
        self.seed = settings.seed
        self.repetitions = settings.repetitionsOverride ?? repetitions
        self.format = format
    }

    var id: String {
        let size = eventCount % 1_000_000 == 0 ? "\(eventCount / 1_000_000)m" : "\(eventCount / 1_000)k"
        let suffix = format == LogFormat.currentVersion ? "" : "-format\(format)"
        return (Consumer.name == DecodeOnlyConsumer.name ? "replay-\(size)" : "replay-\(Consumer.name)-\(size)") + suffix
    }

    var title: String {
        "open + replay (\(Consumer.name)), \(eventCount.grouped) events"
            + (format == LogFormat.currentVersion ? "" : ", log format \(format)")
    }

    private var logPath: String { "\(directory ?? "")/\(Fixtures.logName)" }
    private var databasePath: String { "\(directory ?? "")/\(Fixtures.databaseName)" }

    func prepare(_ context: BenchContext) throws {
        let directory = try context.scratch.freshDirectory(id)
        self.directory = directory
        context.progress("    writing \(eventCount.grouped) events to both stores (untimed)…")
        try Fixtures.writeBoth(count: eventCount, seed: seed, logPath: logPath, databasePath: databasePath, format: format) { written in
            context.progress("    … \(written.grouped)")
        }
        ScratchSpace.flushFileSystems()
    }

    func measure(_ side: Side, repetition: Int, context: BenchContext) throws -> Double {
        var consumer = Consumer()
        var count = 0
        let path = side == .ours ? logPath : databasePath
        let elapsed: Duration
        switch side {
        case .ours:
            if let foldedType = Consumer.self as? any FoldedProjectionConsumer.Type {
                // The projection fold: the store opens the log and folds it itself.
                var list = LabelList()
                elapsed = try Statistics.time {
                    let store = try LabelStore.open(path: path, options: .init(durability: .noSync, snapshots: .manual))
                    list = store.snapshot
                    store.close()
                }
                count = Int(list.lastSeq)
                guard let folded = foldedType.init(folded: list) as? Consumer else { throw BenchError("\(id): consumer type mismatch") }
                consumer = folded
            } else {
                elapsed = try Statistics.time {
                    let log = try LogWriter.openWithViews(path: path, options: LogWriter.Options(durability: .noSync)) { view in
                        try consumer.consume(view: view)
                        count += 1
                    }
                    log.close()
                }
            }
        case .sqlite:
            elapsed = try Statistics.time {
                let db = try SQLiteConnection(path: path)
                count = try SQLiteEventReader.forEachRow(in: db) { row in try consumer.consume(row: row) }
                db.close()
            }
        }
        guard count == eventCount else { throw BenchError("\(id): \(side.rawValue) replayed \(count) of \(eventCount) events") }
        try check(consumer.digest, side)
        return Statistics.rate(events: count, in: elapsed)
    }

    func finish(_ context: BenchContext) {
        if let directory { context.scratch.remove(directory) }
        directory = nil
    }

    /// Both sides must have consumed the same records.
    private func check(_ digest: String, _ side: Side) throws {
        digests[side] = digest
        if let ours = digests[.ours], let sqlite = digests[.sqlite], ours != sqlite {
            throw BenchError("\(id): the two sides replayed different records:\n  ours:   \(ours)\n  sqlite: \(sqlite)")
        }
    }
}
