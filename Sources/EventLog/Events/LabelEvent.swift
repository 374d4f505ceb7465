/// One change to the label list, as stored in the log.
///
/// Every case carries the old and the new values it needs, so an audit of a
/// single event needs no replay of the events before it. The only exception
/// is ``reordered(order:)``, whose previous order is the list's order at the
/// seq before it (storing both would double the size of large reorders).
///
/// ## Index convention
/// Indices are zero-based positions in the full (unfiltered) list.
/// - `added(index:)`: the position the label has *after* insertion
///   (`0...count` where `count` is the length before).
/// - `removed(index:)`: the position the label had *before* removal.
/// - `moved(from:to:)`: `from` is the position before the move; `to` is the
///   position *after* the move, i.e. the label is removed at `from` and then
///   inserted at `to` in the shortened list. Both are in `0..<count`, and
///   `from != to`.
public enum LabelEvent: Sendable, Hashable {
    /// A label was inserted at `index` with this title and state.
    case added(id: LabelID, title: String, isEnabled: Bool, index: Int)
    /// A label's title changed from `oldTitle` to `newTitle`.
    case renamed(id: LabelID, oldTitle: String, newTitle: String)
    /// A label's `isEnabled` flipped; `isEnabled` is the new value, the old one is its negation.
    case toggled(id: LabelID, isEnabled: Bool)
    /// A label was removed from `index`; `title` and `isEnabled` are what it had.
    case removed(id: LabelID, index: Int, title: String, isEnabled: Bool)
    /// A label moved from position `from` to position `to` (see the index convention).
    case moved(id: LabelID, from: Int, to: Int)
    /// The whole list took this order (a permutation of the live ids), e.g. a reverse.
    case reordered(order: [LabelID])
    /// An audit record: a write was refused. It changes nothing when folded.
    /// `command` describes the attempted write; `reason` is the error message.
    case rejected(id: LabelID?, command: String, reason: String)

    /// The kind of an event, with the stable name used in JSON and on the command line.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
        case added, renamed, toggled, removed, moved, reordered, rejected

        /// The one-byte code of this kind in the binary record (docs/FORMAT.md).
        public var code: UInt8 {
            switch self {
            case .added: 1
            case .renamed: 2
            case .toggled: 3
            case .removed: 4
            case .moved: 5
            case .reordered: 6
            case .rejected: 7
            }
        }

        /// The kind with this binary code, or `nil`.
        public init?(code: UInt8) {
            switch code {
            case 1: self = .added
            case 2: self = .renamed
            case 3: self = .toggled
            case 4: self = .removed
            case 5: self = .moved
            case 6: self = .reordered
            case 7: self = .rejected
            default: return nil
            }
        }

        /// The stable name, e.g. `renamed`.
        public var description: String { rawValue }
    }

    /// This event's kind.
    public var kind: Kind {
        switch self {
        case .added: .added
        case .renamed: .renamed
        case .toggled: .toggled
        case .removed: .removed
        case .moved: .moved
        case .reordered: .reordered
        case .rejected: .rejected
        }
    }

    /// The label this event is about, or `nil` for `reordered` (and id-less rejections).
    public var labelID: LabelID? {
        switch self {
        case .added(let id, _, _, _), .renamed(let id, _, _), .toggled(let id, _),
             .removed(let id, _, _, _), .moved(let id, _, _):
            id
        case .reordered:
            nil
        case .rejected(let id, _, _):
            id
        }
    }
}
