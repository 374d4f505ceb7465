import Dispatch
import EventLog

/// The history index (`LOG.index`, docs/INDEX.md) and the checkpoints
/// (`LOG.checkpoints`, docs/SNAPSHOTS.md) kept up to date by the store that
/// writes the log, alongside its automatic snapshots.
///
/// After an automatic snapshot (``SnapshotPolicy/maintainsHistoryFiles``),
/// including the one ``close()-553o2`` writes, both files are extended with
/// the records appended since they were last written, on a background
/// thread, so neither a write nor closing waits for them. The index is
/// written atomically, the checkpoints are appended in place under the
/// file's lock: a crash, or a process that exits, between an append and an
/// update (or during one) leaves files covering a prefix of the log, which
/// readers still use (and scan the rest); the next update extends them.
extension LabelStore {
    /// Background work on the history files, behind the store's lock.
    struct HistoryFilesState {
        /// Whether an update is running (another is not started meanwhile).
        var updating = false
        /// Whether a snapshot came while one ran: it runs once more when it ends.
        var pending = false
        /// Left when an update ends, so that closing can wait for it.
        let done = DispatchGroup()
        /// What the last update could not do, if it failed.
        var lastError: String?
    }

    /// Extends the history index and the checkpoints of the store's log with
    /// the records appended since they were written (or builds them), now, on
    /// the calling thread; waits for a background update in flight first.
    ///
    /// - Throws: ``StoreError/Code/invalidCommand`` for a store that is not over a file
    ///   log it opened; ``StoreError/Code/storage(_:)`` when the log cannot be read or a
    ///   file cannot be written (each file is then as it was).
    /// - Complexity: O(records appended since) to read them, plus O(index size) to
    ///   rewrite the index and one checkpoint decoded plus the new ones appended.
    public func updateHistoryFiles() throws(StoreError) {
        guard let path = ownedWriter?.path else {
            throw StoreError(.invalidCommand, "The history index is written next to a file log; this store is over another storage.")
        }
        waitForHistoryFiles()
        try Self.writeHistoryFiles(logPath: path)
    }

    /// After an automatic snapshot: updates the history files on a background
    /// thread, unless the policy says not to, and then applies
    /// ``Options/retention`` to the open log (``OpenRetention``; after a cut the
    /// files are written again for the new file). When an update is running, it
    /// runs once more when it ends instead, so the files end up covering at
    /// least the records of the last snapshot.
    func maintainHistoryFiles() {
        let caches = options.snapshots.maintainsHistoryFiles
        let retention = openRetention
        guard caches || retention != nil, ownedWriter != nil else { return }
        let start = state.withLock { s -> DispatchGroup? in
            guard !s.snapshots.historyFiles.updating else {
                s.snapshots.historyFiles.pending = true
                return nil
            }
            s.snapshots.historyFiles.updating = true
            s.snapshots.historyFiles.done.enter()
            return s.snapshots.historyFiles.done
        }
        guard let group = start, let path = ownedWriter?.path else { return }
        // The update holds the store's state and the log's path, never the store:
        // releasing the store still ends it (and closes its log) at once.
        let state = self.state
        DispatchQueue.global(qos: .utility).async {
            var again = true
            while again {
                if caches { Self.record(in: state) { () throws(StoreError) in try Self.writeHistoryFiles(logPath: path) } }
                // After the caches, never beside them (a cut replaces the file they describe); once it cut,
                // the loop runs again to write the caches of the new file.
                let cut = retention?.applyIfDue() ?? false
                again = state.withLock { s in
                    if cut && caches { s.snapshots.historyFiles.pending = true }
                    defer { s.snapshots.historyFiles.pending = false }
                    s.snapshots.historyFiles.updating = s.snapshots.historyFiles.pending
                    return s.snapshots.historyFiles.pending
                }
            }
            group.leave()
        }
    }

    /// Extends (or builds) the history index, the checkpoints and the tree cache of the log at `logPath`.
    private static func writeHistoryFiles(logPath path: String) throws(StoreError) {
        do {
            try HistoryIndexFile.update(logPath: path)
            _ = try CheckpointFile.update(logPath: path)
            _ = try HistoryTreeFile.update(logPath: path)
        } catch let error as EventLogError {
            throw StoreError.storage(error)
        } catch {
            throw StoreError.storage(EventLogError(.ioError, "updating the history files failed: \(error)", path: path))
        }
    }

    /// Runs `update`, keeping its failure in `state` (never thrown: the files are a cache) for ``historyFilesError``.
    private static func record(in state: Locked<State>, _ update: () throws(StoreError) -> Void) {
        do throws(StoreError) {
            try update()
            state.withLock { $0.snapshots.historyFiles.lastError = nil }
        } catch {
            state.withLock { $0.snapshots.historyFiles.lastError = error.message }
        }
    }

    /// Why the last update of the history files failed (`nil`: it did not, or none ran).
    public var historyFilesError: String? { state.withLock { $0.snapshots.historyFiles.lastError } }

    /// Waits until no background write this store started is running: an
    /// update of a file log's history files, or a checkpoint it writes to its
    /// `CheckpointStorage` (a server list's). For a process that wants them
    /// written before it exits (`labelreplay` write commands do), and for
    /// tests; a failure shows in ``historyFilesError`` or
    /// ``snapshotReport`` (`lastWriteError`). Thread-safe; returns at once
    /// when none is running.
    public func waitForHistoryFiles() {
        state.withLock { $0.snapshots.historyFiles.done }.wait()
    }
}

extension LabelStore {
    /// The list at the newest usable point at or before `seq` to fold on from:
    /// the newest trusted snapshot, or the newest checkpoint of `LOG.checkpoints`
    /// that belongs to the log (``CheckpointFile/checkpoint(atOrBefore:in:reader:)``),
    /// whichever is nearer; for a ``CheckpointStorage``, its newest usable
    /// checkpoint; `nil` when there is none (fold from seq 1).
    /// Only the one chosen is decoded (a snapshot is chosen by its seq, before
    /// it is read; one that then fails to load falls back to older snapshots).
    /// With it, where its last record's frame is in the log file, when known:
    /// the fold on from it reads from there (``StoreLog/fold(_:through:via:after:)``).
    func nearestList(atOrBefore seq: UInt64) -> (list: LabelList, position: LogPosition?)? {
        if ownedWriter == nil, let checkpoints = storage as? any CheckpointStorage {
            return (try? Self.storageCheckpoint(of: checkpoints, atOrBefore: seq))?.list.map { ($0, nil) }
        }
        let snapshotSeq = state.withLock { $0.snapshots.trusted.lazy.filter { $0.seq <= seq }.map(\.seq).max() } ?? 0
        if let writer = ownedWriter, let reader = try? LogReader(path: writer.path),
            let directory = CheckpointFile.load(for: reader, origin: origin).directory,
            let newest = directory.entries.last(where: { $0.seq <= seq }), newest.seq > snapshotSeq,
            let checkpoint = CheckpointFile.checkpoint(atOrBefore: seq, in: directory, reader: reader, decodingRemoved: false).checkpoint,
            checkpoint.list.lastSeq > snapshotSeq
        {
            return (checkpoint.list, checkpoint.position)
        }
        return loadSnapshot(atOrBefore: seq)
    }
}
