import Dispatch
import EventLog
import Synchronization

/// The embedded label store: a log, its projection, commands and subscriptions.
///
/// It opens a log (``open(path:options:)-51jse`` or, suspending,
/// ``open(path:options:)-2xe5l`` for a file; ``init(storage:options:)`` for any
/// `EventStorage`), folds it into a ``LabelList``, and then accepts
/// commands: each is validated against the current state, turned into events,
/// appended to the log, applied to the projection, and then published.
///
/// ## Threading and ordering
/// A store can be used from any thread or task (it is `Sendable`).
/// - All state (the projection, the subscriber registry, the maintained
///   views) is behind one lock (`Locked`).
/// - Writes are *group-committed*: a write is queued, and the next committer
///   takes every queued write, validates each against the state the ones
///   before it leave, appends them all in one append (one sync), and only then
///   applies them. A synchronous write commits on its own thread; an `async`
///   one on the store's serial commit queue (a Dispatch queue, not the
///   cooperative pool), so no task's thread waits for a sync.
///   Writes are linearizable: they take effect in seq order, in the order
///   they were queued, and a read sees either all or none of a write (a batch
///   included) and never a write that is not yet as durable as the log's
///   `Durability` promises (a read waits while a group is being appended).
/// - Reads take the lock briefly and return values (snapshots).
/// - Notifications are delivered *outside* the lock, one at a time, in seq
///   order, through a FIFO drained by whichever writer finds it idle (see
///   ``subscribe(to:_:)``). A callback may re-enter the store, including
///   writing; such a write's notifications follow the current callback.
/// - Several stores may write one shared storage (an `InMemoryEventLog`
///   shared in a process; a server log shared by processes and hosts). A
///   write that loses the race gets a seq conflict from the storage, catches
///   up (folds and publishes the other writers' records, as ``refresh()``),
///   validates the write again against the new state, and retries, up to
///   ``Options/conflictRetries`` times with a short jittered pause after the
///   second. ``startFollowing(wait:onError:)`` folds other writers' records
///   as they come. A file log has one writer: its lock keeps others out.
public final class LabelStore: Sendable {
    /// How a store opens its log and records writes.
    public struct Options: Sendable {
        /// When an append is acknowledged (file logs only). Default: `Durability.syncEachAppend`.
        public var durability: Durability
        /// What to do with damage found when opening a file log. Default: `RecoveryMode.tolerateCorruptedTail`.
        public var recovery: RecoveryMode
        /// Create the file log when it does not exist. Default: `false`.
        public var createIfMissing: Bool
        /// Append a `rejected` audit record for every refused write. Default: `false`.
        public var recordRejections: Bool
        /// The clock that stamps writes without an explicit timestamp.
        public var clock: @Sendable () -> EventTimestamp
        /// When snapshots of the projection are written and used (file logs only). Default: ``SnapshotPolicy/init(everyRecords:everyBytes:onClose:minRecordsOnClose:keep:useOnOpen:scanCoveredRecordsOnOpen:)``.
        public var snapshots: SnapshotPolicy
        /// The most notifications an async stream (``LabelStore/changes(for:)``) holds for a
        /// consumer that does not keep up; past it the stream drops its buffer and later
        /// catches up from the log, losing nothing. At least 1. Default: 10,000.
        public var streamBufferLimit: Int
        /// How many times a write that lost the race to another writer of a
        /// shared storage is validated again and retried before it fails with
        /// the storage's seq conflict. Default: 16.
        public var conflictRetries: Int
        /// How much history a file log keeps, applied each time the store
        /// opens it (now is ``clock``'s time). Whether a cut is due is decided
        /// from what opening found (the log's first and last seqs; for an age,
        /// the time of one record read through the index), so a log with
        /// nothing due costs nothing more; when one is due, the store lets the
        /// log go, cuts it (``LabelStore/applyRetention(path:_:now:)``: older
        /// records move to an archive or are dropped) and opens it again from
        /// its base. What it did, or why it could not, is in
        /// ``LabelStore/retentionReport``; a failed cut never keeps the store
        /// from opening. While the store stays open, the policy is applied
        /// again after each automatic snapshot, on the background thread that
        /// keeps the history files: the writer cuts its own file while writes
        /// go on (they wait only for the records appended meanwhile to be
        /// copied and two syncs), never past a seq an async stream may still
        /// read. Default: `nil`, every record is kept.
        public var retention: Retention?
        /// The log format a log this open creates is written in (`LogWriter.Options.newLogFormat`
        /// of the EventLog module): 2, or 4 (batch frames). Default: 2.
        public var newLogFormat: UInt16 = LogFormat.currentVersion

