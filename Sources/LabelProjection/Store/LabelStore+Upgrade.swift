import EventLog

/// Rewriting a store's log file in log format 4 (batch frames): the same
/// history in fewer bytes.
extension LabelStore {
    /// Rewrites the log at `path` in log format version 4
    /// (`LogUpgrade.upgrade(logPath:lockWait:progress:)`: the same log id,
    /// base and records, so the same history and heads, in new frames; a
    /// crash leaves the old file or the new one), then removes the caches
    /// beside it that name its frames — snapshots and checkpoints, besides
    /// the log's own — which the next open and the next update of the history
    /// files write again. A log in format 4 already is left as it is.
    ///
    /// No store or writer may have the log open (``StoreError/Code/storage(_:)`` with
    /// `EventLogError.Code.logInUse` otherwise, after waiting as long as opening a writer does).
    ///
    /// - Throws: ``StoreError/Code/storage(_:)`` with the `EventLogError` of the upgrade (an
    ///   archive a log beside it is cut from is refused).
    @discardableResult
    public static func upgradeLog(path: String, progress: ((UInt64) -> Void)? = nil) throws(StoreError) -> LogUpgrade.Report {
        let report: LogUpgrade.Report
        do throws(EventLogError) { report = try LogUpgrade.upgrade(logPath: path, progress: progress) } catch {
            throw StoreError.storage(error)
        }
        if report.changed {
            for entry in SnapshotFiles.list(for: path).snapshots { SnapshotFiles.remove(entry.path) }
            SystemFile.unlink(CheckpointFile.path(for: path))
        }
        return report
    }
}
