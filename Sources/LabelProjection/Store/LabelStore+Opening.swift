import EventLog

/// Opening a file log: the newest valid snapshot plus the records after it,
/// or, when no snapshot can be trusted, the whole log.
extension LabelStore {
    /// Opens the log at `path` and folds it, starting from a snapshot when one is valid.
    ///
    /// A snapshot is trusted only if it decodes (checksum and content), names
    /// this log's id, is not past the log's last seq, and the log's record at
    /// its seq has the fingerprint it recorded — in a format version 2 log,
    /// the chained frame checksum, which matches only the same history up to
    /// that seq. A snapshot found stale or of another history is removed. The log's scan resumes at that
    /// record when the snapshot says where it is and the policy and recovery
    /// mode allow it (``SnapshotPolicy/scanCoveredRecordsOnOpen``); otherwise
    /// records up to its seq are read and checksummed, but not folded.
    static func openFolding(path: String, options: Options) throws(StoreError) -> (LogWriter, LabelList, SnapshotState, origin: LabelList) {
        var snapshots = SnapshotState()
        // A based log folds on from its base's image (empty for a log that starts at seq 1).
        let origin = try LabelList.origin(ofLogAt: path)
        var base: (entry: SnapshotFiles.Entry, header: SnapshotHeader)?
        var baseList: LabelList?
        if options.snapshots.useOnOpen {
            let listed = SnapshotFiles.list(for: path)
            if let problem = listed.problem {
                snapshots.report.ignored.append(
                    .init(path: problem.path ?? path, error: SnapshotError(.ioError, "no snapshot was looked for: \(problem.message)")))
            }
            let candidates = listed.snapshots
            let logID = candidates.isEmpty ? nil : try? LogReader(path: path).header.logID
            for entry in candidates {
                do throws(SnapshotError) {
                    let (list, header) = try SnapshotFiles.read(entry.path)
                    guard header.logID == logID else {
                        throw SnapshotError(
                            .foreignLog,
                            "the snapshot is of log \(header.logID), not of this log (\(logID.map(String.init(describing:)) ?? "unreadable"))"
                        )
                    }
                    guard header.seq == entry.seq else {
                        throw SnapshotError(.invalidContent, "the file name says seq \(entry.seq) but the snapshot is at seq \(header.seq)")
                    }
                    guard header.seq >= origin.lastSeq else {
                        SnapshotFiles.remove(entry.path)  // of records the log no longer holds
                        throw SnapshotError(
                            .stale, "the snapshot is at seq \(header.seq), before the log's first record (seq \(origin.lastSeq + 1))")
                    }
                    base = (entry, header)
                    baseList = list
                    break
                } catch {
                    snapshots.report.ignored.append(.init(path: entry.path, error: error))
                }
            }
        }

        // Fold the log, skipping what the snapshot covers.
        var misfit: String?
        if let candidate = base, var list = baseList {
            baseList = nil  // the only reference left is `list`: folding the tail does not copy it
            let skip = candidate.header.seq
            var mismatch: SnapshotError?
            var replayed: UInt64 = 0
            let resumeAt = options.snapshots.scanCoveredRecordsOnOpen ? nil : candidate.header.logPosition
            do throws(StoreError) {
                let writer = try openWriter(path: path, options: options, replayFrom: skip, resumeAt: resumeAt) { view in
                    if view.seq <= skip {
                        if view.seq == skip, !candidate.header.coversHistory,
                            view.record.snapshotFingerprint != candidate.header.fingerprint
                        {
                            mismatch = SnapshotError(
                                .historyMismatch, "the log's record at seq \(skip) is not the one the snapshot was taken after")
                        }
                        return
                    }
                    if mismatch != nil { return }
                    try list.replay(view)
                    replayed += 1
                }
                var problem = mismatch
                if problem == nil, writer.header.logID != candidate.header.logID {
                    problem = SnapshotError(
                        .foreignLog, "the snapshot is of log \(candidate.header.logID), not of this log (\(writer.header.logID))")
                }
                if problem == nil, writer.lastSeq < skip {
                    problem = SnapshotError(.stale, "the snapshot is at seq \(skip) but the log ends at seq \(writer.lastSeq)")
                }
                // A resumed scan already matched the frame's checksum (and did not read the records before it).
                if problem == nil, candidate.header.coversHistory, skip > 0, writer.recoveryReport.resumedAfter == nil {
                    do throws(EventLogError) {
                        if try writer.frameChecksum(ofSeq: skip) != candidate.header.fingerprint {
                            problem = SnapshotError(
                                .historyMismatch,
                                "the log's history up to seq \(skip) is not the one the snapshot was taken from (the log was cut and rewritten since)"
                            )
                        }
                    } catch {
                        writer.close()
                        throw StoreError.storage(error)
                    }
                }
                if let problem, problem.code == .stale || problem.code == .historyMismatch {
                    // Provably not of this log's history: retire it so no later open weighs it again.
                    SnapshotFiles.remove(candidate.entry.path)
                }
                guard let problem else {
                    snapshots.seq = skip
                    snapshots.bytes = writer.byteLength
                    snapshots.trusted = [candidate.entry]
                    snapshots.report.usedPath = candidate.entry.path
                    snapshots.report.usedSeq = skip
                    snapshots.report.replayedRecords = replayed
                    snapshots.report.resumedScan = writer.recoveryReport.resumedAfter != nil
                    return (writer, list, snapshots, origin)
                }
                snapshots.report.ignored.append(.init(path: candidate.entry.path, error: problem))
                var full = origin
                try forEachRecord(in: writer, from: 1, through: nil) { (record) throws(StoreError) in
                    do throws(ProjectionError) { try full.replay(record) } catch { throw StoreError.inconsistent(error) }
                    return true
                }
                snapshots.report.replayedRecords = full.lastSeq - origin.lastSeq
                return (writer, full, snapshots, origin)
            } catch  where error.isInconsistentEvent {
                // The records after the snapshot do not fit it: fall through to a full replay,
                // which reports the inconsistency itself if the log is at fault.
                snapshots.report.ignored.append(
                    .init(
                        path: candidate.entry.path,
                        error: SnapshotError(.historyMismatch, "the log's records after the snapshot do not apply to it: \(error.message)"))
                )
                misfit = candidate.entry.path
            }
        }
        var list = origin
        let writer = try openWriter(path: path, options: options) { view in try list.replay(view) }
        // The whole log folds, so the snapshot whose tail did not fit is of another history: retire it.
        if let misfit { SnapshotFiles.remove(misfit) }
        snapshots.report.replayedRecords = list.lastSeq - origin.lastSeq
        return (writer, list, snapshots, origin)
    }

    /// `LogWriter.openWithViews` with the store's options (records decoded in
    /// place, folded without allocating), its errors as ``StoreError``s.
    private static func openWriter(
        path: String, options: Options, replayFrom: UInt64 = 1, resumeAt: LogPosition? = nil,
        replay: (EventRecordView) throws -> Void
    ) throws(StoreError) -> LogWriter {
        var writerOptions = LogWriter.Options(
            durability: options.durability, recovery: options.recovery,
            createIfMissing: options.createIfMissing, clock: options.clock)
        writerOptions.newLogFormat = options.newLogFormat
        do {
            return try LogWriter.openWithViews(
                path: path, options: writerOptions, replayFrom: replayFrom, resumeAt: resumeAt, replayViews: replay)
        } catch let error as EventLogError {
            throw StoreError.storage(error)
        } catch let error as ProjectionError {
            throw StoreError.inconsistent(error)
        } catch {
            throw StoreError.storage(EventLogError(.ioError, "opening the log failed: \(error)", path: path))
        }
    }
}

extension StoreError {
    /// Whether this is ``Code/inconsistentEvent(_:)``.
    var isInconsistentEvent: Bool {
        if case .inconsistentEvent = code { return true }
        return false
    }
}
