import EventLog

/// Why the store refused a command or a read, as a value: a code, a message
/// that names the label (id) and the seq concerned, and those facts as fields.
///
/// A refused write appends nothing, except the `rejected` audit record when
/// ``LabelStore/Options/recordRejections`` is on (its seq is ``auditSeq``).
public struct StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Code: Sendable, Hashable {
        /// The label was removed by the record at `removedAtSeq` (and not added again).
        /// The message starts with `Edit skipped: label was removed.`
        case labelRemoved(removedAtSeq: UInt64)
        /// No label with this id was ever added. (The fold's counterpart, for
        /// an event, is ``ProjectionError/Code/unknownID``.)
        case labelNeverAdded
        /// An add names an id that a live label already has. (The fold's
        /// counterpart, for an event, is ``ProjectionError/Code/duplicateID``.)
        case labelAlreadyExists
        /// A position is outside the list (`count` is the list's length at that moment).
        case positionOutOfRange(position: Int, count: Int)
        /// What the write depends on changed since the writer read it: `current` is
        /// the version now, which is the seq of the event that changed it.
        case staleVersion(expected: UInt64, current: UInt64)
        /// The list is empty, so a positional action ("change first", "remove last") has nothing to act on.
        case nothingToActOn
        /// The command is malformed: a reorder that is not a permutation, a title too long, …
        case invalidCommand
        /// A seq outside the log was asked for (time travel, subscribing from a seq).
        case seqOutOfRange(seq: UInt64, lastSeq: UInt64)
        /// A raw entry (or a stored record) contradicts the state it applies to.
        case inconsistentEvent(ProjectionError)
        /// The log failed (I/O, lock, limits, seq conflict); nothing of the write was applied.
        case storage(EventLogError)
        /// The store was closed.
        case closed
        /// The calling task was cancelled before the write was taken into a
        /// commit: nothing of it was appended (see ``LabelStore/execute(_:options:)-770cy``).
        case cancelled

        /// A stable name for the code, e.g. `labelRemoved`: the case's name.
        public var name: String {
            switch self {
            case .labelRemoved: "labelRemoved"
            case .labelNeverAdded: "labelNeverAdded"
            case .labelAlreadyExists: "labelAlreadyExists"
            case .positionOutOfRange: "positionOutOfRange"
            case .staleVersion: "staleVersion"
            case .nothingToActOn: "nothingToActOn"
            case .invalidCommand: "invalidCommand"
            case .seqOutOfRange: "seqOutOfRange"
            case .inconsistentEvent: "inconsistentEvent"
            case .storage: "storage"
            case .closed: "closed"
            case .cancelled: "cancelled"
            }
        }
    }

    /// The code.
    public var code: Code
    /// A sentence naming the label and the seq concerned.
    public var message: String
    /// The label concerned, if any.
    public var id: LabelID?
    /// The seq the error points at (the removal, the change that made a write stale, …), if any.
    public var seq: UInt64?
    /// For a batch, the position of the command that failed.
    public var batchIndex: Int?
    /// The seq of the `rejected` audit record written for this refusal, if one was written.
    public var auditSeq: UInt64?

    /// Creates an error.
    public init(_ code: Code, _ message: String, id: LabelID? = nil, seq: UInt64? = nil) {
        self.code = code
        self.message = message
        self.id = id
        self.seq = seq
    }

    /// The message.
    public var description: String { message }

    /// Whether this is a refusal of the write itself (as opposed to a storage
    /// failure or a closed store): only these are recorded as audit records.
    public var isRejection: Bool {
        switch code {
        case .storage, .closed, .cancelled, .seqOutOfRange, .inconsistentEvent: false
        default: true
        }
    }

    // MARK: Constructors that fix the wording

    static func removed(_ id: LabelID, at seq: UInt64) -> StoreError {
        StoreError(
            .labelRemoved(removedAtSeq: seq), "Edit skipped: label was removed. (removed at seq \(seq); label \(id))", id: id, seq: seq)
    }

    static func unknown(_ id: LabelID) -> StoreError {
        StoreError(.labelNeverAdded, "No label has id \(id): it was never added.", id: id)
    }

    static func duplicate(_ id: LabelID, at position: Int) -> StoreError {
        StoreError(
            .labelAlreadyExists, "A label with id \(id) already exists (at position \(position)); two labels never share an id.", id: id)
    }

    static func position(_ position: Int, count: Int, valid: String, id: LabelID? = nil) -> StoreError {
        StoreError(
            .positionOutOfRange(position: position, count: count),
            "Position \(position) is out of range \(valid) for a list of \(count) label\(count == 1 ? "" : "s").", id: id)
    }

    static let closedStore = StoreError(.closed, "The store is closed.")

    static func cancelledWrite(_ what: String) -> StoreError {
        StoreError(.cancelled, "The \(what) was cancelled before it was committed; nothing of it was appended.")
    }

    static func storage(_ error: EventLogError) -> StoreError {
        StoreError(.storage(error), "The log failed: \(error)", seq: error.lastGoodSeq)
    }

    static func inconsistent(_ error: ProjectionError) -> StoreError {
        StoreError(.inconsistentEvent(error), error.message, id: error.id, seq: error.seq)
    }
}

extension StoreError.Code {
    /// The old name of ``labelNeverAdded``.
    @available(*, deprecated, renamed: "labelNeverAdded")
    public static var unknownID: Self { .labelNeverAdded }

    /// The old name of ``labelAlreadyExists``.
    @available(*, deprecated, renamed: "labelAlreadyExists")
    public static var duplicateID: Self { .labelAlreadyExists }
}
