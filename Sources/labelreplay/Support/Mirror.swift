import EventLog
import Foundation
import LabelProjection

/// A synced log (a device's mirror of a server list, with `LOG.outbox`
/// beside it): the write commands keep their edits in its outbox instead of
/// appending to it (only `sync` writes the mirror).
enum Mirror {
    /// Whether `path` is a synced log.
    static func isMirror(_ path: String) -> Bool {
        !LogLocation.isServer(path) && FileManager.default.fileExists(atPath: SyncOutbox.path(forLogAt: path))
    }

    /// The device's list of a synced log with edits not yet pushed — the
    /// server's records with those edits on top, their seqs numbered after
    /// the file's — and how many edits; `nil` for any other log.
    static func optimisticList(_ path: String) throws -> (list: LabelList, pending: Int)? {
        guard isMirror(path) else { return nil }
        // Read without the session's locks: an app or a 'sync --follow' may hold them.
        let (state, pending) = try SyncSession.optimisticState(mirrorPath: path)
        return pending.isEmpty ? nil : (state.list, pending.count)
    }

    /// The sync session of the mirror at `path`, offline, waiting up to 2 s
    /// for a `sync --follow` round that holds it.
    static func openSession(_ path: String) throws -> SyncSession {
        let deadline = ContinuousClock.now + .seconds(2)
        while true {
            do {
                return try SyncSession.open(mirrorPath: path, server: nil)
            } catch {
                guard case .storage(let cause) = error.code, cause.code == .logInUse, ContinuousClock.now < deadline else { throw error }
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
    }

    /// Runs a write command's `body` on a store over the mirror's optimistic
    /// list (its records, then its pending edits), and keeps the records it
    /// appends as edits in the outbox, durably, as one entry; returns what the command
    /// returns, with the records as the outbox made them.
    static func perform(
        _ path: String, options: WriteOptions, _ body: (LabelStore, WriteOptions) throws -> (records: [EventRecord], unchanged: String)
    ) throws -> (store: LabelStore, records: [EventRecord], unchanged: String) {
        let session = try openSession(path)
        defer { session.close() }
        let store = try LabelStore(storage: InMemoryEventLog(records: try session.optimisticRecords()))
        let outcome = try body(store, options)
        // One outbox entry for the command's records (all kept, or none); a rejection audit record is no edit.
        let commands = outcome.records.compactMap { LabelCommand(making: $0.event) }
        try session.make(all: commands, actor: options.actor, note: options.note)
        return (store, outcome.records, outcome.unchanged)
    }
}