        /// Creates options; every parameter has the documented default.
        public init(
            durability: Durability = .syncEachAppend, recovery: RecoveryMode = .tolerateCorruptedTail,
            createIfMissing: Bool = false, recordRejections: Bool = false,
            clock: @escaping @Sendable () -> EventTimestamp = { .now() },
            snapshots: SnapshotPolicy = SnapshotPolicy(), streamBufferLimit: Int = 10_000,
            conflictRetries: Int = 16, retention: Retention? = nil
        ) {
            self.retention = retention
            self.durability = durability
            self.recovery = recovery
            self.createIfMissing = createIfMissing
            self.recordRejections = recordRejections
            self.clock = clock
            self.snapshots = snapshots
            self.streamBufferLimit = max(1, streamBufferLimit)
            self.conflictRetries = max(0, conflictRetries)
        }
    }

    /// Everything behind the store's lock.
    struct State {
        var list: LabelList
        var hub = SubscriptionHub()
        var closed = false
        /// Set when a stored record could not be applied; the store refuses writes from then on.
        var broken: StoreError?
        /// Snapshot bookkeeping (file logs only).
        var snapshots = SnapshotState()
        /// The following thread's stop flag, while the store follows its storage.
        var follower: Follower?
    }

    /// The log the store reads and appends to.
    public let storage: any EventStorage
    /// The options the store was opened with.
    public let options: Options
    /// The file log, when the store opened it itself (``close()`` closes it).
    let ownedWriter: LogWriter?
    /// The list before the log's first record: empty, or a based log's base image (its earlier records were
    /// archived or dropped). It moves forward when ``Options/retention`` cuts the open log.
    var origin: LabelList { log.origin }
    /// How the store and its streams read the log (also after close, and streams after release).
    let log: StoreLog
    let state: Locked<State>
    let delivery = DeliveryQueue()
    /// Writes submitted and not yet committed (see ``commitQueued(_:)``).
    let writeQueue = WriteQueue()
    /// The store's serial commit queue: commits the writes of async callers,
    /// so a sync never blocks a task's thread.
    let commitQueue = DispatchQueue(label: "LabelStore.commit", qos: .userInitiated)
    /// The source of subscriber ids (registration order).
    let subscriberIDs = Atomic<UInt64>(0)
    /// Serializes writing and pruning snapshot files (never held with `state`).
    let snapshotFileLock = Locked<Void>(())
    /// The history tree's frontiers computed so far (``head``; never held with `state`).
    let historyFrontiers = Locked(HistoryFrontiers())
    /// What ``Options/retention`` did when the store opened (``retentionReport``).
    let retentionOutcome = Locked<RetentionReport?>(nil)

    /// Opens (or, with ``Options/createIfMissing``, creates) the file log at
    /// `path` and folds it into the projection in the same pass as recovery.
    ///
    /// With ``SnapshotPolicy/useOnOpen`` (the default), the fold starts from
    /// the newest valid snapshot next to the log and folds only the records
    /// after it. A snapshot that is damaged, of another log, ahead of the log,
    /// or of a history the log no longer has is never used: it is reported in
    /// ``snapshotReport`` and the log is folded from seq 1.
    ///
    /// - Throws: ``StoreError``: ``StoreError/Code/storage(_:)`` wrapping the
    ///   log's `EventLogError` (`EventLogError.Code.fileNotFound` without
    ///   ``Options/createIfMissing``, `EventLogError.Code.logInUse` when another
    ///   writer holds the log, `EventLogError.Code.corruptRecord` for damage
    ///   recovery does not cut, `EventLogError.Code.notALog`,
    ///   `EventLogError.Code.ioError`, …);
    ///   ``StoreError/Code/inconsistentEvent(_:)`` if a stored record
    ///   contradicts the records before it. The log is left as it was, except
    ///   for a torn tail recovery cuts (and reports).
    /// - Complexity: O(records after the snapshot used), or O(records) from
    ///   seq 1 without one; plus reading the snapshot, O(labels ever known).
    public static func open(path: String, options: Options = Options()) throws(StoreError) -> LabelStore {
        var (writer, list, snapshots, origin) = try openFolding(path: path, options: options)
        // Retention is decided from what the open found (no extra read unless a cut is due);
        // a cut needs the log to itself: the writer lets go, and the log is opened again after it.
        var retention: RetentionReport?
        if let policy = options.retention {
            let now = options.clock()
            if try retentionIsDue(policy, in: writer, firstSeq: origin.lastSeq + 1, now: now) {
                writer.close()
                retention = RetentionReport.applying(policy, to: path, now: now)
                (writer, list, snapshots, origin) = try openFolding(path: path, options: options)
            } else {
                retention = RetentionReport(cut: nil, error: nil)
            }
        }
        let store = LabelStore(storage: writer, ownedWriter: writer, list: list, options: options, snapshots: snapshots, origin: origin)
        store.retentionOutcome.withLock { $0 = retention }
        return store
    }

