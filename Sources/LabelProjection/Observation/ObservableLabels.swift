import EventLog
import Observation

/// One label as an observable row: SwiftUI (or `withObservationTracking`)
/// tracks each property separately, so a view that read only `title` is not
/// invalidated when `isEnabled` changes, and no row is invalidated by another
/// row's change. Properties change only when their value changes.
///
/// Main-actor isolated: read and observe it on the main actor.
@MainActor
@Observable
public final class ObservableLabel: Identifiable {
    /// The stable identity.
    public let id: LabelID
    /// The title.
    public internal(set) var title: String
    /// Whether the label is enabled.
    public internal(set) var isEnabled: Bool
    /// The label's version (see ``Label/version``).
    public internal(set) var version: UInt64

    init(_ label: Label) {
        id = label.id
        title = label.title
        isEnabled = label.isEnabled
        version = label.version
    }

    /// The row as a ``Label`` value.
    public var label: Label { Label(id: id, title: title, isEnabled: isEnabled, version: version) }

    /// Sets each property that differs from `label` (and only those; a title
    /// differs when its bytes do, see ``Swift/String/sameBytes(_:_:)``).
    func update(from label: Label) {
        if !String.sameBytes(title, label.title) { title = label.title }
        if isEnabled != label.isEnabled { isEnabled = label.isEnabled }
        if version != label.version { version = label.version }
    }
}

/// An `@Observable` model of a store's list for SwiftUI: `rows` (observed as
/// membership and order) holds one ``ObservableLabel`` per label (observed
/// per property), plus ``enabledCount``.
///
/// A record changes only what it changes: a toggle sets one row's
/// `isEnabled` and `version` and `enabledCount`; a rename sets one row's
/// `title` and `version`; only add, remove, move and reorder assign `rows`.
/// So a SwiftUI list re-renders only the rows whose read properties changed.
///
/// It is main-actor isolated and keeps itself current: from ``init(store:)``
/// on it subscribes to the store with ``DeliveryTarget/mainActor`` delivery
/// and applies each record on the main actor, whichever thread or task wrote
/// it — no task for the app to start or keep alive:
///
/// ```swift
/// @State var model = ObservableLabels(store: store)      // on the main actor
/// List(model.rows) { row in Text(row.title) }
/// ```
///
/// A write's records reach the model on a later turn of the main actor (never
/// inside the write). To see your own write at once, call ``update()`` after
/// it; each record is still applied once, in seq order, whichever path brings
/// it first. The model holds its subscription and the store; releasing the
/// model cancels the subscription (the store's ``LabelStore/subscriberCount``
/// drops) and discards the records queued for it. Closing the store ends the
/// subscription after the records written before the close have been
/// applied (the model holds the store, so the store is not released before
/// the model). A model made on a closed store shows its state and does not
/// follow it.
@MainActor
@Observable
public final class ObservableLabels {
    /// The rows in list order. Assigned only when membership or order changes.
    public private(set) var rows: [ObservableLabel] = []
    /// The number of enabled labels.
    public private(set) var enabledCount = 0
    /// The seq of the last record applied to the model (not observed).
    @ObservationIgnored public private(set) var appliedSeq: UInt64 = 0
    /// The store the model mirrors.
    @ObservationIgnored public let store: LabelStore
    @ObservationIgnored private var byID: [LabelID: ObservableLabel] = [:]
    /// The main-actor subscription that keeps the model current; released
    /// (so cancelled) with the model. Its handler holds the model weakly.
    @ObservationIgnored private var following: Subscription?
    /// How many times the model was rebuilt by ``reload()`` (for tests and diagnostics).
    @ObservationIgnored private(set) var reloads = 0
    /// How many records the model applied one by one (for tests and diagnostics).
    @ObservationIgnored private(set) var appliedRecords = 0

    /// A model showing the store's current state, following the store from
    /// then on (see the type's discussion).
    ///
    /// - Complexity: O(n + t) for n labels with t title bytes, on the main actor;
    ///   then per record as ``update()`` applies it.
    public init(store: LabelStore) {
        self.store = store
        // Subscribe live first, then load: every record after the subscription
        // point is delivered, and those the load already holds are skipped as
        // duplicates (``apply(_:)``), so nothing is missed and nothing folded twice.
        // On a closed store the subscription comes back cancelled.
        following = store.subscribe(to: .everything, on: .mainActor) { [weak self] notification in
            self?.apply(notification.record)
        }
        reload()
    }

