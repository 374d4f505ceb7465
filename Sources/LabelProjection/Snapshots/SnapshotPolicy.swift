import EventLog

/// When a store over a file log writes snapshots (checkpoints) of its
/// projection, and how many it keeps. See docs/SNAPSHOTS.md.
///
/// A snapshot is written:
/// - after a write that brings the records appended since the last snapshot
///   to ``everyRecords``, or the log bytes appended since then to
///   ``everyBytes`` (whichever comes first; `0` disables that trigger);
/// - when the store is closed, if at least ``minRecordsOnClose`` records were
///   appended since the last snapshot (and ``onClose`` is set);
/// - whenever ``LabelStore/writeSnapshot()`` is called.
///
/// An automatic snapshot is written by the thread whose write crossed the
/// threshold, after that write is durable and applied, outside the store's
/// lock (readers and other writers are not blocked; the write call returns
/// once the snapshot is on disk). A failed automatic snapshot never fails
/// the write: it is reported in ``LabelStore/snapshotReport``, and the next
/// attempt comes after another full interval.
public struct SnapshotPolicy: Sendable, Hashable {
    /// Records appended since the last snapshot that trigger the next one (`0`: never). Default: 100,000.
    public var everyRecords: UInt64
    /// Log bytes appended since the last snapshot that trigger the next one (`0`: never). Default: 64 MiB.
    public var everyBytes: Int64
    /// Whether closing the store writes a snapshot. Default: `true`.
    public var onClose: Bool
    /// The fewest new records for which closing writes a snapshot. Default: 1,000.
    public var minRecordsOnClose: UInt64
    /// How many snapshots to keep (the newest; at least 1). Older and unusable ones are removed after each write. Default: 2.
    public var keep: Int
    /// Whether opening uses the newest valid snapshot. Default: `true`.
    public var useOnOpen: Bool
    /// Whether opening from a snapshot still reads and checksums the log's
    /// records that the snapshot covers. Default: `false`: the scan resumes
    /// at the snapshot's record (after checking that record's frame and
    /// fingerprint), so opening costs the snapshot plus the tail, and damage
    /// in the covered records is found by `labelreplay verify` or a reader,
    /// not by opening. Opening with a recovery mode other than
    /// `RecoveryMode.tolerateCorruptedTail` always reads everything.
    public var scanCoveredRecordsOnOpen: Bool
    /// Whether the store keeps the log's history index (`LOG.index`) and
    /// checkpoints (`LOG.checkpoints`) up to date: after each automatic
    /// snapshot (and the one written at close) it extends them with the
    /// records appended since, on a background thread (neither a write nor
    /// closing waits for it; ``LabelStore/updateHistoryFiles()`` does it on
    /// the calling thread). Default: `true` (``manual`` sets it `false`).
    public var maintainsHistoryFiles = true

    /// Creates a policy; every parameter has the documented default.
    public init(
        everyRecords: UInt64 = 100_000, everyBytes: Int64 = 64 << 20, onClose: Bool = true,
        minRecordsOnClose: UInt64 = 1_000, keep: Int = 2, useOnOpen: Bool = true,
        scanCoveredRecordsOnOpen: Bool = false
    ) {
        self.scanCoveredRecordsOnOpen = scanCoveredRecordsOnOpen
        self.everyRecords = everyRecords
        self.everyBytes = everyBytes
        self.onClose = onClose
        self.minRecordsOnClose = minRecordsOnClose
        self.keep = max(1, keep)
        self.useOnOpen = useOnOpen
    }

    /// No automatic snapshots (explicit ``LabelStore/writeSnapshot()`` still works, and opening still uses existing ones).
    public static let manual: SnapshotPolicy = {
        var policy = SnapshotPolicy(everyRecords: 0, everyBytes: 0, onClose: false)
        policy.maintainsHistoryFiles = false
        return policy
    }()

    /// Whether the records and bytes appended since the last snapshot call for a new one.
    func isDue(records: UInt64, bytes: Int64) -> Bool {
        (everyRecords > 0 && records >= everyRecords) || (everyBytes > 0 && bytes >= everyBytes)
    }
}
