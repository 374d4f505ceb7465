import EventLog
import Foundation

/// One edit a device made while syncing with a server list, as the user
/// meant it: what to change, addressed by ids, with what the device had read
/// where the rule needs it — never an index, which another device's edits
/// shift (docs/SYNC.md, "What a command carries").
///
/// A device keeps its commands in its outbox (``SyncOutbox``) until the
/// server list holds each one's records or its refusal; the server list
/// decides each against its state when it arrives (``SyncRebase``).
///
/// Values: `Sendable`, `Hashable`, `Codable`; ``batchID`` names a command
/// everywhere (a resend after a crash is found by it).
public struct SyncCommand: Sendable, Hashable, Codable, CustomStringConvertible {
    /// What the command does, by id.
    public enum Intent: Sendable, Hashable, Codable {
        /// A new label `id` with this title and state, placed after the
        /// nearest live label of `after` (the ids before it on the device,
        /// nearest first, at most ``SyncCommand/maxAnchors``), else at
        /// `index` (its position on the device) clamped to the list's end.
        case add(id: LabelID, title: String, isEnabled: Bool, after: [LabelID], index: Int)
        /// Sets the title of `id` to `title`, if its title is still the one
        /// the device read (`read`: the version of that title).
        case rename(id: LabelID, title: String, read: TitleVersion)
        /// Sets `isEnabled` of `id` (a toggle carries the value it showed).
        case setEnabled(id: LabelID, isEnabled: Bool)
        /// Removes `id`.
        case remove(id: LabelID)
        /// Puts `id` after the nearest live label of `after` (as ``add(id:title:isEnabled:after:index:)``
        /// places a label), else at `index` clamped.
        case move(id: LabelID, after: [LabelID], index: Int)
        /// Gives the labels this relative order, rebased on the server's:
        /// the live ones among them take, in this order, the positions they
        /// hold on the server; every other label keeps its position.
        case reorder([LabelID])
    }

    /// The version of a title the device read: the seq of the server record
    /// that set it, or the batch id of the device's own pending command that
    /// did (a rename or an add still in its outbox).
    public enum TitleVersion: Sendable, Hashable, Codable, CustomStringConvertible {
        /// Set by the server record at this seq.
        case server(seq: UInt64)
        /// Set by the device's own command with this batch id, not yet on the server when read.
        case pending(batch: UUID)

        /// `seq N` or `pending <batch>`.
        public var description: String {
            switch self {
            case .server(let seq): "seq \(seq)"
            case .pending(let batch): "pending \(batch.uuidString.lowercased())"
            }
        }
    }

    /// The most anchors an add or a move carries (the nearest labels before it on the device).
    public static let maxAnchors = 8

    /// Names the command everywhere: the first row of its records on the
    /// server, its refusal, and a resend after a crash.
    public var batchID: UUID
    /// What it does.
    public var intent: Intent
    /// Who made it (stored in its records and its refusal).
    public var actor: String?
    /// A comment (stored in its records and its refusal).
    public var note: String?
    /// When the device made it (data, never an order).
    public var madeAt: EventTimestamp

    /// A command; the batch id defaults to a fresh one.
    public init(
        _ intent: Intent, batchID: UUID = UUID(), actor: String? = nil, note: String? = nil, madeAt: EventTimestamp = .now()
    ) {
        self.intent = intent
        self.batchID = batchID
        self.actor = actor
        self.note = note
        self.madeAt = madeAt
    }

    /// The label the command addresses, if one.
    public var labelID: LabelID? {
        switch intent {
        case .add(let id, _, _, _, _), .rename(let id, _, _), .setEnabled(let id, _), .remove(let id), .move(let id, _, _): id
        case .reorder: nil
        }
    }

    /// A short readable form naming the batch, e.g. `rename <id> to "Ring" [batch <uuid>]`:
    /// the command text of its refusal record.
    public var description: String {
        let text: String
        switch intent {
        case .add(let id, let title, let isEnabled, _, _): text = "add \"\(title)\" \(isEnabled ? "on" : "off") id \(id)"
        case .rename(let id, let title, _): text = "rename \(id) to \"\(title)\""
        case .setEnabled(let id, let isEnabled): text = "\(isEnabled ? "enable" : "disable") \(id)"
        case .remove(let id): text = "remove \(id)"
        case .move(let id, let after, let index): text = "move \(id) after \(after.first.map { "\($0)" } ?? "nothing") (index \(index))"
        case .reorder(let ids): text = "reorder \(ids.count) labels"
        }
        return text + " [batch \(batchID.uuidString.lowercased())]"
    }
}