    /// The row with this id, or `nil`.
    ///
    /// - Complexity: O(1) expected.
    public func row(_ id: LabelID) -> ObservableLabel? { byID[id] }

    /// Applies the records the store has applied since the model last caught up.
    /// Falls back to ``reload()`` if the log cannot be read.
    ///
    /// - Complexity: O(k) log reads for the k records behind, on the main actor. Each
    ///   rename or toggle then costs O(1) expected; each add, remove, move or reorder
    ///   O(n), since it edits or replaces the `rows` array. A fallback to ``reload()``
    ///   costs what that does.
    public func update() {
        let target = store.lastSeq
        guard appliedSeq < target else { return }
        do {
            try store.forEachStoredRecord(from: appliedSeq + 1, through: target) { record in
                apply(record)
                return true
            }
        } catch {
            reload()
        }
    }

    /// Waits until the store closes or the calling task is cancelled, applying
    /// each record on the main actor as it arrives.
    ///
    /// Not needed any more: the model follows the store by itself from
    /// ``init(store:)`` on. Calling it is harmless (each record is still
    /// applied once, in seq order), but it keeps an async stream and a task.
    ///
    /// - Complexity: ``update()`` first; then per record as ``update()`` applies it.
    @available(
        *, deprecated, message: "ObservableLabels follows the store by itself from init(store:) on; remove the task that calls follow()"
    )
    public func follow() async {
        update()
        guard let stream = try? store.changes(for: .everything, from: appliedSeq + 1) else { return }
        for await notification in stream { apply(notification.record) }
    }

    /// Rebuilds the model from the store's snapshot, keeping (and updating in
    /// place) the row objects of labels that are still there.
    ///
    /// - Complexity: O(n + t) for n labels with t title bytes, on the main actor.
    public func reload() {
        reloads += 1
        let snapshot = store.snapshot
        var next: [LabelID: ObservableLabel] = [:]
        let newRows = snapshot.labels.map { label -> ObservableLabel in
            let row = byID[label.id] ?? ObservableLabel(label)
            row.update(from: label)
            next[label.id] = row
            return row
        }
        byID = next
        if rows.map(\.id) != newRows.map(\.id) { rows = newRows }
        if enabledCount != snapshot.enabledCount { enabledCount = snapshot.enabledCount }
        appliedSeq = snapshot.lastSeq
    }

    /// Applies one record (ignored if already applied; a gap or an
    /// inconsistent record triggers ``reload()``).
    func apply(_ record: EventRecord) {
        guard record.seq > appliedSeq else { return }
        guard record.seq == appliedSeq + 1, applyEvent(record.event, seq: record.seq) else {
            reload()
            return
        }
        appliedSeq = record.seq
        appliedRecords += 1
    }

    private func applyEvent(_ event: LabelEvent, seq: UInt64) -> Bool {
        switch event {
        case .added(let id, let title, let isEnabled, let index):
            guard byID[id] == nil, index <= rows.count else { return false }
            let row = ObservableLabel(Label(id: id, title: title, isEnabled: isEnabled, version: seq))
            byID[id] = row
            rows.insert(row, at: index)
            if isEnabled { enabledCount += 1 }
        case .renamed(let id, _, let newTitle):
            guard let row = byID[id] else { return false }
            if !String.sameBytes(row.title, newTitle) {
                row.update(from: Label(id: id, title: newTitle, isEnabled: row.isEnabled, version: seq))
            }
        case .toggled(let id, let isEnabled):
            guard let row = byID[id] else { return false }
            row.update(from: Label(id: id, title: row.title, isEnabled: isEnabled, version: seq))
            enabledCount += isEnabled ? 1 : -1
        case .removed(let id, let index, _, let isEnabled):
            guard index < rows.count, rows[index].id == id else { return false }
            byID[id] = nil
            rows.remove(at: index)
            if isEnabled { enabledCount -= 1 }
        case .moved(let id, let from, let to):
            guard from < rows.count, to < rows.count, rows[from].id == id else { return false }
            var next = rows
            next.insert(next.remove(at: from), at: to)
            rows = next
        case .reordered(let order):
            guard order.count == rows.count else { return false }
            var next: [ObservableLabel] = []
            next.reserveCapacity(order.count)
            for id in order {
                guard let row = byID[id] else { return false }
                next.append(row)
            }
            if next.map(\.id) != rows.map(\.id) { rows = next }
        case .rejected:
            break
        }
        return true
    }
}
