import EventLog
import Foundation

/// The storage a ``SyncedStore``'s ``LabelStore`` writes to and reads from:
/// the device's optimistic list as a log in memory.
///
/// - An append (a write of the store) is made into a ``SyncCommand`` per
///   record by the session (``SyncSession/make(_:actor:note:)``) — durable
///   in the outbox before `append` returns — and kept here with its seq.
/// - After a sync, ``correct()`` appends the events that turn the list
///   held here into the session's new optimistic list; the store folds them
///   as another writer's records (`refresh()`), telling its subscribers what
///   changed and nothing else.
///
/// Seqs here are the device's own (a local history of what the app saw);
/// the server's seqs are the mirror's. Thread safety: state behind a lock;
/// an append and a correction never interleave.
final class SyncWorkingLog: EventStorage, Sendable {
    private struct State {
        var records: [EventRecord]
        /// The list the records fold to.
        var list: LabelList
    }

    private let session: SyncSession
    private let state: Locked<State>
    private let clock: @Sendable () -> EventTimestamp

    /// A log holding the session's optimistic list as one record per label
    /// (its records' times and actors are not the server's: seqs here are
    /// local).
    init(session: SyncSession, clock: @escaping @Sendable () -> EventTimestamp = { .now() }) throws(StoreError) {
        self.session = session
        self.clock = clock
        let list = session.optimistic.list
        var records: [EventRecord] = []
        var folded = LabelList()
        for (index, label) in list.labels.enumerated() {
            let record = EventRecord(
                seq: UInt64(index + 1), timestamp: list.lastTimestamp ?? clock(),
                event: .added(id: label.id, title: label.title, isEnabled: label.isEnabled, index: index))
            do throws(ProjectionError) { try folded.replay(record) } catch { throw .inconsistent(error) }
            records.append(record)
        }
        state = Locked(State(records: records, list: folded))
    }

    var lastSeq: UInt64 { state.withLock { UInt64($0.records.count) } }

    func append(_ entries: [LogEntry], expectedLastSeq: UInt64?) throws(EventLogError) -> [EventRecord] {
        let now = clock()
        return try state.withLock { (s) throws(EventLogError) -> [EventRecord] in
            let last = UInt64(s.records.count)
            if let expectedLastSeq, expectedLastSeq != last {
                throw EventLogError(
                    .seqConflict, "the synced list changed (a sync corrected it): it ends at seq \(last), not \(expectedLastSeq)",
                    lastGoodSeq: last)
            }
            var list = s.list
            var records: [EventRecord] = []
            for (i, entry) in entries.enumerated() {
                let record = entry.record(seq: last + 1 + UInt64(i), now: now)
                do throws(ProjectionError) { try list.replay(record) } catch {
                    throw EventLogError(.invalidEvent, "the write does not apply to the synced list: \(error)")
                }
                records.append(record)
            }
            // The records are the device's edits: durable in the outbox, all or none, before the store is told
            // they are appended (a rejection audit record stays here: it is no edit).
            let commands = records.compactMap { LabelCommand(making: $0.event) }
            let envelope = records.first
            do throws(StoreError) {
                _ = try session.make(all: commands, actor: envelope?.actor, note: envelope?.note)
            } catch {
                if case .storage(let cause) = error.code { throw cause }
                throw EventLogError(.invalidEvent, "the edit could not be kept for sync: \(error.message)")
            }
            s.records += records
            s.list = list
            return records
        }
    }

    func read(from seq: UInt64, maxCount: Int) throws(EventLogError) -> [EventRecord] {
        state.withLock { s in
            let start = Int(max(seq, 1) - 1)
            guard start < s.records.count, maxCount > 0 else { return [] }
            return Array(s.records[start..<min(s.records.count, start + maxCount)])
        }
    }

    /// Appends the events that turn the list held here into the session's
    /// optimistic list now (``SyncCorrections``), with no edit between
    /// reading that list and appending them; returns how many.
    @discardableResult
    func correct() -> Int {
        let now = clock()
        return state.withLock { s in
            let events = SyncCorrections.events(from: s.list, to: session.optimistic.list)
            for event in events {
                let record = EventRecord(seq: UInt64(s.records.count) + 1, timestamp: now, event: event)
                // The corrections are computed from this very list: they fold.
                try? s.list.replay(record)
                s.records.append(record)
            }
            return events.count
        }
    }
}
