import EventLog

/// What a subscriber depends on. It is told about exactly the records that
/// change that value — no more, no fewer:
///
/// | dependency | notified by |
/// |---|---|
/// | ``membership`` | `added`, `removed`, `moved`, and `reordered` that changes the order |
/// | ``title(_:)`` | `renamed` of that id to a different title (other bytes, even if canonically equivalent), and its `added` / `removed` (title `nil` ↔ value) |
/// | ``isEnabled(_:)`` | `toggled` of that id, and its `added` / `removed` (`nil` ↔ value) |
/// | ``label(_:)`` | any of the two above for that id (not moves: position is not part of a label) |
/// | ``view(_:)`` | anything that changes the view's rows: one entering, leaving, moving, or a visible row's title or `isEnabled` |
/// | ``enabledCount`` | a change of the number of enabled labels |
/// | ``everything`` | every record, including `rejected` audit records and events that change nothing |
public enum Dependency: Sendable, Hashable, CustomStringConvertible {
    /// The list's membership and order.
    case membership
    /// One label's title.
    case title(LabelID)
    /// One label's `isEnabled`.
    case isEnabled(LabelID)
    /// One label's title and `isEnabled` (and its existence).
    case label(LabelID)
    /// The rows of a filtered view.
    case view(ViewQuery)
    /// The number of enabled labels.
    case enabledCount
    /// Every record.
    case everything

    /// A readable form, e.g. `title(<id>)`.
    public var description: String {
        switch self {
        case .membership: "membership"
        case .title(let id): "title(\(id))"
        case .isEnabled(let id): "isEnabled(\(id))"
        case .label(let id): "label(\(id))"
        case .view(let query): "view(\(query))"
        case .enabledCount: "enabledCount"
        case .everything: "everything"
        }
    }
}
