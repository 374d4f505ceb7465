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
/// the dirty pages and a second `fsync` can report success falsely). This
/// holds for every sync of the log file — an append's, a group's, an
/// explicit ``LogWriter/sync()``, a preallocation step's, a cut's — and the
/// writer's syncs run one at a time, so no append is acknowledged on the
/// strength of a sync that ran before or alongside a failed one.
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
