import EventLog

/// The order of the live labels: positions `0..<count`, each holding one id.
///
/// Kept behind its own type so the representation can change (e.g. to an
/// order-statistic tree) without touching the fold, the views or the store.
/// Today it is a plain array: `position(of:)` and `count(before:where:)` are
/// O(n); indexing, `count` and appending are O(1); insert/remove/move are O(n).
/// Lookups *by id* never go through this type (see ``LabelList``).
struct LabelOrder: Sendable, Hashable {
    /// The ids in list order.
    private(set) var ids: [LabelID]

    /// An order holding `ids` (which must be distinct).
    init(_ ids: [LabelID] = []) { self.ids = ids }

    /// The number of positions.
    var count: Int { ids.count }

    /// The id at `position` (which must be in `0..<count`).
    subscript(position: Int) -> LabelID { ids[position] }

    /// The position of `id`, or `nil` (O(n) for now).
    func position(of id: LabelID) -> Int? { ids.firstIndex(of: id) }

    /// Inserts `id` so that it ends up at `position` (in `0...count`).
    mutating func insert(_ id: LabelID, at position: Int) { ids.insert(id, at: position) }

    /// Removes and returns the id at `position`.
    @discardableResult
    mutating func remove(at position: Int) -> LabelID { ids.remove(at: position) }

    /// Removes the id at `from`, then inserts it at `to` in the shortened order.
    mutating func move(from: Int, to: Int) {
        let id = ids.remove(at: from)
        ids.insert(id, at: to)
    }

    /// Replaces the whole order (the caller checked it is a permutation).
    mutating func replace(with newOrder: [LabelID]) { ids = newOrder }

    /// How many of the ids at positions `0..<position` satisfy `isIncluded`.
    func count(before position: Int, where isIncluded: (LabelID) -> Bool) -> Int {
        var n = 0
        for id in ids[0..<position] where isIncluded(id) { n += 1 }
        return n
    }
}
