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

    /// The outcome of each command recorded, by batch id.
    public private(set) var outcomes: [UUID: Outcome] = [:]
    /// The server version of the title each recorded command set or saw; no
    /// entry for a command that set none or was refused.
    private var titles: [UUID: SyncCommand.TitleVersion] = [:]

    /// An empty ledger.
    public init() {}

    /// The version a title read from the pending command `batch` has on the
    /// server: the title it set, or the one it found already there; `nil`
    /// when it was refused or is not recorded (so nothing it set is current).
    public func resolve(_ batch: UUID) -> SyncCommand.TitleVersion? { titles[batch] }

    /// Records what the server decided for `command`: its records (or its
    /// refusal record) start at `firstSeq`, and `state` is the server's state
    /// it was decided on (the title a satisfied command found is read there).
    public mutating func record(_ command: SyncCommand, _ decision: SyncDecision, firstSeq: UInt64, state: SyncState) {
        switch decision {
        case .apply(let events):
            outcomes[command.batchID] = .applied(firstSeq: firstSeq)
            for (i, event) in events.enumerated() {
                switch event {
                case .added, .renamed: titles[command.batchID] = .server(seq: firstSeq + UInt64(i))
                default: break
                }
            }
        case .satisfied:
            outcomes[command.batchID] = .satisfied
            switch command.intent {
            case .add(let id, _, _, _, _), .rename(let id, _, _):
                if let version = state.titleVersion(of: id) { titles[command.batchID] = version }
            case .setEnabled, .remove, .move, .reorder: break
            }
        case .refused(let refusal):
            outcomes[command.batchID] = .refused(refusal, seq: firstSeq)
        }
    }
}
