import EventLog
import Observation

/// An `@Observable` model of a filtered view for SwiftUI: the labels whose
/// title contains ``query`` (and, with ``enabledOnly``, only enabled ones),
/// in list order, as the same ``ObservableLabel`` objects its
/// ``ObservableLabels`` model holds.
///
/// ```swift
/// let labels = ObservableLabels(store: store)        // on the main actor
/// let ring = ObservableView(labels, query: "ring")
/// ring.rows.map(\.title)                              // ["Ring"]
/// try await ring.rows[0].rename(to: "Ring Two")       // addressed by id
/// ```
///
/// What changes, and when:
/// - ``rows`` is assigned only when a label enters, leaves or moves within
///   the view: an add, remove or move of a visible label; a rename or toggle
///   that makes a label start or stop matching (it stays in the list: only
///   the row leaves the view); a reorder; a new ``query`` or ``enabledOnly``.
///   A rename or toggle of a row that stays visible changes that row's
///   properties and not ``rows``.
/// - ``visibleCount`` only when the number of rows changes.
///
/// It is kept current from the store's ``Dependency/view(_:)`` notifications,
/// in visible coordinates (``ViewChange``), on the main actor, with no task to
/// start: they come through the list model's mailbox, after the record's own
/// notification to the list model, so a row that enters the view is the list
/// model's object for that label. ``ObservableLabels/update()`` applies
/// pending records to the list model and its views at once.
///
/// Setting ``query`` or ``enabledOnly`` re-filters at once (from the
/// store's state; the list model is brought to the same record first), and
/// follows the new query from then on; rows that stay are the same objects,
/// and ``rows`` is assigned only if the visible rows differ.
///
/// The view holds its list model and its own subscription: releasing the view
/// cancels the subscription (the store stops maintaining the query's view
/// when no one else subscribes to it).
@MainActor
@Observable
public final class ObservableView {
    /// The text a title must contain (case- and diacritic-insensitive, see
    /// ``ViewQuery``); empty shows every label. Setting it re-filters. Its
    /// readers are told whenever its bytes change, even to a canonically
    /// equivalent text (which `@Observable`'s generated setter would skip).
    public var query: String {
        get {
            access(keyPath: \.query)
            return queryText
        }
        set {
            guard !String.sameBytes(queryText, newValue) else { return }
            withMutation(keyPath: \.query) { queryText = newValue }
            refilter()
        }
    }
    /// The storage of ``query``, set only through it.
    @ObservationIgnored private var queryText: String
    /// Whether only enabled labels are shown. Setting it re-filters.
    public var enabledOnly: Bool {
        didSet { refilter() }
    }
    /// The visible rows, in list order: the list model's row objects.
    public internal(set) var rows: [ObservableLabel] = []
    /// The number of visible rows (`rows.count`); changes only when it does.
    public internal(set) var visibleCount = 0
    /// The list model the rows come from.
    @ObservationIgnored public let labels: ObservableLabels
    /// The query as the store matches it (``query`` and ``enabledOnly``), that the rows show.
    @ObservationIgnored public private(set) var viewQuery: ViewQuery
    /// The seq of the last record the view reflects (not observed).
    @ObservationIgnored public internal(set) var appliedSeq: UInt64 = 0
    /// The subscription to the store's view of ``viewQuery``, into the list model's mailbox.
    @ObservationIgnored private var following: Subscription?
    /// Whether the view has subscribed yet (the first ``refilter()`` always runs).
    @ObservationIgnored private var started = false

    /// A view of `labels` showing the labels whose title contains `query`
    /// (only enabled ones when `enabledOnly`), following the store from now on.
    ///
    /// - Complexity: O(r) for r rows when the store already maintains the query's view
    ///   for another subscriber, else O(n) matches over the n labels; plus, if the list
    ///   model is behind the store, what ``ObservableLabels/update()`` costs.
    public init(_ labels: ObservableLabels, query: String = "", enabledOnly: Bool = false) {
        self.labels = labels
        queryText = query
        self.enabledOnly = enabledOnly
        viewQuery = ViewQuery(query, enabledOnly: enabledOnly)
        refilter()
    }

    /// Follows the query of ``query`` and ``enabledOnly`` if it differs from
    /// what the view shows: subscribes to it, brings the list model up to date,
    /// and takes the visible ids and the store's state together.
    private func refilter() {
        let next = ViewQuery(query, enabledOnly: enabledOnly)
        guard !started || next != viewQuery else { return }
        if started {
            labels.unregister(self, from: viewQuery)
            following?.cancel()
        }
        started = true
        viewQuery = next
        if let mailbox = labels.mailbox {
            following = labels.store.subscribe(to: .view(next), sharing: mailbox, cancelsMailbox: false)
        }
        labels.update()
        let (ids, list) = labels.store.visibleIDs(next)
        if labels.appliedSeq < list.lastSeq { labels.reload(to: list) }
        show(ids, at: list.lastSeq)
        labels.register(self, for: next)
    }

    /// Shows the rows of `ids` (the list model's objects) as of `seq`,
    /// assigning ``rows`` only if they differ.
    private func show(_ ids: [LabelID], at seq: UInt64) {
        let next = ids.compactMap { labels.row($0) }
        if !rows.elementsEqual(next, by: ===) { rows = next }
        if visibleCount != next.count { visibleCount = next.count }
        appliedSeq = seq
    }

    /// Brings the view to `list` (the state the list model was just rebuilt from).
    func reload(to list: LabelList) {
        show(FilteredView(query: viewQuery, list: list).ids(in: list), at: list.lastSeq)
    }

    /// Applies one notification of the store's view (ignored if the view
    /// already reflects its record): its row changes in visible coordinates.
    /// A change the rows contradict makes the list model ``ObservableLabels/reload()``.
    func apply(_ notification: ChangeNotification) {
        guard notification.seq > appliedSeq else { return }
        let changes = notification.viewChanges
        let applied: Bool
        if changes.allSatisfy(\.isUpdate) {
            // Rows that stay visible changed a property: the list model updated the
            // row objects; `rows` is not touched (not even through an inout access).
            applied = changes.allSatisfy { change in
                guard case .updated(let id, let at) = change else { return false }
                return at < rows.count && rows[at].id == id
            }
        } else if changes.count == 1 {
            applied = apply(changes[0], to: &rows)
        } else {
            var next = rows
            applied = changes.allSatisfy { apply($0, to: &next) }
            if applied, !next.elementsEqual(rows, by: ===) { rows = next }
        }
        guard applied else {
            labels.reload()
            return
        }
        if visibleCount != rows.count { visibleCount = rows.count }
        appliedSeq = notification.seq
    }

    /// Applies one row change to `rows` (checking it against them); `false` if they contradict it.
    private func apply(_ change: ViewChange, to rows: inout [ObservableLabel]) -> Bool {
        switch change {
        case .inserted(let id, let at):
            guard at <= rows.count, let row = labels.row(id) else { return false }
            rows.insert(row, at: at)
        case .removed(let id, let at):
            guard at < rows.count, rows[at].id == id else { return false }
            rows.remove(at: at)
        case .moved(let id, let from, let to):
            guard from < rows.count, to < rows.count, rows[from].id == id else { return false }
            rows.moveElement(from: from, to: to)
        case .updated(let id, let at):
            // The row object was updated by the list model; the rows stay.
            return at < rows.count && rows[at].id == id
        }
        return true
    }
}

extension ViewChange {
    /// Whether this is ``updated(id:at:)``: a visible row changed a property and stayed.
    var isUpdate: Bool {
        if case .updated = self { return true }
        return false
    }
}