    /// Opens a store over any storage (e.g. an `InMemoryEventLog`, a
    /// PostgreSQL list), folding its records. The caller keeps ownership of
    /// `storage`.
    ///
    /// A storage that keeps checkpoints (`CheckpointStorage`, such as a
    /// PostgreSQL list) is opened from its newest usable checkpoint, and only
    /// the records after it are folded; the store then writes the next
    /// checkpoint whenever one of its own appends crosses the storage's
    /// interval, on a background thread (a failure shows in
    /// ``snapshotReport``, never in a write).
    ///
    /// - Throws: ``StoreError``: ``StoreError/Code/storage(_:)`` when reading
    ///   fails, ``StoreError/Code/inconsistentEvent(_:)`` if a record
    ///   contradicts the records before it.
    /// - Complexity: O(records in `storage`), or O(the checkpoint's size + the records after it).
    public convenience init(storage: some EventStorage, options: Options = Options()) throws(StoreError) {
        // A storage whose first records were cut off starts from its base's list.
        let origin = try Self.origin(of: storage)
        let (list, base) = try Self.openingList(over: storage, origin: origin)
        self.init(storage: storage, ownedWriter: nil, list: list, options: options, origin: origin)
        if let base { state.withLock { $0.snapshots.storageBase = base } }
    }

    /// The list `storage` starts from: empty, or its base's (`EventStorage.base`).
    static func origin(of storage: any EventStorage) throws(StoreError) -> LabelList {
        guard let base = storage.base else { return LabelList() }
        // The history the image must name: the log's or the list's id (another storage's image names its own).
        let id =
            (storage as? LogWriter)?.header.logID ?? (storage as? any CheckpointStorage)?.checkpointHistoryID
            ?? base.image.withUnsafeBytes { (try? LabelList.decodeSnapshot($0))?.header.logID } ?? LabelID()
        return try LabelList.origin(of: base, logID: id, describe: "the storage's base")
    }

    init(
        storage: any EventStorage, ownedWriter: LogWriter?, list: LabelList, options: Options, snapshots: SnapshotState = SnapshotState(),
        origin: LabelList = LabelList()
    ) {
        self.storage = storage
        self.ownedWriter = ownedWriter
        self.log = StoreLog(storage: storage, ownsStorage: ownedWriter != nil, appliedSeq: list.lastSeq, origin: origin)
        self.options = options
        self.state = Locked(State(list: list, snapshots: snapshots))
        // A based log's tree continues from its base's frontier.
        if let start = baseFrontier {
            historyFrontiers.withLock {
                $0.newest = start
                $0.origin = start
            }
        }
    }

    /// Releasing the store ends its subscriptions. An async stream first
    /// delivers what it is owed — every notification up to the store's last
    /// seq, read from the log if it fell behind — then ends.
    deinit {
        endSubscriptions { $0.hub.removeAll() }
        // At once, even while background work (a retention cut) still holds the writer.
        ownedWriter?.close()
    }

    /// Closes the store: finishes every subscription (async streams end
    /// once they have delivered what they are owed, up to the last seq),
    /// refuses later writes with ``StoreError/Code/closed``, and closes the
    /// file log if the store opened it. Reads, time travel and streams that
    /// catch up keep working (a closed file log is read through a
    /// `LogReader`). Call it when no other thread is writing.
    public func close() {
        var checkpoint: PendingSnapshot?
        endSubscriptions { s in
            checkpoint = s.closed ? nil : snapshotDueOnClose(&s)
            s.closed = true
            s.follower?.stopped.store(true, ordering: .releasing)
            s.follower = nil
            return s.hub.removeAll()
        }
        if let checkpoint { writeAutomaticSnapshot(checkpoint) }
        ownedWriter?.close()
    }

    /// Unregisters the subscribers `remove` takes from the state (under the
    /// store's lock) and ends each behind what the delivery queue holds for
    /// it, so no notification for a record already applied is dropped; then
    /// delivers, unless another thread is delivering (which then ends them).
    private func endSubscriptions(_ remove: (inout State) -> [SubscriberBox]) {
        state.withLock { s in
            let boxes = remove(&s)
            delivery.enqueue(boxes.map { DeliveryQueue.Item(subscriber: $0, notification: nil) })
        }
        delivery.drain()
    }

    /// Calls `body` for each stored record from `seq` through `last` (`nil`: the end), in order,
    /// read straight from `storage` (its errors as ``StoreError/Code/storage(_:)``); `body` returns `false` to stop.
    static func forEachRecord(
        in storage: any EventStorage, from seq: UInt64, through last: UInt64?,
        _ body: (EventRecord) throws(StoreError) -> Bool
    ) throws(StoreError) {
        try forEachRecordInBatches(
            from: seq, through: last, batch: StoreLog.batch,
            read: { (next, count) throws(StoreError) in
                do throws(EventLogError) { return try storage.read(from: next, maxCount: count) } catch { throw StoreError.storage(error) }
            }, body)
    }
}
