import EventLog

/// A write to the label list, addressed by id and resolved when it is applied.
///
/// Positions in commands are positions in the full list at the moment the
/// command is applied (never positions in a filtered view). The store turns a
/// command into zero or more events; see ``LabelStore/execute(_:options:)-8dri1``.
public enum LabelCommand: Sendable, Hashable, CustomStringConvertible {
    /// Adds a label. `id` defaults to a fresh one (an id of a removed label
    /// restores it); `at` defaults to the end and must be in `0...count`.
    case add(title: String, isEnabled: Bool = true, id: LabelID? = nil, at: Int? = nil)
    /// Changes a label's title (the same title, byte for byte, is a no-op; a canonically equivalent one is a rename).
    case rename(id: LabelID, title: String)
    /// Sets `isEnabled` (setting the current value is a no-op, not an error).
    case setEnabled(id: LabelID, isEnabled: Bool)
    /// Flips `isEnabled`.
    case toggle(id: LabelID)
    /// Removes a label.
    case remove(id: LabelID)
    /// Moves a label to position `to` in `0..<count` (its position after the move; the same position is a no-op).
    case move(id: LabelID, to: Int)
    /// Reverses the whole list (a no-op for fewer than two labels).
    case reverse
    /// Gives the list this order, which must be a permutation of the live ids (the current order is a no-op).
    case reorder([LabelID])

    /// The label the command addresses, if it addresses one.
    public var labelID: LabelID? {
        switch self {
        case .add(_, _, let id, _): id
        case .rename(let id, _), .setEnabled(let id, _), .toggle(let id), .remove(let id), .move(let id, _): id
        case .reverse, .reorder: nil
        }
    }

    /// A short readable form, e.g. `rename <id> to "Ring Two"`, used in audit records.
    public var description: String {
        switch self {
        case .add(let title, let isEnabled, let id, let at):
            "add \"\(title)\" \(isEnabled ? "on" : "off")" + (id.map { " id \($0)" } ?? "") + (at.map { " at \($0)" } ?? "")
        case .rename(let id, let title): "rename \(id) to \"\(title)\""
        case .setEnabled(let id, let isEnabled): "\(isEnabled ? "enable" : "disable") \(id)"
        case .toggle(let id): "toggle \(id)"
        case .remove(let id): "remove \(id)"
        case .move(let id, let to): "move \(id) to \(to)"
        case .reverse: "reverse"
        case .reorder(let ids): "reorder \(ids.count) labels"
        }
    }
}

extension LabelCommand {
    /// The command that makes `event` on the list it was made on (a
    /// `rejected` record makes nothing: `nil`). Executed on that list, it
    /// yields `event` again; on another list it is resolved by id there.
    public init?(making event: LabelEvent) {
        switch event {
        case .added(let id, let title, let isEnabled, let index): self = .add(title: title, isEnabled: isEnabled, id: id, at: index)
        case .renamed(let id, _, let title): self = .rename(id: id, title: title)
        case .toggled(let id, let isEnabled): self = .setEnabled(id: id, isEnabled: isEnabled)
        case .removed(let id, _, _, _): self = .remove(id: id)
        case .moved(let id, _, let to): self = .move(id: id, to: to)
        case .reordered(let order): self = .reorder(order)
        case .rejected: return nil
        }
    }
}

/// The version a writer last saw, sent with a write to detect stale rows.
///
/// If the version changed since, the write is refused with
/// ``StoreError/Code/staleVersion(expected:current:)`` and appends nothing.
public enum VersionExpectation: Sendable, Hashable {
    /// The label's ``Label/version`` was `seq` when the writer read it.
    case label(LabelID, version: UInt64)
    /// The list's ``LabelList/listVersion`` (membership and order) was `seq`.
    case list(version: UInt64)
}

/// How a write is recorded: envelope fields for its records, and an optional expectation.
public struct WriteOptions: Sendable, Hashable {
    /// Who makes the edit (stored in each record).
    public var actor: String?
    /// A comment or correlation id (stored in each record).
    public var note: String?
    /// The time to record; `nil` means the store's clock at the time of the write.
    public var timestamp: EventTimestamp?
    /// The version the writer last saw; checked after the command itself is validated.
    public var expectation: VersionExpectation?

    /// Creates options; every field defaults to `nil`.
    public init(actor: String? = nil, note: String? = nil, timestamp: EventTimestamp? = nil, expectation: VersionExpectation? = nil) {
        self.actor = actor
        self.note = note
        self.timestamp = timestamp
        self.expectation = expectation
    }
}
