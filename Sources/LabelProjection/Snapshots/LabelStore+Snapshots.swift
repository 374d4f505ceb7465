import EventLog

/// Snapshots (checkpoints) of the projection next to a file log: writing them
/// by policy or on request, and opening from the newest valid one.
extension LabelStore {
    /// Snapshot bookkeeping behind the store's lock.
    struct SnapshotState {
        /// The seq of the newest snapshot used or written (0: none).
        var seq: UInt64 = 0
        /// The log's byte length when that snapshot was taken (approximately).
        var bytes: Int64 = 0
        /// Whether an automatic snapshot is being written.
        var writing = false
        /// Snapshots known to match this log's history, newest first.
        var trusted: [SnapshotFiles.Entry] = []
        /// What opening and writing did.
        var report = SnapshotReport()
        /// The history index and checkpoints kept alongside.
        var historyFiles = HistoryFilesState()
        /// Whether one of this store's own appends crossed a multiple of its
        /// ``CheckpointStorage``'s interval since the last checkpoint it wrote.
        var checkpointCrossed = false
        /// The checkpoint this store's next storage delta may be written on
        /// (the last one it wrote or opened from), when its storage takes deltas.
        var storageBase: StorageCheckpointBase?
    }

    /// One snapshot file that was written.
    public struct SnapshotInfo: Sendable, Hashable {
        /// The file.
        public var path: String
        /// The seq of the last record it covers.
        public var seq: UInt64
        /// The file's size in bytes.
        public var byteCount: Int
    }

    /// What opening did with snapshots and how the last snapshot write went.
    public var snapshotReport: SnapshotReport { state.withLock { $0.snapshots.report } }

    /// Writes a snapshot of the projection as it is now, next to the log
    /// (`PATH.snapshot-<seq>`), atomically and durably, then removes all but
    /// the newest ``SnapshotPolicy/keep`` snapshots. Returns the file written.
    ///
    /// - Throws: ``StoreError/Code/invalidCommand`` for a store that is not over a file
    ///   log it opened itself (``init(storage:options:)``); ``StoreError/Code/closed``
    ///   after ``close()-553o2``; ``StoreError/Code/storage(_:)`` when reading the last record's
    ///   fingerprint from the log fails or writing the file fails (e.g.
    ///   `EventLogError.Code.ioError`). The store and the log are unchanged then.
    /// - Complexity: O(s + t) for s known ids (live and removed) and t live title bytes,
    ///   to encode and write the file (plus a file sync and a directory sync), and one log
    ///   read of the last record. The store's lock is held only to capture the projection,
    ///   O(1).
    @discardableResult
    public func writeSnapshot() throws(StoreError) -> SnapshotInfo {
        guard ownedWriter != nil else {
            throw StoreError(.invalidCommand, "Snapshots are written next to a file log; this store is over another storage.")
        }
        let pending = try state.withLock { (s) throws(StoreError) -> PendingSnapshot in
            if s.closed { throw StoreError.closedStore }
            return pendingSnapshot(s)
        }
        return try persistSnapshot(pending)
    }

    /// A projection captured for a snapshot, with where its last record is in the log.
    struct PendingSnapshot: Sendable {
        let list: LabelList
        let logPosition: LogPosition?
    }

    /// Under the lock: the projection and the position of its last record (`nil` if the log has more).
    private func pendingSnapshot(_ s: State) -> PendingSnapshot {
        guard let writer = ownedWriter, writer.lastSeq == s.list.lastSeq else { return PendingSnapshot(list: s.list, logPosition: nil) }
        return PendingSnapshot(list: s.list, logPosition: writer.lastPosition)
    }

    // MARK: - Policy

    /// Under the lock: the state to snapshot if the policy says one is due now (and marks it in progress).
    func snapshotDue(_ s: inout State) -> PendingSnapshot? {
        guard let writer = ownedWriter else { return storageCheckpointDue(&s) }
        guard !s.snapshots.writing, s.broken == nil,
            options.snapshots.isDue(
                records: s.list.lastSeq - min(s.list.lastSeq, s.snapshots.seq),
                bytes: writer.byteLength - s.snapshots.bytes)
        else { return nil }
        s.snapshots.writing = true
        return pendingSnapshot(s)
    }

