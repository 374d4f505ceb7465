import EventLog

/// What the server list's state makes of one ``SyncCommand`` when it
/// arrives (``SyncRebase/decide(_:on:resolving:)``).
public enum SyncDecision: Sendable, Hashable {
    /// Append these events (never empty), in order, as the command's records.
    case apply([LabelEvent])
    /// The list already is what the command wanted (a label already removed,
    /// `isEnabled` already the value wanted, a reorder already in place):
    /// nothing is appended, and the command is done.
    case satisfied
    /// The command is refused: its refusal is appended as a `rejected`
    /// record (``SyncRefusal/record(for:)``) and the device's app is told.
    case refused(SyncRefusal)
}

/// Why a ``SyncCommand`` was refused, with the message the user sees (the
/// reason stored in its `rejected` record).
public struct SyncRefusal: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The rule that refused it.
    public enum Reason: String, Sendable, Hashable, Codable {
        /// The label it edits was removed on the server (or never reached it).
        case labelRemoved
        /// The title it renames was changed on another device since the device read it.
        case titleChanged
    }

    /// The rule that refused it.
    public var reason: Reason

    /// A refusal for `reason`.
    public init(_ reason: Reason) { self.reason = reason }

    /// The message the user sees, e.g. "Edit skipped: label was removed."
    public var message: String {
        switch reason {
        case .labelRemoved: "Edit skipped: label was removed."
        case .titleChanged: "Edit skipped: title was changed on another device."
        }
    }

    /// ``message``.
    public var description: String { message }

    /// The `rejected` record that audits the refusal of `command` on the
    /// server list: the label, the command as text (naming its batch id), and
    /// the message.
    public func record(for command: SyncCommand) -> LabelEvent {
        .rejected(id: command.labelID, command: command.description, reason: message)
    }
}
