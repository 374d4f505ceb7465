import EventLog

/// The rows of one ``ViewQuery`` over a ``LabelList``, kept up to date
/// incrementally from ``LabelChange``s rather than re-filtered per event.
///
/// Rows are in the list's original order. The view keeps its visible slots
/// in its own counted B+-tree (`LabelOrder`), ordered by list position, so:
/// - building a view filters the list once: O(n) matches;
/// - ``apply(_:in:)`` evaluates the query only for the label the event names,
///   and places a row by a binary search over the visible rows that compares
///   list positions: O(log² n) for `added`, `moved`, and a row entering the
///   view; O(log n) for a row leaving or updating; a `reordered` rebuilds the
///   rows in O(n) and derives the row moves in O(n log n);
/// - ``index(of:in:)`` is O(log n).
///
/// A view is a value and `Sendable`. It refers to labels by the list's slot
/// numbers, which every fold of one log assigns alike: keep using a view with
/// the list (or later states of the list) it was built from.
public struct FilteredView: Sendable, Equatable {
    /// The query the view shows.
    public let query: ViewQuery
    /// The visible slots, in list order.
    private(set) var rows: LabelOrder

    /// The view of `query` over `list`.
    ///
    /// - Complexity: O(n) matches of ``ViewQuery/matches(_:)`` over the n labels (each
    ///   makes the title a `String`), then an O(r) build of the r rows.
    public init(query: ViewQuery, list: LabelList) {
        self.query = query
        var visible: [UInt32] = []
        list.order.forEachLeaf { leaf in
            for slot in leaf where query.matches(list.label(slot: slot)) { visible.append(slot) }
        }
        rows = LabelOrder(visible)
    }

    /// Whether two views show the same query with the same rows (over lists of the same log).
    ///
    /// - Complexity: O(r) in the rows.
    public static func == (a: FilteredView, b: FilteredView) -> Bool {
        a.query == b.query && a.rows.elementsEqual(b.rows.elements)
    }

    /// The number of visible rows.
    public var count: Int { rows.count }

    /// The visible ids in order, as they are in `list`.
    ///
    /// - Complexity: O(r) in the rows.
    public func ids(in list: LabelList) -> [LabelID] { rows.elements.map { list.slots[Int($0)].id } }

    /// Whether the label is visible.
    ///
    /// - Complexity: O(1) expected (an id lookup in `list`, then an array lookup).
    public func contains(_ id: LabelID, in list: LabelList) -> Bool {
        list.slot(of: id).map(rows.contains) ?? false
    }

    /// The visible index of the label, or `nil`.
    ///
    /// - Complexity: O(log r) in the rows, after an O(1) expected id lookup.
    public func index(of id: LabelID, in list: LabelList) -> Int? {
        list.slot(of: id).flatMap(rows.position(of:))
    }

    /// The visible labels as they are in `list` (the list the view is maintained over).
    ///
    /// - Complexity: O(r + t) for r rows with t title bytes (each title is made into a
    ///   `String`).
    public func labels(in list: LabelList) -> [Label] { rows.elements.map { list.label(slot: $0) } }

    /// Updates the rows for one change, given the list *after* it, and returns
    /// what changed in visible coordinates (empty when the rows did not change).
    ///
    /// A label that stops matching because of an edit leaves the view (the
    /// edit itself is kept in the list); one that starts matching enters it.
    ///
    /// - Complexity: One query match at most, for the label the event names, then:
    ///   O(log n) for a row leaving or updating; usually O(log n), at worst O(log² n), for
    ///   `added`, `moved` and a row entering (placing it compares list positions); for a
    ///   `reordered` that changes the order, O(n + s) to rebuild the rows and O(r log r)
    ///   to derive the row moves with a Fenwick tree (s: ids ever added, r: rows). An
    ///   event whose label neither is nor becomes a row costs O(1) expected, plus the match.
    public mutating func apply(_ change: LabelChange, in list: LabelList) -> [ViewChange] {
        switch change.record.event {
        case .added(let id, _, _, let index):
            guard let label = change.after, query.matches(label), let slot = list.slot(of: id) else { return [] }
            return [insert(slot, id: id, atListPosition: index, in: list)]

        case .removed(let id, _, _, _):
            guard let slot = list.slot(of: id), rows.contains(slot) else { return [] }
            return [remove(slot, id: id)]

        case .moved(let id, _, let to):
            guard let slot = list.slot(of: id), let from = rows.position(of: slot) else { return [] }
            rows.remove(at: from)
            let newIndex = visibleCount(beforeListPosition: to, in: list)
            rows.insert(slot, at: newIndex)
            return from == newIndex ? [] : [.moved(id: id, from: from, to: newIndex)]

        case .reordered:
            guard change.membershipChanged else { return [] }
            return reorder(in: list)

        case .renamed, .toggled:
            guard change.labelChanged, let label = change.after, let slot = list.slot(of: label.id) else { return [] }
            switch (rows.position(of: slot), query.matches(label)) {
            case (let at?, true): return [.updated(id: label.id, at: at)]
            case (_?, false): return [remove(slot, id: label.id)]
            case (nil, true): return [insert(slot, id: label.id, atListPosition: list.order.position(of: slot)!, in: list)]
            case (nil, false): return []
            }

        case .rejected:
            return []
        }
    }

    /// The number of visible rows whose list position is below `position`.
    /// First a bounded look at the few labels just before it in the list: if
    /// one is visible, the answer is its row index plus one (O(log n); the
    /// common case for views that show more than a few percent of the list).
    /// Otherwise a binary search over the rows comparing list positions: O(log² n).
    private func visibleCount(beforeListPosition position: Int, in list: LabelList) -> Int {
        if position == 0 { return 0 }
        for slot in list.order.neighbours(before: position, limit: 16).reversed() {
            if let row = rows.position(of: slot) { return row + 1 }
        }
        return rows.partitionPoint { list.order.position(of: $0)! >= position }
    }

    private mutating func insert(_ slot: UInt32, id: LabelID, atListPosition position: Int, in list: LabelList) -> ViewChange {
        let at = visibleCount(beforeListPosition: position, in: list)
        rows.insert(slot, at: at)
        return .inserted(id: id, at: at)
    }

    private mutating func remove(_ slot: UInt32, id: LabelID) -> ViewChange {
        let at = rows.position(of: slot)!
        rows.remove(at: at)
        return .removed(id: id, at: at)
    }

    /// Rebuilds the rows in the list's new order and returns the moves that
    /// take the old rows to the new ones, one by one, each in the coordinates
    /// left by the previous ones: row `i` of the target is pulled forward from
    /// wherever it is. Its current index is `i` plus the number of rows not yet
    /// placed that came before it in the old order, counted with a Fenwick tree.
    private mutating func reorder(in list: LabelList) -> [ViewChange] {
        let old = rows.elements
        var target: [UInt32] = []
        target.reserveCapacity(old.count)
        list.order.forEachLeaf { leaf in for slot in leaf where rows.contains(slot) { target.append(slot) } }
        var oldIndex = [Int32](repeating: -1, count: list.slotCount)
        for (i, slot) in old.enumerated() { oldIndex[Int(slot)] = Int32(i) }
        var unplaced = FenwickTree(ones: old.count)
        var changes: [ViewChange] = []
        for (i, slot) in target.enumerated() {
            let j = Int(oldIndex[Int(slot)])
            let from = i + unplaced.prefixSum(j)
            if from != i { changes.append(.moved(id: list.slots[Int(slot)].id, from: from, to: i)) }
            unplaced.add(-1, at: j)
        }
        rows.replace(with: target)
        return changes
    }
}
