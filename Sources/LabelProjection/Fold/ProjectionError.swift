import EventLog

/// A record that cannot be folded into the state it was applied to.
///
/// Thrown by ``LabelList/apply(_:)`` when an event contradicts the list
/// (an added id that is already live, a removed index that does not hold
/// that id, a rename whose old title is not the current one, …). The
/// message names the seq and, where there is one, the label id. The list
/// is left unchanged when this is thrown.
public struct ProjectionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is inconsistent, as a stable machine-readable code.
    public enum Code: String, Sendable, Hashable, Codable, CaseIterable {
        /// The record's seq is not the one after the last applied seq.
        case seqOutOfOrder
        /// An `added` event names an id that is already live. (A command that
        /// would do so is refused as ``StoreError/Code/labelAlreadyExists``.)
        case duplicateID
        /// An event names an id the list has never seen. (A command that would
        /// do so is refused as ``StoreError/Code/labelNeverAdded``.)
        case unknownID
        /// An event edits, moves or removes an id that was removed (and not re-added).
        case removedID
        /// An index is outside the list.
        case indexOutOfRange
        /// An index does not hold the event's id (e.g. `removed(index:)` or `moved(from:)`).
        case indexMismatch
        /// A `renamed` event's old title is not the label's current title.
        case titleMismatch
        /// An event's recorded state contradicts the label (e.g. `toggled` to the
        /// value it already has, or `removed` with a different title or flag).
        case stateMismatch
        /// A `reordered` event is not a permutation of the live ids.
        case notAPermutation
        /// An event breaks its own documented contract (e.g. `moved` with `from == to`).
        case invalidEvent
    }

    /// The stable code.
    public var code: Code
    /// A sentence naming the seq and the label.
    public var message: String
    /// The seq of the offending record.
    public var seq: UInt64
    /// The label concerned, if any.
    public var id: LabelID?

    /// Creates an error.
    public init(_ code: Code, _ message: String, seq: UInt64, id: LabelID? = nil) {
        self.code = code
        self.message = message
        self.seq = seq
        self.id = id
    }

    /// The message.
    public var description: String { message }
}
