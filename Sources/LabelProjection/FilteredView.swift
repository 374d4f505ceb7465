import EventLog

/// The rows of one ``ViewQuery`` over a ``LabelList``, kept up to date
/// incrementally from ``LabelChange``s rather than re-filtered per event.
///
/// Rows are in the list's original order. Building a view filters the list
/// once (O(n) matches); afterwards ``apply(_:in:)`` evaluates the query
/// only for the label the event names, and finds visible positions by
/// counting visible ids before the label's position (O(n) set lookups for
/// now, O(log n) once the order is a tree). A view is a value; it is
/// `Sendable`.
public struct FilteredView: Sendable, Equatable {
    /// The query the view shows.
    public let query: ViewQuery
    /// The visible ids, in list order.
    public private(set) var ids: [LabelID]
    private var members: Set<LabelID>

    /// The view of `query` over `list` (one O(n) filter).
    public init(query: ViewQuery, list: LabelList) {
        self.query = query
        let ids = list.order.ids.filter { query.matches(list.byID[$0]!) }
        self.ids = ids
        self.members = Set(ids)
    }

    /// The number of visible rows.
    public var count: Int { ids.count }

    /// Whether the label is visible.
    public func contains(_ id: LabelID) -> Bool { members.contains(id) }

    /// The visible index of the label, or `nil` (O(rows)).
    public func index(of id: LabelID) -> Int? { members.contains(id) ? ids.firstIndex(of: id) : nil }

    /// The visible labels as they are in `list` (the list the view is maintained over).
    public func labels(in list: LabelList) -> [Label] { ids.compactMap { list.label($0) } }

    /// Updates the rows for one change, given the list *after* it, and returns
    /// what changed in visible coordinates (empty when the rows did not change).
    ///
    /// A label that stops matching because of an edit leaves the view (the
    /// edit itself is kept in the list); one that starts matching enters it.
    public mutating func apply(_ change: LabelChange, in list: LabelList) -> [ViewChange] {
        switch change.record.event {
        case .added(let id, _, _, let index):
            guard let label = change.after, query.matches(label) else { return [] }
            return [insert(id, atListPosition: index, in: list)]

        case .removed(let id, _, _, _):
            guard members.contains(id) else { return [] }
            return [remove(id)]

        case .moved(let id, _, let to):
            guard members.contains(id), let from = ids.firstIndex(of: id) else { return [] }
            ids.remove(at: from)
            let newIndex = list.order.count(before: to) { $0 != id && members.contains($0) }
            ids.insert(id, at: newIndex)
            return from == newIndex ? [] : [.moved(id: id, from: from, to: newIndex)]

        case .reordered(let order):
            guard change.membershipChanged else { return [] }
            return reorder(to: order.filter { members.contains($0) })

        case .renamed, .toggled:
            guard change.labelChanged, let label = change.after else { return [] }
            let id = label.id
            switch (members.contains(id), query.matches(label)) {
            case (true, true): return [.updated(id: id, at: ids.firstIndex(of: id)!)]
            case (true, false): return [remove(id)]
            case (false, true): return [insert(id, atListPosition: list.order.position(of: id)!, in: list)]
            case (false, false): return []
            }

        case .rejected:
            return []
        }
    }

    private mutating func insert(_ id: LabelID, atListPosition position: Int, in list: LabelList) -> ViewChange {
        let at = list.order.count(before: position) { members.contains($0) }
        ids.insert(id, at: at)
        members.insert(id)
        return .inserted(id: id, at: at)
    }

    private mutating func remove(_ id: LabelID) -> ViewChange {
        let at = ids.firstIndex(of: id)!
        ids.remove(at: at)
        members.remove(id)
        return .removed(id: id, at: at)
    }

    /// Moves rows one by one until they are in `target` order (same members);
    /// each move is in the coordinates left by the previous ones.
    private mutating func reorder(to target: [LabelID]) -> [ViewChange] {
        var changes: [ViewChange] = []
        for i in target.indices where ids[i] != target[i] {
            let from = ids[i...].firstIndex(of: target[i])!
            ids.insert(ids.remove(at: from), at: i)
            changes.append(.moved(id: target[i], from: from, to: i))
        }
        return changes
    }
}
