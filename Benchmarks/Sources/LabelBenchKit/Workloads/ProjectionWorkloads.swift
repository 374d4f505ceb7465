import EventLog
import LabelProjection

/// The fold of the projection as a replay consumer: every record goes through
/// `LabelList.replay(_:)`, the one fold of the log as a replay runs it (the
/// checks of `apply(_:)`, no change description), as `LabelStore.open` does. On our side of
/// ``ReplayWorkload`` the store itself folds (``FoldedProjectionConsumer``:
/// `LabelStore.open` with manual snapshots and no snapshot on disk); on
/// SQLite's side each decoded row is applied here. The digests (a fingerprint
/// of the whole list) must agree.
struct ProjectionFoldConsumer: FoldedProjectionConsumer {
    private var list = LabelList()
    init() {}
    init(folded list: LabelList) { self.list = list }
    static var name: String { "fold" }
    mutating func consume(_ record: EventRecord) throws { try list.replay(record) }
    var digest: String { ProjectionFixtures.digest(list) }
}

/// A consumer whose fold our side of ``ReplayWorkload`` gets from `LabelStore.open`
/// (which replays the log into a `LabelList` itself) instead of from `LogWriter.open`.
protocol FoldedProjectionConsumer: ReplayConsumer {
    /// The consumer holding the store's folded list.
    init(folded list: LabelList)
}

extension WorkloadCatalog {
    /// The workloads on the projection (`LabelProjection`), in the order they run.
    static func projectionWorkloads(for settings: BenchSettings) -> [any Workload] {
        var all: [any Workload] = [
            ReplayWorkload<ProjectionFoldConsumer>(eventCount: settings.size(full: 1_000_000, quick: 200_000), settings: settings),
            ReplayWorkload<ProjectionFoldConsumer>(
                eventCount: settings.size(full: 1_000_000, quick: 200_000), settings: settings, format: LogFormat.batchVersion)
        ]
        if settings.big {
            all.append(ReplayWorkload<ProjectionFoldConsumer>(eventCount: 10_000_000, settings: settings, repetitions: 3))
        }
        all += ApplyKindWorkload.all(for: settings)
        all.append(NaiveArrayWorkload(settings: settings))
        all += ObservableModelWorkload.all(for: settings)
        all += EditRoundTripWorkload.all(for: settings)
        all.append(DispatchWorkload(settings: settings))
        all.append(StoreWritersWorkload(settings: settings, writers: .threads))
        all.append(StoreWritersWorkload(settings: settings, writers: .tasks))
        all.append(ColdOpenWorkload(settings: settings))
        all += AuditQueryWorkload.all(for: settings)
        #if os(Linux)
        all.append(MemoryWorkload(settings: settings))
        #endif
        return all
    }
}
