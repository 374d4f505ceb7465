import EventLog
import Foundation

/// What became of a device's commands pushed so far, by batch id: what the
/// server decided for each and the version each one's title has on the
/// server now — how a later command that read a title from an earlier
/// pending one (``SyncCommand/TitleVersion/pending(batch:)``) is decided
/// (``resolve(_:)``).
///
/// A value (`Sendable`); the pusher keeps one per outbox and records each
/// command as the server decides it.
public struct SyncLedger: Sendable, Hashable {
    /// What the server did with one command.
    public enum Outcome: Sendable, Hashable, Codable {
        /// Its records are on the server from this seq.
        case applied(firstSeq: UInt64)
        /// The server already was what it wanted; nothing was written.
        case satisfied
        /// It was refused; its `rejected` record is at this seq.
        case refused(SyncRefusal, seq: UInt64)
    }

    /// What became of one command: the ledger's unit, kept in the outbox's
    /// attempt entries so a push a crash left open is recorded exactly.
    public struct Entry: Sendable, Hashable {
        /// The command's batch id.
        public var batchID: UUID
        /// What the server did with it.
        public var outcome: Outcome
        /// The seq of the server record whose title the command set (an add
        /// or rename applied) or found (one satisfied); `nil` for any other.
        public var titleSeq: UInt64?

        /// An entry.
        public init(batchID: UUID, outcome: Outcome, titleSeq: UInt64?) {
            self.batchID = batchID
            self.outcome = outcome
            self.titleSeq = titleSeq
        }
    }

    /// The outcome of each command recorded, by batch id.
    public private(set) var outcomes: [UUID: Outcome] = [:]
    /// The server seq of the title each recorded command set or found; no
    /// entry for a command that set none or was refused.
    private var titles: [UUID: UInt64] = [:]

    /// An empty ledger.
    public init() {}

    /// The version a title read from the pending command `batch` has on the
    /// server: the title it set, or the one it found already there; `nil`
    /// when it was refused or is not recorded (so nothing it set is current).
    public func resolve(_ batch: UUID) -> SyncCommand.TitleVersion? { titles[batch].map { .server(seq: $0) } }

    /// Records `entry`.
    public mutating func record(_ entry: Entry) {
        outcomes[entry.batchID] = entry.outcome
        titles[entry.batchID] = entry.titleSeq
    }

    /// Records what the server decided for `command` (``entry(for:_:firstSeq:state:)``).
    public mutating func record(_ command: SyncCommand, _ decision: SyncDecision, firstSeq: UInt64, state: SyncState) {
        record(Self.entry(for: command, decision, firstSeq: firstSeq, state: state))
    }

    /// What the server deciding `decision` for `command` makes of it: its
    /// records (or its refusal record) start at `firstSeq`, and `state` is
    /// the server's state it was decided on (where a satisfied command found
    /// its title).
    public static func entry(for command: SyncCommand, _ decision: SyncDecision, firstSeq: UInt64, state: SyncState) -> Entry {
        switch decision {
        case .apply(let events):
            var titleSeq: UInt64?
            for (i, event) in events.enumerated() {
                switch event {
                case .added, .renamed: titleSeq = firstSeq + UInt64(i)
                default: break
                }
            }
            return Entry(batchID: command.batchID, outcome: .applied(firstSeq: firstSeq), titleSeq: titleSeq)
        case .satisfied:
            var titleSeq: UInt64?
            switch command.intent {
            case .add(let id, _, _, _, _), .rename(let id, _, _):
                if case .server(let seq) = state.titleVersion(of: id) { titleSeq = seq }
            case .setEnabled, .remove, .move, .reorder: break
            }
            return Entry(batchID: command.batchID, outcome: .satisfied, titleSeq: titleSeq)
        case .refused(let refusal):
            return Entry(batchID: command.batchID, outcome: .refused(refusal, seq: firstSeq), titleSeq: nil)
        }
    }
}
