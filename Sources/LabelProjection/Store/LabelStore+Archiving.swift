import EventLog

/// Cutting a log's earliest records off to an archive (or dropping them),
/// so the log starts from a base: the list after the cut (docs/FORMAT.md,
/// "Based logs"; docs/SNAPSHOTS.md, "Based logs").
extension LabelStore {
    /// Cuts the records through `lastCutSeq` off the log at `path`
    /// (`LogCut.cut(logPath:through:archiveTo:now:lockWait:image:)`): with
    /// `archiveTo`, they move to a new log file there, which `labelreplay
    /// verify` checks alone and against the log; without, they are dropped.
    /// The log then starts at `lastCutSeq + 1` from a base holding the list
    /// after the cut (every slot, removed labels included), folded from the
    /// log's records under its lock. A store opens it from that base; its
    /// records, heads and answers from the cut on are the same as before.
    /// The caches beside the log (snapshots, checkpoints, the history index
    /// and tree) describe the old file and are removed; the next update
    /// writes them again.
    ///
    /// No store or writer may have the log open (``StoreError/Code/storage(_:)`` with
    /// `EventLogError.Code.logInUse` otherwise; it waits for the lock as long
    /// as opening a writer does, 250 ms, for one that is closing). A crash at any step leaves the
    /// old log or the new layout (see `LogCut` in EventLog).
    ///
    /// - Throws: ``StoreError/Code/storage(_:)`` with the `EventLogError` of
    ///   `LogCut.cut(logPath:through:archiveTo:now:lockWait:image:)`;
    ///   ``StoreError/Code/inconsistentEvent(_:)`` if a record before the cut does not fold.
    /// - Complexity: O(records): one read of the log (the records before the cut folded and hashed as it
    ///   goes), and the file copied once.
    @discardableResult
    public static func cutHistory(
        path: String, through lastCutSeq: UInt64, archiveTo archivePath: String?, now: EventTimestamp = .now()
    ) throws(StoreError) -> LogCut.Report {
        try cutHistory(path: path, through: lastCutSeq, archiveTo: archivePath, now: now, whileLocked: {})
    }

    /// ``cutHistory(path:through:archiveTo:now:)``, calling `whileLocked` once
    /// the log's writer lock is held, before the archive's name is checked.
    static func cutHistory(
        path: String, through lastCutSeq: UInt64, archiveTo archivePath: String?, now: EventTimestamp, whileLocked: () -> Void
    ) throws(StoreError) -> LogCut.Report {
        let report: LogCut.Report
        // The records cut are folded as the plan reads and hashes them: one read for both.
        var fold = CutFold(list: LabelList(), logID: LabelID(), path: path)
        do throws(EventLogError) {
            // The lock may outlive a writer just closed for a moment (a child process spawned then holds a
            // copy of its descriptor until it runs its program): wait as long as opening a writer does.
            report = try LogCut.cut(
                logPath: path, through: lastCutSeq, archiveTo: archivePath, now: now, lockWait: LogWriter.Options().lockWait,
                begin: { (header) throws(EventLogError) in
                    whileLocked()
                    fold.logID = header.logID
                    do throws(StoreError) { fold.list = try LabelList.origin(of: header, path: path) } catch {
                        throw EventLogError(.corruptHeader, error.message, path: path)
                    }
                },
                visitingCut: { (view) throws(EventLogError) in try fold.visit(view) }, image: { fold.image })
        } catch {
            throw fold.storeError(error)
        }
        for entry in SnapshotFiles.list(for: path).snapshots { SnapshotFiles.remove(entry.path) }
        SystemFile.unlink(CheckpointFile.path(for: path))
        return report
    }
}

/// The list a cut folds from the records it cuts, as it reads them, for its base's image.
struct CutFold {
    /// The list so far: the log's origin, then each record cut folded in.
    var list: LabelList
    /// The log's id (the image names it).
    var logID: LabelID
    /// The log, for errors.
    let path: String
    /// Why a record did not fold, if one did not.
    private(set) var inconsistency: ProjectionError?

    init(list: LabelList, logID: LabelID, path: String) {
        self.list = list
        self.logID = logID
        self.path = path
    }

    /// Folds a record cut; one that does not fold stops the cut.
    mutating func visit(_ view: EventRecordView) throws(EventLogError) {
        do throws(ProjectionError) { try list.replay(view) } catch {
            inconsistency = error
            throw EventLogError(.corruptRecord, "record \(view.seq) does not fold: \(error.message)", path: path)
        }
    }

    /// The base's image: the list after the last record cut.
    var image: [UInt8] { list.baseImageBytes(logID: logID) }

    /// What the cut's failure `error` means for the store: the record that did not fold, or the log's error.
    func storeError(_ error: EventLogError) -> StoreError {
        inconsistency.map { StoreError.inconsistent($0) } ?? StoreError.storage(error)
    }
}
