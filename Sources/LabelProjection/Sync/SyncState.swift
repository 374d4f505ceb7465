import EventLog
import Foundation

/// A list as sync decides commands against it: the folded ``LabelList`` and,
/// per label, the version of its title (``SyncCommand/TitleVersion``).
///
/// The server's state is folded from its records (``fold(_:)``): every
/// title is a `server(seq:)` version. A device's optimistic state is its
/// mirror's with its own outbox applied on top (``applyPending(_:)``), where
/// the titles its pending commands set are `pending(batch:)` versions.
///
/// A value (`Sendable`); not thread-safe to mutate from two threads.
public struct SyncState: Sendable {
    /// The list.
    public private(set) var list: LabelList
    /// The version of each label's title (live or removed) that a record or a pending command set.
    public private(set) var titleVersions: [LabelID: SyncCommand.TitleVersion]

    /// The state of an empty list.
    public init() {
        list = LabelList()
        titleVersions = [:]
    }

    /// The state of a list that starts from `list` (a based list's base: the
    /// list at its cut). Each label's title version is taken to be the
    /// label's version there (the seq of its last change, whichever
    /// property: the base keeps no more), on every device alike.
    public init(base list: LabelList) {
        self.list = list
        titleVersions = Dictionary(uniqueKeysWithValues: list.labels.map { ($0.id, .server(seq: $0.version)) })
    }

    /// The state after `records`, folded in seq order from an empty list.
    ///
    /// - Throws: ``ProjectionError`` for a record that does not apply.
    public init(replaying records: some Sequence<EventRecord>) throws(ProjectionError) {
        self.init()
        for record in records { try fold(record) }
    }

    /// The version of the live or removed label `id`'s title, if it has one.
    public func titleVersion(of id: LabelID) -> SyncCommand.TitleVersion? { titleVersions[id] }

    /// Folds one server record (the next seq).
    ///
    /// - Throws: ``ProjectionError`` for a record that does not apply; the state is unchanged then.
    public mutating func fold(_ record: EventRecord) throws(ProjectionError) {
        try list.replay(record)
        noteTitle(of: record.event, version: .server(seq: record.seq))
    }

    /// Decides `command` against this state as the device sees it (its own
    /// pending titles are current) and applies what it decides, with its
    /// titles as `pending(batch:)` versions and `seq`s after ``LabelList/lastSeq``.
    /// Returns the decision.
    @discardableResult
    public mutating func applyPending(_ command: SyncCommand) -> SyncDecision {
        let decision = SyncRebase.decide(command, on: self)
        if case .apply(let events) = decision {
            for event in events {
                let record = EventRecord(seq: list.lastSeq + 1, timestamp: command.madeAt, event: event)
                // Decided against this very state: it applies.
                _ = try? list.apply(record)
                noteTitle(of: event, version: .pending(batch: command.batchID))
            }
        }
        return decision
    }

    private mutating func noteTitle(of event: LabelEvent, version: SyncCommand.TitleVersion) {
        switch event {
        case .added(let id, _, _, _), .renamed(let id, _, _): titleVersions[id] = version
        case .toggled, .removed, .moved, .reordered, .rejected: break
        }
    }
}
