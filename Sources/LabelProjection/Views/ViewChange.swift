import EventLog

/// One change to a filtered view's rows, in visible coordinates.
///
/// A list of changes is applied in order, each index referring to the rows
/// as the previous changes left them (the same convention as the log's
/// events): `inserted.at` is the row's index after insertion, `removed.at`
/// its index before removal, and `moved(from:to:)` removes at `from` and
/// then inserts at `to` in the shortened rows. `updated` means the row's
/// title or `isEnabled` changed while it stayed visible at `at`.
public enum ViewChange: Sendable, Hashable {
    /// A row appeared at visible index `at`.
    case inserted(id: LabelID, at: Int)
    /// The row at visible index `at` left the view.
    case removed(id: LabelID, at: Int)
    /// A visible row moved from index `from` to index `to`.
    case moved(id: LabelID, from: Int, to: Int)
    /// The visible row at `at` changed its title or `isEnabled`.
    case updated(id: LabelID, at: Int)

    /// The label of the row.
    public var id: LabelID {
        switch self {
        case .inserted(let id, _), .removed(let id, _), .moved(let id, _, _), .updated(let id, _): id
        }
    }

    /// Applies this change to an array of row ids (a table's data source, or a test's mirror).
    public func apply(to rows: inout [LabelID]) {
        switch self {
        case .inserted(let id, let at): rows.insert(id, at: at)
        case .removed(_, let at): rows.remove(at: at)
        case .moved(_, let from, let to): rows.insert(rows.remove(at: from), at: to)
        case .updated: break
        }
    }
}
