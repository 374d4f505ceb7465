import EventLog
import LabelProjection

/// Replays a log into a real ``LabelStore`` (over an ``InMemoryEventLog``)
/// with the subscriptions `trace` makes — the list's membership, the enabled
/// count, the view of a query, and the title and isEnabled of every label (or
/// of the `labels` given), each subscribed before the first record about it
/// is appended — and hands out each record with what folding it changed and
/// what those subscriptions received for it. Who is told is decided by the
/// store's own dispatch, not here. `trace` and `timeline` both read it.
///
/// It starts at seq 1, or from a checkpoint of the list (the store then starts
/// with that list, over a log that continues after its seq), and stops after
/// `through` when given (nothing after it is read).
final class NotifyingReplay {
    /// One record, folded, with the notifications the store delivered for it.
    struct Step {
        /// The record.
        let record: EventRecord
        /// What the record changed (``LabelList/apply(_:)`` on ``NotifyingReplay/list``).
        let change: LabelChange
        /// What the subscriptions received for this record, in delivery order.
        let notifications: [ChangeNotification]
        /// The byte offset of the record's frame.
        let offset: Int64
    }

    /// The log's path, as given.
    let path: String
    /// The fold of every record handed out so far.
    private(set) var list: LabelList
    /// The last title each label no longer in ``list`` was given (for naming removed labels).
    private(set) var lastTitles: [LabelID: String] = [:]
    /// The reader (its header, its size, its tail warning).
    let replay: Replay
    private let store: LabelStore
    private let labels: Set<LabelID>?
    private let through: UInt64?
    private let inbox = NotificationInbox()
    private var subscriptions: [Subscription] = []
    private var subscribed = Set<LabelID>()
    private var batch: [Replay.Step] = []
    private var notifications: [UInt64: [ChangeNotification]] = [:]
    private var failure: Failure?
    private var next = 0

    /// Opens `path` and a store to replay it into; `query` adds a subscription to that view,
    /// `labels` (when given) limits the title and isEnabled subscriptions to those labels.
    /// Without `start`, `archived` says from which seq the records are wanted
    /// and whether the user named it: a based log's archive is then read
    /// first when that seq is before the log's first (``Replay/includeArchived(from:explicit:)``).
    /// `known` is the record after `start`, when the caller already read it
    /// from a server list (it is then not read again).
    init(
        path: String, query: ViewQuery?, labels: Set<LabelID>? = nil, start: ListCheckpoint? = nil, through: UInt64? = nil,
        archived: (from: UInt64, explicit: Bool)? = nil, known: EventRecord? = nil, console: Console, progress: String? = nil
    ) throws {
        self.path = path
        self.labels = labels
        self.through = through
        replay = try Replay(path: path, folds: false, console: console, progress: progress)
        replay.readsNoFurther(than: through)
        if start == nil, let archived { try replay.includeArchived(from: archived.from, explicit: archived.explicit) }
        if let start {
            try replay.start(from: start)
            // A server list's record already read (the label index's): not read again.
            if let known { replay.prefill(known) }
            list = start.list
            lastTitles = start.removed.mapValues(\.title)
            store = LabelStore(resuming: start.list, over: InMemoryEventLog(after: start.list.lastSeq))
        } else if replay.list.lastSeq > 0 {
            // A based log: from its base's list.
            list = replay.list
            store = LabelStore(resuming: replay.list, over: InMemoryEventLog(after: replay.list.lastSeq))
        } else {
            list = LabelList()
            store = try LabelStore(storage: InMemoryEventLog())
        }
        subscriptions = [
            store.subscribe(to: .membership) { [inbox] in inbox.append($0) },
            store.subscribe(to: .enabledCount) { [inbox] in inbox.append($0) }
        ]
        if let query { subscriptions.append(store.subscribe(to: .view(query)) { [inbox] in inbox.append($0) }) }
    }

    deinit { withExtendedLifetime(subscriptions) {} }

    /// The next record with its notifications; `nil` after the last. A record
    /// the store refuses (a log that contradicts itself) throws, naming its seq
    /// and byte offset, after the records before it were handed out.
    func nextStep() throws -> Step? {
        if next == batch.count {
            if let failure { throw failure }
            try readBatch()
            if batch.isEmpty {
                if let failure { throw failure }
                return nil
            }
        }
        let step = batch[next]
        next += 1
        let change = try list.apply(step.record)
        if let (id, title) = Replay.statedTitle(step.record.event) { lastTitles[id] = title }
        return Step(record: step.record, change: change, notifications: notifications[step.record.seq] ?? [], offset: step.offset)
    }

    /// Reads up to 4,096 records, subscribes to the labels they name, appends them to the store and collects what it delivered.
    private func readBatch() throws {
        batch.removeAll(keepingCapacity: true)
        next = 0
        while batch.count < 4096, replay.lastSeq < through ?? .max, let step = try replay.next() { batch.append(step) }
        guard !batch.isEmpty else { return }
        for step in batch {
            guard let id = step.record.event.labelID, labels?.contains(id) ?? true, subscribed.insert(id).inserted else { continue }
            subscriptions.append(store.subscribe(to: .title(id)) { [inbox] in inbox.append($0) })
            subscriptions.append(store.subscribe(to: .isEnabled(id)) { [inbox] in inbox.append($0) })
        }
        let entries = batch.map { LogEntry($0.record.event, timestamp: $0.record.timestamp, actor: $0.record.actor, note: $0.record.note) }
        do {
            try store.append(entries: entries)
        } catch {
            // Hand out the records before the refused one, then report it.
            let index = error.batchIndex ?? 0
            if index > 0 { _ = try? store.append(entries: Array(entries[..<index])) }
            let bad = batch[index]
            batch.removeSubrange(index...)
            failure = Failure(
                "\(path): record seq \(bad.record.seq)\(replay.at(bad.offset)) contradicts the records before it: \(error.message) (run '\(Tool.name) verify')"
            )
        }
        notifications = Dictionary(grouping: inbox.take(), by: \.seq)
    }
}
