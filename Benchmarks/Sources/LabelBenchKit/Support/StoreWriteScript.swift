import EventLog
import LabelProjection
import Synchronization

/// The writes of `store-writers`: a seed of labels, then for each writer a
/// deterministic sequence of single commands (renames, toggles, adds) on
/// labels that only that writer touches, each of which changes something,
/// so each appends exactly one event whatever the interleaving. Every write
/// carries the event SQLite's side inserts for it, and the script knows the
/// state every label must end in.
struct StoreWriteScript: Sendable {
    /// One write: the command the store runs and the event the peer inserts.
    struct Write: Sendable {
        let command: LabelCommand
        let entry: LogEntry
    }

    /// What a label must be once every write landed.
    struct FinalLabel: Sendable, Equatable {
        var title: String
        var isEnabled: Bool
    }

    /// The `added` entries the store and the database hold before the writers start.
    let seedEntries: [LogEntry]
    /// Each writer's writes, in the order it issues them.
    let writers: [[Write]]
    /// Every label (seeded or added) and the state it ends in.
    let finalLabels: [LabelID: FinalLabel]

    /// The writes issued by all writers together.
    var writeCount: Int { writers.reduce(0) { $0 + $1.count } }

    /// A script for `writers` writers of `writesPerWriter` writes each, over a
    /// seed of `labelsPerWriter` labels per writer: 40% renames to a new
    /// realistic title, 40% toggles, 20% adds (appended at the end, 85% enabled).
    init(writers: Int, writesPerWriter: Int, labelsPerWriter: Int, seed: UInt64) {
        var rng = SeededGenerator(seed: seed ^ 0x5707)
        var owned: [[LabelID]] = Array(repeating: [], count: writers)
        var state: [LabelID: FinalLabel] = [:]
        var seedEntries: [LogEntry] = []
        for index in 0..<(writers * labelsPerWriter) {
            let id = ProjectionFixtures.randomID(&rng)
            let label = FinalLabel(title: TitleGenerator.title(using: &rng), isEnabled: rng.percent(85))
            seedEntries.append(LogEntry(.added(id: id, title: label.title, isEnabled: label.isEnabled, index: index)))
            owned[index % writers].append(id)
            state[id] = label
        }
        var count = seedEntries.count
        var scripts: [[Write]] = []
        for writer in 0..<writers {
            var writes: [Write] = []
            writes.reserveCapacity(writesPerWriter)
            for _ in 0..<writesPerWriter {
                let draw = rng.below(100)
                if draw < 20 {
                    let id = ProjectionFixtures.randomID(&rng)
                    let label = FinalLabel(title: TitleGenerator.title(using: &rng), isEnabled: rng.percent(85))
                    // The peer's index is the list's length in script order (the store's depends on the interleaving).
                    writes.append(
                        Write(
                            command: .add(title: label.title, isEnabled: label.isEnabled, id: id, at: nil),
                            entry: LogEntry(.added(id: id, title: label.title, isEnabled: label.isEnabled, index: count))))
                    count += 1
                    owned[writer].append(id)
                    state[id] = label
                } else {
                    let id = owned[writer][rng.below(owned[writer].count)]
                    guard var label = state[id] else { preconditionFailure("a writer's label is in the state") }
                    if draw < 60 {
                        var title = TitleGenerator.title(using: &rng)
                        while title == label.title { title = TitleGenerator.title(using: &rng) }
                        writes.append(
                            Write(
                                command: .rename(id: id, title: title),
                                entry: LogEntry(.renamed(id: id, oldTitle: label.title, newTitle: title))))
                        label.title = title
                    } else {
                        label.isEnabled.toggle()
                        writes.append(Write(command: .toggle(id: id), entry: LogEntry(.toggled(id: id, isEnabled: label.isEnabled))))
                    }
                    state[id] = label
                }
            }
            scripts.append(writes)
        }
        self.seedEntries = seedEntries
        self.writers = scripts
        self.finalLabels = state
    }

    /// Checks that `store` holds exactly the seed plus every write issued —
    /// its last seq, the records after the seed, its labels and each label's
    /// final title and flag — and returns the records after the seed.
    func verify(_ store: LabelStore) throws -> [EventRecord] {
        let expected = seedEntries.count + writeCount
        let list = store.snapshot
        guard list.lastSeq == UInt64(expected) else {
            throw BenchError("the store's last seq is \(list.lastSeq) after \(seedEntries.count) seeds and \(writeCount) writes")
        }
        var records: [EventRecord] = []
        records.reserveCapacity(writeCount)
        while true {
            let batch = try store.storage.read(from: UInt64(seedEntries.count + records.count + 1), maxCount: 10_000)
            if batch.isEmpty { break }
            records += batch
        }
        guard records.count == writeCount else {
            throw BenchError("the log holds \(records.count) records after the seed for \(writeCount) writes issued")
        }
        guard list.count == finalLabels.count else {
            throw BenchError("the store has \(list.count) labels, the script \(finalLabels.count)")
        }
        for (id, final) in finalLabels {
            guard let label = list.label(id), FinalLabel(title: label.title, isEnabled: label.isEnabled) == final else {
                throw BenchError("label \(id) is \(list.label(id).map { "\"\($0.title)\" \($0.isEnabled)" } ?? "missing"), not as scripted")
            }
        }
        return records
    }

    /// The sizes of the commit groups of `records`, in seq order, when the
    /// store's clock was a ``GroupTicker``: the committer reads the clock once
    /// per group, so a group's records are the consecutive ones with one timestamp.
    static func groupSizes(_ records: [EventRecord]) -> [Int] {
        var sizes: [Int] = []
        var last: EventTimestamp?
        for record in records {
            if let last, record.timestamp == last {
                sizes[sizes.count - 1] += 1
            } else {
                sizes.append(1)
            }
            last = record.timestamp
        }
        return sizes
    }
}

/// A store clock that ticks once per reading (1 ms per tick from a fixed
/// date), so each commit group's records carry a timestamp of their own.
final class GroupTicker: Sendable {
    private let ticks = Atomic<Int64>(0)

    /// The next tick.
    func next() -> EventTimestamp {
        EventTimestamp(millisecondsSince1970: 1_767_571_200_000 + ticks.add(1, ordering: .relaxed).newValue)
    }
}

/// Each writer's latencies (in milliseconds), kept by the writer once it is done.
final class LatencySink: Sendable {
    private let slots: Mutex<[[Double]]>

    /// A sink for `writers` writers.
    init(writers: Int) { slots = Mutex(Array(repeating: [], count: writers)) }

    /// Keeps writer `writer`'s latencies.
    func keep(_ latencies: [Double], writer: Int) { slots.withLock { $0[writer] = latencies } }

    /// Every writer's latencies.
    var all: [Double] { slots.withLock { $0.flatMap { $0 } } }
}
