import Foundation

/// When an append is acknowledged (when `append` returns).
///
/// | mode | returns after | survives |
/// |---|---|---|
/// | ``syncEachAppend`` (default) | its own `fdatasync` (`F_FULLFSYNC` on Apple platforms) | process crash and power loss |
/// | ``groupCommit`` | an `fdatasync` that began after its write; concurrent appenders share one | process crash and power loss |
/// | ``noSync`` | `pwrite` into the OS page cache | process crash only |
///
/// A failed sync is never retried as if the data were safe: the writer
/// becomes *poisoned* and refuses every later append until the log is
/// reopened, which re-reads what is actually on disk (the PostgreSQL
/// "fsyncgate" lesson: after a failed `fsync` the kernel may have dropped
/// the dirty pages and a second `fsync` can report success falsely).
public enum Durability: String, Sendable, Hashable, CaseIterable, Codable {
    /// Every append syncs before it returns. Appends are serialized.
    case syncEachAppend
    /// Appends write under the lock, then share syncs: a lone appender syncs at
    /// once (never waits for company); appenders arriving during a sync are
    /// covered by the next one.
    case groupCommit
    /// No sync: OS-buffered, for bulk imports and tests. `sync()` can be called explicitly.
    case noSync
}

/// The rendezvous of group commit: which seqs are durable, who is syncing.
///
/// Thread safety: all state is behind an `NSCondition`; waiting appenders
/// block their thread until a sync that covers them ends.
final class GroupCommit: @unchecked Sendable {
    private let condition = NSCondition()
    private var syncedSeq: UInt64
    private var syncing = false
    private var failure: EventLogError?

    init(syncedSeq: UInt64) { self.syncedSeq = syncedSeq }

    /// Blocks until `seq` is durable. If no sync is running, this caller runs
    /// one at once, covering every seq written so far (`writtenSeq()`).
    func waitDurable(_ seq: UInt64, writtenSeq: () -> UInt64, sync: () throws(EventLogError) -> Void) throws(EventLogError) {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let failure { throw failure }
            if syncedSeq >= seq { return }
            if syncing {
                condition.wait()
                continue
            }
            syncing = true
            let target = writtenSeq()
            condition.unlock()
            var error: EventLogError?
            do throws(EventLogError) { try sync() } catch let e { error = e }
            condition.lock()
            syncing = false
            if let error {
                failure = error
            } else {
                syncedSeq = max(syncedSeq, target)
            }
            condition.broadcast()
        }
    }

    /// Records that everything up to `seq` is durable (after an explicit sync).
    func markDurable(_ seq: UInt64) {
        condition.lock()
        syncedSeq = max(syncedSeq, seq)
        condition.broadcast()
        condition.unlock()
    }
}
