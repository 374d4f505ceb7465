/// What the store did with snapshots: which one opening used, which it
/// ignored and why, and the last one written.
public struct SnapshotReport: Sendable, Hashable {
    /// A snapshot file that opening did not use, and why.
    public struct Ignored: Sendable, Hashable {
        /// The file.
        public var path: String
        /// Why it was not used.
        public var error: SnapshotError
    }

    /// The snapshot opening started from (`nil`: the log was replayed from seq 1).
    public var usedPath: String?
    /// The seq of that snapshot (0 when none was used).
    public var usedSeq: UInt64 = 0
    /// The records folded from the log on top of it when opening.
    public var replayedRecords: UInt64 = 0
    /// Whether opening read the log from the snapshot's record on only
    /// (the records it covers were not re-read; see ``SnapshotPolicy/scanCoveredRecordsOnOpen``).
    public var resumedScan = false
    /// Snapshot files that were found but not trusted (damaged, foreign, stale, or of another history).
    public var ignored: [Ignored] = []
    /// The newest snapshot written by this store, if any.
    public var lastWrittenPath: String?
    /// Why the last automatic snapshot failed, if it did (cleared by the next success).
    public var lastWriteError: String?

    /// One line for logs, e.g. `opened from snapshot at seq 100000 (+12 records); ignored 1`.
    public var summary: String {
        var text =
            usedPath == nil
            ? "replayed \(replayedRecords) records from seq 1"
            : "opened from snapshot at seq \(usedSeq) (+\(replayedRecords) records\(resumedScan ? "; covered records not re-read" : ""))"
        if !ignored.isEmpty { text += "; ignored \(ignored.count): " + ignored.map { "\($0.path) (\($0.error))" }.joined(separator: ", ") }
        if let lastWriteError { text += "; last snapshot write failed: \(lastWriteError)" }
        return text
    }
}
