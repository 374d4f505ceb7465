/// One change to the label list, as stored in the log, with its texts kept
/// as `String`s and a reorder's ids as an array: the form to keep, compare,
/// encode and append.
///
/// The cases, their meaning and the index convention are those of
/// ``LabelEventOf``; ``EventRecordView/Event`` is the same shape over texts
/// and ids borrowed from a record's bytes.
public typealias LabelEvent = LabelEventOf<String, [LabelID]>

/// One change to the label list, as stored in the log, generic over how it
/// holds its texts (`Text`: titles, a rejection's command and reason) and a
/// reorder's ids (`Order`).
///
/// ``LabelEvent`` (`String`, `[LabelID]`) is the form to keep; a borrowed
/// ``EventRecordView/Event`` (``UTF8Text``, ``EventRecordView/IDs``) is the
/// same cases decoded in place, and its ``labelEvent`` copies it out. Every
/// specialization has the same seven cases with the same meaning, one
/// ``EventKind`` per case, and the same rules below.
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
public enum LabelEventOf<Text, Order: Collection<LabelID>> {
    /// A label was inserted at `index` with this title and state.
    case added(id: LabelID, title: Text, isEnabled: Bool, index: Int)
    /// A label's title changed from `oldTitle` to `newTitle`.
    case renamed(id: LabelID, oldTitle: Text, newTitle: Text)
    /// A label's `isEnabled` flipped; `isEnabled` is the new value, the old one is its negation.
    case toggled(id: LabelID, isEnabled: Bool)
    /// A label was removed from `index`; `title` and `isEnabled` are what it had.
    case removed(id: LabelID, index: Int, title: Text, isEnabled: Bool)
    /// A label moved from position `from` to position `to` (see the index convention).
    case moved(id: LabelID, from: Int, to: Int)
    /// The whole list took this order (a permutation of the live ids), e.g. a reverse.
    case reordered(order: Order)
    /// An audit record: a write was refused. It changes nothing when folded.
    /// `command` describes the attempted write; `reason` is the error message.
    case rejected(id: LabelID?, command: Text, reason: Text)
}

extension LabelEventOf {
    /// The kind of an event: one type, ``EventKind``, for every specialization,
    /// so `LabelEvent.Kind` and `EventRecordView.Event.Kind` are the same type.
    public typealias Kind = EventKind

    /// This event's kind. (Inlinable, as is ``labelID``, so a caller in
    /// another module gets it specialized for its `Text` and `Order`.)
    @inlinable
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
    @inlinable
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

/// An event whose texts and ids are `Sendable` may cross threads
/// (``LabelEvent`` does; a borrowed ``EventRecordView/Event`` does not).
extension LabelEventOf: Sendable where Text: Sendable, Order: Sendable {}

/// Events are equal when they are the same case with equal values
/// (texts by their own `==`; `String`'s is Unicode canonical equivalence).
extension LabelEventOf: Equatable where Text: Equatable, Order: Equatable {}

/// Hashing agrees with ``==``.
extension LabelEventOf: Hashable where Text: Hashable, Order: Hashable {}
