import EventLog
import Observation

/// An `@Observable` model of a store's list for SwiftUI: `rows` (observed as
/// membership and order) holds one ``ObservableLabel`` per label (observed
/// per property), plus ``count`` and ``enabledCount``. Filtered screens are
/// ``ObservableView``s made from it, sharing its row objects.
///
/// A record changes only what it changes: a toggle sets one row's
/// `isEnabled` and `version` and `enabledCount`; a rename sets one row's
/// `title` and `version`; only add, remove, move and reorder assign `rows`
/// (and add and remove `count`). So a SwiftUI list re-renders only the rows
/// whose read properties changed.
///
/// There is one definition of what a record does, the store's fold
/// (``LabelList/apply(_:)``): the model applies the ``LabelChange`` each
/// notification carries (the label before and after, the enabled count
/// after, the event's positions), never re-folding records itself.
///
/// It is main-actor isolated and keeps itself current: from ``init(store:)``
/// on it subscribes to the store with main-actor delivery and applies each
/// record on the main actor, whichever thread or task wrote it — no task for
/// the app to start or keep alive:
///
/// ```swift
/// @State var model = ObservableLabels(store: store)      // on the main actor
/// List(model.rows) { row in Text(row.title) }
/// ```
///
/// A write's records reach the model on a later turn of the main actor (never
/// inside the write). To see your own write at once, call ``update()`` after
/// it (edits made through a row, ``ObservableLabel/rename(to:options:ifUnchanged:)``
/// and the others, do); each record is still applied once, in seq order,
/// whichever path brings it first. The model holds its subscription and the store; releasing the
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
    public internal(set) var rows: [ObservableLabel] = []
    /// The number of labels (`rows.count`). Changes only on add and remove.
    public internal(set) var count = 0
    /// The number of enabled labels.
    public internal(set) var enabledCount = 0
    /// The seq of the last record applied to the model (not observed).
    @ObservationIgnored public internal(set) var appliedSeq: UInt64 = 0
    /// The store the model mirrors.
    @ObservationIgnored public let store: LabelStore
    @ObservationIgnored var byID: [LabelID: ObservableLabel] = [:]
    /// The FIFO the model's subscription and its views' share (see
    /// ``LabelStore/subscribe(to:sharing:cancelsMailbox:)``): one total order.
    @ObservationIgnored var mailbox: DeliveryMailbox?
    /// The main-actor subscription that keeps the model current; released
    /// (so cancelled, discarding what the mailbox holds) with the model. The
    /// mailbox's runs hold the model weakly.
    @ObservationIgnored private var following: Subscription?
    /// The views made from this model, by query (weakly; released views are dropped as found).
    @ObservationIgnored var views: [ViewQuery: [WeakView]] = [:]
    /// Whether a notification is being applied (``update()`` then does nothing: no re-entrant drain).
    @ObservationIgnored var routing = false
    /// The tasks waiting in ``caughtUp(to:)``, resumed as ``appliedSeq`` moves.
    @ObservationIgnored var catchUpWaiters: [CatchUpWaiter] = []
    /// The id of the next wait in ``caughtUp(to:)``.
    @ObservationIgnored var nextCatchUpWaiter: UInt64 = 0
    /// How many times the model was rebuilt by ``reload()`` (for tests and diagnostics).
    @ObservationIgnored var reloads = 0
    /// How many records the model applied one by one (for tests and diagnostics).
    @ObservationIgnored var appliedRecords = 0

    /// A view registered with the model, held weakly.
    struct WeakView {
        weak var view: ObservableView?
    }

    /// A model showing the store's current state, following the store from
    /// then on (see the type's discussion).
    ///
    /// - Complexity: O(n + t) for n labels with t title bytes, on the main actor;
    ///   then per record as ``update()`` applies it.
    public init(store: LabelStore) {
        self.store = store
        // Subscribe live first, then load: every record after the subscription
        // point is delivered, and those the load already holds are skipped as
        // duplicates, so nothing is missed and nothing applied twice. On a closed
        // store the subscription comes back cancelled.
        let mailbox = DeliveryMailbox { [weak self] mailbox in
            Task { @MainActor in mailbox.run { self?.route($0) } }
        }
        self.mailbox = mailbox
        following = store.subscribe(to: .everything, sharing: mailbox, cancelsMailbox: true)
        reload()
    }

    /// The row with this id, or `nil`.
    ///
    /// - Complexity: O(1) expected.
    public func row(_ id: LabelID) -> ObservableLabel? { byID[id] }

    /// Applies, now, the records the store has handed to the model and its
    /// views and that they have not applied yet — on the calling thread's turn
    /// of the main actor rather than a later one. After a write made on the
    /// main actor returns, that includes the write's records, unless another
    /// thread is delivering notifications at that moment; then the model
    /// catches up with ``reload()`` instead. Does nothing when called while the
    /// model is applying a record (from an observer's callback).
    ///
    /// - Complexity: Per record applied: O(1) expected for a rename or toggle;
    ///   O(n) at worst for an add, remove or move, which edit the `rows` array in
    ///   place (a move shifts the rows between its two positions); O(n) for a reorder.
    ///   Each view the record changes, likewise in its rows. A fallback to ``reload()``
    ///   costs what that does.
    public func update() {
        guard !routing, let mailbox else { return }
        mailbox.drain { route($0) }
        if appliedSeq < store.lastSeq { reload() }
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
        for await notification in stream { apply(notification.change) }
    }

    /// Rebuilds the model, and every view made from it, from the store's
    /// current state, keeping (and updating in place) the row objects of
    /// labels that are still there; `rows` and the counts are assigned only
    /// where they differ.
    ///
    /// - Complexity: O(n + t) for n labels with t title bytes, on the main actor,
    ///   plus for each view made from it a filtering of the list, O(n) matches.
    public func reload() {
        reload(to: store.snapshot)
    }

    /// Rebuilds the model from `list` (a state of the store at or after
    /// ``appliedSeq``) and brings every view to the same state.
    func reload(to list: LabelList) {
        reloads += 1
        var next: [LabelID: ObservableLabel] = [:]
        next.reserveCapacity(list.count)
        let newRows = list.labels.map { label -> ObservableLabel in
            let row = byID[label.id] ?? ObservableLabel(label, store: store, model: self)
            row.update(from: label)
            next[label.id] = row
            return row
        }
        byID = next
        if !rows.elementsEqual(newRows, by: ===) { rows = newRows }
        if count != newRows.count { count = newRows.count }
        if enabledCount != list.enabledCount { enabledCount = list.enabledCount }
        appliedSeq = list.lastSeq
        for view in liveViews() { view.reload(to: list) }
        resumeCaughtUpWaiters()
    }
}
