import EventLog

/// Retention while the store stays open: after an automatic snapshot, the
/// background work that keeps the history files also cuts the log when
/// ``LabelStore/Options/retention`` says a cut is due (`LogWriter.cutHistory`:
/// appends go on while it copies).
extension LabelStore {
    /// What a background cut needs of the store, without the store itself
    /// (releasing the store closes its log at once; a cut under way then fails
    /// and changes nothing).
    struct OpenRetention: Sendable {
        let policy: Retention
        let writer: LogWriter
        let log: StoreLog
        let state: Locked<State>
        let frontiers: Locked<HistoryFrontiers>
        let outcome: Locked<RetentionReport?>
        let clock: @Sendable () -> EventTimestamp

        /// Cuts the log when the policy is due, recording what it did in
        /// ``LabelStore/retentionReport`` (nothing when no cut was due);
        /// returns whether it cut.
        func applyIfDue() -> Bool {
            guard !state.withLock({ $0.closed }) else { return false }
            let now = clock()
            do throws(StoreError) {
                guard let cut = try plannedCut(now: now) else { return false }
                let report = try apply(cut, now: now)
                outcome.withLock { $0 = RetentionReport(cut: report, error: nil) }
                return true
            } catch {
                // A store closed meanwhile stopped the cut (which changed nothing): not a failure to report.
                if !state.withLock({ $0.closed }) { outcome.withLock { $0 = RetentionReport(cut: nil, error: error) } }
                return false
            }
        }

        /// The seqs to cut now, if at least the policy's minimum: what the
        /// policy lets go, but never a record an async stream may still read
        /// (one catching up, or one that would if its buffer overflowed).
        private func plannedCut(now: EventTimestamp) throws(StoreError) -> ClosedRange<UInt64>? {
            let first = writer.header.firstSeq
            guard try LabelStore.retentionIsDue(policy, in: writer, firstSeq: first, now: now) else { return nil }
            var lastCut: UInt64
            switch policy.keep {
            case .lastRecords(let count):
                let last = writer.lastSeq
                guard last >= first, last - first + 1 > count else { return nil }
                lastCut = last - count
            case .within(let duration):
                guard let found = try LabelStore.lastRecordBefore(LabelStore.threshold(now: now, duration: duration), path: writer.path)
                else {
                    return nil
                }
                lastCut = found
            }
            let streams = state.withLock { s in s.hub.subscribers.compactMap(\.streamBuffer) }
            if let needed = streams.compactMap(\.resumeSeq).min() { lastCut = min(lastCut, needed) }
            if writer.header.version >= LogFormat.batchVersion, lastCut >= first {
                // The open log's cut goes between frames: a batch frame holding the seq after it keeps it whole.
                do throws(EventLogError) { lastCut = try LogCut.lastFrameEnd(atOrBefore: lastCut, logPath: writer.path) } catch {
                    throw StoreError.storage(error)
                }
            }
            guard lastCut >= first, lastCut - first + 1 >= policy.minimumCut else { return nil }
            return first...lastCut
        }

        /// Cuts `cut` off the open log, then moves the store's origin, history
        /// frontiers and snapshot bookkeeping past it.
        private func apply(_ cut: ClosedRange<UInt64>, now: EventTimestamp) throws(StoreError) -> LogCut.Report {
            let path = writer.path
            let archive: String?
            switch policy.disposal {
            case .drop: archive = nil
            case .archive(let directory): archive = LabelStore.archivePath(forLog: path, directory: directory, cut: cut)
            }
            if case .archive(let directory) = policy.disposal {
                LabelStore.removeLeftoverArchives(ofLog: path, directory: directory, firstSeq: cut.lowerBound)
            }
            var fold = CutFold(list: log.origin, logID: writer.header.logID, path: path)
            let report: LogCut.Report
            do throws(EventLogError) {
                report = try writer.cutHistory(
                    through: cut.upperBound, archiveTo: archive, now: now,
                    visitingCut: { (view) throws(EventLogError) in try fold.visit(view) },
                    image: { fold.image })
            } catch {
                throw fold.storeError(error)
            }
            log.rebase(to: fold.list)
            if let start = HistoryTreeBuilder(count: cut.upperBound, frontier: report.frontier) {
                frontiers.withLock { f in
                    f.origin = start
                    f.kept.removeAll { $0.count < start.count }
                    if f.newest.count < start.count { f.newest = start }
                }
            }
            // Snapshots before the cut are of records the log no longer holds; the checkpoints
            // describe the old file (the next update of the history files writes them again).
            state.withLock { s in
                s.snapshots.trusted.removeAll { $0.seq < cut.upperBound }
                s.snapshots.bytes -= report.cutBytes
            }
            for entry in SnapshotFiles.list(for: path).snapshots where entry.seq < cut.upperBound { SnapshotFiles.remove(entry.path) }
            SystemFile.unlink(CheckpointFile.path(for: path))
            return report
        }
    }

    /// The background cut for this store, when it has a retention policy and a file log it opened.
    var openRetention: OpenRetention? {
        guard let policy = options.retention, let writer = ownedWriter else { return nil }
        return OpenRetention(
            policy: policy, writer: writer, log: log, state: state, frontiers: historyFrontiers, outcome: retentionOutcome,
            clock: options.clock)
    }

    /// The last record of the log at `path` stamped before `threshold`
    /// (milliseconds since 1970) with none at or after it before it: reads up
    /// to the first record stamped at or after it.
    static func lastRecordBefore(_ threshold: Int64, path: String) throws(StoreError) -> UInt64? {
        do throws(EventLogError) {
            let reader = try LogReader(path: path)
            var last: UInt64?
            while let record = try reader.next(), record.timestamp.millisecondsSince1970 < threshold { last = record.seq }
            return last
        } catch {
            throw StoreError.storage(error)
        }
    }
}
