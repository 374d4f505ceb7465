import Foundation

/// Every sync of one log file goes through here: which seqs are durable,
/// who is syncing, and whether a sync ever failed (the writer is then
/// *poisoned* for good).
///
/// Rules (RELIABILITY.md, "fsyncgate"):
/// - Syncs run one at a time. A sync that fails poisons the coordinator
///   before the next sync may start, so no acknowledgement can rest on a
///   sync that ran before or alongside a failed one.
/// - A seq counts as durable only after a successful sync that *began*
///   after its write (``noteWritten(_:)`` is called under the writer's lock
///   once the bytes are written; a sync covers what was noted when it began).
/// - Cutting records (``cut(to:)``) lowers what is durable and written, and
///   a sync that began before the cut does not raise it again.
///
/// Lock order: the writer's state lock, then this coordinator's condition;
/// never the other way (a sync in flight does not need the writer's lock).
///
/// Thread safety: all state is behind an `NSCondition`; waiters block their
/// thread until the sync in flight ends.
final class SyncCoordinator: @unchecked Sendable {
    private let condition = NSCondition()
    /// Every record through this seq is on stable storage.
    private var durableSeq: UInt64
    /// Every record through this seq has been written (not necessarily synced).
    private var writtenSeq: UInt64
    private var syncing = false
    private var failure: EventLogError?
    /// Incremented by each cut, so a sync that began before it does not mark the new records durable.
    private var epoch: UInt64 = 0

    /// A coordinator for a log whose records through `durableSeq` are durable.
    init(durableSeq: UInt64) {
        self.durableSeq = durableSeq
        self.writtenSeq = durableSeq
    }

    /// The error that poisoned the writer, if a sync (or an unrecoverable write) failed.
    var poison: EventLogError? {
        condition.lock()
        defer { condition.unlock() }
        return failure
    }

    /// Poisons the writer with `error` (the first poison stays) and wakes every waiter.
    func poison(_ error: EventLogError) {
        condition.lock()
        if failure == nil { failure = error }
        condition.broadcast()
        condition.unlock()
    }

    /// Whether every record through `seq` is known to be durable.
    func isDurable(through seq: UInt64) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        return durableSeq >= seq
    }

    /// Notes that every record through `seq` has been written (called under
    /// the writer's lock) and returns the current epoch, which a waiter passes
    /// to ``waitDurable(_:epoch:sync:poisonFor:)``.
    func noteWritten(_ seq: UInt64) -> UInt64 {
        condition.lock()
        defer { condition.unlock() }
        writtenSeq = max(writtenSeq, seq)
        return epoch
    }

    /// Runs `sync` as the only sync in flight (waiting for one that is),
    /// and on success marks every record written before it began durable.
    ///
    /// - Throws: the sync's own error, after poisoning with `poisonFor(error, durableSeq)`;
    ///   or the poison, if the writer is (or becomes, during this sync) poisoned.
    /// With `covering`, the sync marks durable no record after that seq
    /// (a sync of a file that a cut of the open log has since replaced
    /// vouches only for the records written to it).
    func runSync(
        _ sync: () throws(EventLogError) -> Void, covering cap: UInt64? = nil, poisonFor: (EventLogError, UInt64) -> EventLogError
    ) throws(EventLogError) {
        condition.lock()
        defer { condition.unlock() }
        while syncing { condition.wait() }
        if let failure { throw failure }
        try runClaimedSync(sync, covering: cap, poisonFor: poisonFor)
    }

    /// Blocks until `seq` is durable. If no sync is in flight, this caller
    /// runs one at once, covering every seq written so far (group commit: a
    /// lone appender never waits for company; appenders arriving during a
    /// sync are covered by the next one). Without `sync`, it never syncs:
    /// some other thread (a pipelined append's sync) is bound to run the
    /// sync that covers `seq`.
    ///
    /// - Throws: as ``runSync(_:poisonFor:)``; the poison also reaches every
    ///   waiter whose seq a failed sync was to cover. `cutBeforeDurable` if
    ///   the record was cut (``cut(to:)``) since it was written in `epoch`.
    func waitDurable(
        _ seq: UInt64, epoch writtenIn: UInt64, sync: (() throws(EventLogError) -> Void)?,
        poisonFor: (EventLogError, UInt64) -> EventLogError, cutBeforeDurable: () -> EventLogError
    ) throws(EventLogError) {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if epoch != writtenIn { throw cutBeforeDurable() }
            // A sync that succeeded before any failure made it durable: acknowledge it.
            if durableSeq >= seq { return }
            if let failure { throw failure }
            guard let sync, !syncing else {
                condition.wait()
                continue
            }
            try runClaimedSync(sync, poisonFor: poisonFor)
        }
    }

    /// Whether `seq`, written in `epoch`, is durable (`false` once a cut removed it).
    func isDurable(_ seq: UInt64, writtenIn: UInt64) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        return epoch == writtenIn && durableSeq >= seq
    }

    /// Runs `sync` with the condition held on entry and exit (released during the sync).
    private func runClaimedSync(
        _ sync: () throws(EventLogError) -> Void, covering cap: UInt64? = nil, poisonFor: (EventLogError, UInt64) -> EventLogError
    ) throws(EventLogError) {
        syncing = true
        let target = min(writtenSeq, cap ?? .max)
        let startEpoch = epoch
        condition.unlock()
        var syncError: EventLogError?
        do throws(EventLogError) { try sync() } catch { syncError = error }
        condition.lock()
        syncing = false
        condition.broadcast()
        if let syncError {
            if failure == nil { failure = poisonFor(syncError, durableSeq) }
            throw syncError
        }
        if let failure { throw failure }
        if epoch == startEpoch { durableSeq = max(durableSeq, target) }
    }

    /// Records that the log was cut after `seq` (and the cut synced): only
    /// records through `seq` remain, all durable. Called under the writer's
    /// lock, after ``runSync(_:poisonFor:)`` of the cut succeeded.
    func cut(to seq: UInt64) {
        condition.lock()
        epoch += 1
        durableSeq = seq
        writtenSeq = seq
        condition.broadcast()
        condition.unlock()
    }
}