    /// Under the lock, while closing: the state to snapshot if the policy writes one on close.
    func snapshotDueOnClose(_ s: inout State) -> PendingSnapshot? {
        let policy = options.snapshots
        guard ownedWriter != nil, policy.onClose, !s.snapshots.writing, s.broken == nil,
            s.list.lastSeq >= s.snapshots.seq + max(1, policy.minRecordsOnClose)
        else { return nil }
        s.snapshots.writing = true
        return pendingSnapshot(s)
    }

    /// Writes a snapshot the policy asked for; a failure is recorded in the
    /// report, never thrown, and the next attempt waits for another interval
    /// (so a failing disk does not make every write retry).
    func writeAutomaticSnapshot(_ pending: PendingSnapshot) {
        guard ownedWriter != nil else { return writeStorageCheckpoint(pending) }
        defer { maintainHistoryFiles() }
        do throws(StoreError) {
            try persistSnapshot(pending)
        } catch {
            let byteLength = ownedWriter?.byteLength ?? 0
            state.withLock { s in
                s.snapshots.writing = false
                s.snapshots.report.lastWriteError = error.message
                if pending.list.lastSeq > s.snapshots.seq {
                    s.snapshots.seq = pending.list.lastSeq
                    s.snapshots.bytes = byteLength
                }
            }
        }
    }

    /// Encodes `list`, writes it next to the log, records it as trusted and prunes old files.
    @discardableResult
    private func persistSnapshot(_ pending: PendingSnapshot) throws(StoreError) -> SnapshotInfo {
        let list = pending.list
        guard let writer = ownedWriter else {
            throw StoreError(.invalidCommand, "Snapshots are written next to a file log; this store is over another storage.")
        }
        var fingerprint: UInt32 = 0
        if list.lastSeq > 0 {
            let records: [EventRecord]
            do { records = try storage.read(from: list.lastSeq, maxCount: 1) } catch { throw StoreError.storage(error) }
            guard let record = records.first, record.seq == list.lastSeq else {
                throw StoreError(
                    .storage(EventLogError(.corruptRecord, "record \(list.lastSeq) is missing", path: writer.path)),
                    "Cannot snapshot: the log has no record \(list.lastSeq).")
            }
            fingerprint = record.snapshotFingerprint
        }
        let bytes = list.snapshotBytes(logID: writer.header.logID, fingerprint: fingerprint, logPosition: pending.logPosition)
        let entry = SnapshotFiles.Entry(path: SnapshotFiles.path(for: writer.path, seq: list.lastSeq), seq: list.lastSeq)
        let keep = options.snapshots.keep
        try snapshotFileLock.withLock { (_) throws(StoreError) in
            do throws(EventLogError) { try SnapshotFiles.write(bytes, to: entry.path) } catch { throw StoreError.storage(error) }
            let byteLength = writer.byteLength
            let kept = state.withLock { s in
                s.snapshots.trusted.removeAll { $0.path == entry.path }
                s.snapshots.trusted.append(entry)
                s.snapshots.trusted.sort { $0.seq > $1.seq }
                s.snapshots.trusted = Array(s.snapshots.trusted.prefix(keep))
                if entry.seq >= s.snapshots.seq {
                    s.snapshots.seq = entry.seq
                    s.snapshots.bytes = byteLength
                }
                s.snapshots.writing = false
                s.snapshots.report.lastWrittenPath = entry.path
                s.snapshots.report.lastWriteError = nil
                return Set(s.snapshots.trusted.map(\.path))
            }
            SnapshotFiles.prune(for: writer.path, keeping: kept)
        }
        return SnapshotInfo(path: entry.path, seq: entry.seq, byteCount: bytes.count)
    }

    /// The newest trusted snapshot at or before `seq`, decoded; a file that no longer reads is forgotten.
    func loadSnapshot(atOrBefore seq: UInt64) -> (list: LabelList, position: LogPosition?)? {
        guard let writer = ownedWriter else { return nil }
        let candidates = state.withLock { $0.snapshots.trusted.filter { $0.seq <= seq } }
        for entry in candidates {
            if let (list, header) = try? SnapshotFiles.read(entry.path), header.seq == entry.seq, header.logID == writer.header.logID {
                return (list, header.logPosition)
            }
            state.withLock { $0.snapshots.trusted.removeAll { $0 == entry } }
        }
        return nil
    }
}
