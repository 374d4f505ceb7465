import Foundation

/// The single writer of a log file: appends records durably, one process at a time.
///
/// - Exclusivity: opening takes an exclusive `flock` on the file; a second
///   writer (another process, or another `LogWriter` in this one) gets
///   ``EventLogError/Code/logInUse``. Readers (``LogReader``) need no lock.
/// - Durability: an append returns only when its ``Durability`` holds.
/// - Atomicity: the records of one `append` call are written with one
///   `pwrite`; after a crash, recovery keeps a prefix of whole records.
/// - Thread safety: every method may be called from any thread. Appends are
///   serialized by a lock (`Locked`); seqs are assigned in the order appends take it.
/// - Failure: a failed write is cut back so the file ends at the last
///   good record; if that, or a sync, fails, the writer is poisoned (see
///   ``Durability``) and must be reopened.
public final class LogWriter: EventStorage, Sendable {
    /// How to open a log for writing.
    public struct Options: Sendable {
        /// When an append is acknowledged. Default: ``Durability/syncEachAppend``.
        public var durability: Durability
        /// What to do with damage found when opening. Default: ``RecoveryMode/tolerateCorruptedTail``.
        public var recovery: RecoveryMode
        /// Create the log when the file does not exist. Default: `false`.
        public var createIfMissing: Bool
        /// The clock that stamps entries without a timestamp.
        public var clock: @Sendable () -> EventTimestamp
        /// The file system to use: the real one unless a test injects faults.
        public var fileSystem: any LogFileSystem
        /// How long opening waits for another holder of the lock to let go
        /// before failing with ``EventLogError/Code/logInUse``. Default: 250 ms.
        /// (A closed writer's lock can outlive it briefly: a child process
        /// spawned at that moment by any thread holds a copy of the descriptor
        /// until it executes its program.)
        public var lockWait: Duration
        /// How far ahead of the records the file is extended with zero bytes
        /// (and synced), so that a durable append's `fdatasync` writes data
        /// only, not the file size. `0` disables it. Default: 1 MiB; once the
        /// file is larger than 8 steps, each extension is an eighth of its size
        /// (whole steps, at most 64 MiB). A clean ``LogWriter/close()`` trims
        /// the unused space.
        public var preallocation: Int64
        /// The format version a log created by this open is written in:
        /// ``LogFormat/currentVersion`` (2), or ``LogFormat/batchVersion`` (4),
        /// whose appends of several records are batch frames, about 40 % of
        /// the bytes (docs/FORMAT.md, "Batch frames (version 4)"); a log that
        /// exists keeps its own. Default: 2. Version 4 is read by this build
        /// and later ones only; it becomes the default once reading it is as
        /// fast as reading version 2.
        public var newLogFormat: UInt16 = LogFormat.currentVersion
        /// The header a log created by this open gets (`nil`: a new log from
        /// seq 1 with a new id, in ``newLogFormat``). A copy of a based history creates its
        /// destination with the source's id and base, so the chain runs on.
        package var creationHeader: LogHeader?
        /// Whether the writer is a sync session's, which may write a log that
        /// has an outbox beside it (a device's mirror of a server list).
        package var writesSyncMirror = false

        /// Creates options; every parameter has the documented default.
        public init(
            durability: Durability = .syncEachAppend, recovery: RecoveryMode = .tolerateCorruptedTail,
            createIfMissing: Bool = false, clock: @escaping @Sendable () -> EventTimestamp = { .now() },
            fileSystem: any LogFileSystem = SystemFileSystem(), preallocation: Int64 = 1 << 20,
            lockWait: Duration = .milliseconds(250)
        ) {
            self.durability = durability
            self.recovery = recovery
            self.createIfMissing = createIfMissing
            self.clock = clock
            self.fileSystem = fileSystem
            self.preallocation = max(0, preallocation)
            self.lockWait = lockWait
        }
    }

    struct State {
        var file: (any LogFile)?
        /// The file's header; a cut of the open log (``cutHistory(through:archiveTo:now:visitingCut:image:)``) replaces it with a based one.
        var header: LogHeader
        /// How the file's frames are laid out (its format version, key and first seq), from `header`.
        var format: FrameFormat
        var end: Int64
        /// The file's physical size: `end` plus preallocated zero bytes.
        var allocated: Int64
        var lastSeq: UInt64
        /// Where the last record's frame is (`nil` for an empty log).
        var lastPosition: LogPosition?
        /// The last frame's checksum: the next frame's `previous` (format version 2).
        var lastChecksum: UInt32
        var index: SparseIndex
        /// Incremented whenever records are cut, so a read's offsets noted
        /// without the lock are not put into the index of a changed file.
        var generation: UInt64 = 0
        /// The staged append in progress, if any (``appendStaged(expectedLastSeq:_:)``).
        var staging: Staging?
        /// How many staged appends were begun (each one's token).
        var stagingTokens: UInt64 = 0
        /// Whether a cut of the open log is under way (one at a time).
        var cutting = false
        /// The seq the sync mark (`LOG.synced`) names, 0 for none: the next
        /// mark is written a ``SyncMark/interval`` of records later.
        var markedSeq: UInt64 = 0
    }

    /// The log file's path.
    public let path: String
    /// The file header. It changes only when the open log is cut
    /// (``cutHistory(through:archiveTo:now:visitingCut:image:)``): it is then
    /// the new file's, with its base.
    public var header: LogHeader { state.withLock { $0.header } }
    /// A based log's base (``LogHeader/base``): `nil` for a log from seq 1.
    public var base: LogBase? { header.base }
    /// The log's id, base and the chained checksum its first record continues, read together.
    public var historyStart: LogHistory.Start? {
        state.withLock { LogHistory.Start(logID: $0.header.logID, base: $0.header.base, chainValue: $0.header.previousChecksum) }
    }
    /// What opening found and cut.
    public let recoveryReport: RecoveryReport
    /// The options the log was opened with.
    public let options: Options
    /// Whether opening created the file.
    public let created: Bool

    let state: Locked<State>
    /// Every sync of the file, and the poison of a failed one.
    let syncs: SyncCoordinator
    /// Where the syncs of pipelined appends run (``appendPipelined(_:expectedLastSeq:)``),
    /// one at a time, in the order of the appends.
    let pipelineSyncs = DispatchQueue(label: "EventLog.LogWriter.pipelineSyncs")

    /// Opens (or, with `createIfMissing`, creates) the log at `path`, recovers
    /// it under `options.recovery`, and calls `replay` for each good record in
    /// seq order while it scans (so a projection can be built in the same pass).
    ///
    /// Holding the log's lock, it also removes temporary files that creators
    /// of this log left when they died mid-creation (see
    /// ``RecoveryReport/removedTemporaryFiles``).
    ///
    /// A torn tail is cut (and the cut made durable) before this returns; with
    /// ``RecoveryMode/pointInTime``, bytes cut after damage are first saved to
    /// `PATH.salvaged-<ms>` (reported in ``RecoveryReport/savedTailPath``).
    ///
    /// `replayFrom` skips the decoding of earlier records (a projection
    /// restored from a snapshot at seq N passes N): they are still checked —
    /// framing, checksum, seq continuity — but not decoded, and `replay` sees
    /// only seqs from `replayFrom` on.
    ///
    /// `resumeAt` goes further (a snapshot at seq N passes the position of
    /// record N, with `replayFrom` N): if a whole, checksummed frame of that
    /// length holding that seq is at that offset, the scan starts there and
    /// the records before it are not read at all — opening costs the tail
    /// only. Damage before the position is then not looked for (``LogReader``
    /// and `labelreplay verify` read everything). The position is honoured in
    /// ``RecoveryMode/tolerateCorruptedTail`` only, and ignored when it does
    /// not check out; ``RecoveryReport/resumedAfter`` says whether it was used.
    ///
    /// - Throws: ``EventLogError``: ``EventLogError/Code/fileNotFound`` when there is no
    ///   file and ``Options/createIfMissing`` is off; ``EventLogError/Code/logInUse`` when
    ///   another writer still holds the lock after ``Options/lockWait``;
    ///   ``EventLogError/Code/notARegularFile`` for a directory, FIFO, socket or device;
    ///   ``EventLogError/Code/emptyFile``, ``EventLogError/Code/notALog``,
    ///   ``EventLogError/Code/corruptHeader`` or ``EventLogError/Code/unsupportedVersion``
    ///   when the file does not start with a valid header this build reads;
    ///   ``EventLogError/Code/corruptRecord`` or ``EventLogError/Code/seqGap`` for damage
    ///   that `options.recovery` does not tolerate (nothing is cut then);
    ///   ``EventLogError/Code/ioError`` when an OS call fails (creating, locking, reading,
    ///   cutting, syncing, saving a salvaged tail). Whatever `replay` throws is rethrown
    ///   unchanged. On any error the file is closed and its lock released.
    /// - Complexity: O(r + b) in the records and bytes scanned: every record from seq 1,
    ///   or, when `resumeAt` is honoured, only those from it on. Records before
    ///   `replayFrom` are checked but not decoded. Damage also costs a search of the bytes
    ///   after it for later frames.
    public static func open(
        path: String, options: Options = Options(), replayFrom: UInt64 = 1, resumeAt: LogPosition? = nil,
        replay: (EventRecord) throws -> Void = { _ in }
    ) throws -> LogWriter {
        try openWithViews(path: path, options: options, replayFrom: replayFrom, resumeAt: resumeAt) { try replay($0.record) }
    }

    /// Opens the log exactly as ``open(path:options:replayFrom:resumeAt:replay:)``
    /// does, but passes each replayed record to `replayViews` as an
    /// ``EventRecordView`` decoded in place in the read buffer: no `String`,
    /// array or other allocation per record, whatever its texts.
    ///
    /// Each view (and every ``UTF8Text`` in it) is valid only during the call
    /// it is passed to; copy what you keep (``EventRecordView/record``,
    /// ``UTF8Text/string``). The records are checked exactly as by
    /// ``open(path:options:replayFrom:resumeAt:replay:)``.
    ///
    /// - Throws: What ``open(path:options:replayFrom:resumeAt:replay:)`` throws; whatever
    ///   `replayViews` throws is rethrown unchanged.
    /// - Complexity: As ``open(path:options:replayFrom:resumeAt:replay:)``, with no
    ///   allocation per record replayed.
    public static func openWithViews(
        path: String, options: Options = Options(), replayFrom: UInt64 = 1, resumeAt: LogPosition? = nil,
        replayViews: (EventRecordView) throws -> Void
    ) throws -> LogWriter {
        let fs = options.fileSystem
        var created = false
        if !fs.exists(path) {
            guard options.createIfMissing else {
                throw EventLogError(.fileNotFound, "no log at this path (pass createIfMissing to create one)", path: path)
            }
            guard options.newLogFormat == LogFormat.currentVersion || options.newLogFormat == LogFormat.batchVersion else {
                throw EventLogError(
                    .unsupportedVersion,
                    "a new log is written in format \(LogFormat.currentVersion) or \(LogFormat.batchVersion), not \(options.newLogFormat)",
                    path: path)
            }
            created = try LogCreation.createAtomically(
                path: path, header: options.creationHeader ?? LogHeader(version: options.newLogFormat, createdAt: options.clock()),
                fileSystem: fs)
        }
        if !options.writesSyncMirror, fs.exists(syncOutboxPath(forLogAt: path)) {
            throw EventLogError(
                .logInUse,
                "the log is a device's mirror of a synced server list (\(syncOutboxPath(forLogAt: path)) is beside it): only its sync writes to it; make edits through the sync session (labelreplay's write commands do), or read it",
                path: path)
        }
        var file = try fs.open(path, .readWrite)
        do {
            guard try lockWaiting(file, upTo: options.lockWait) else {
                throw EventLogError(
                    .logInUse, "the log is in use by another writer (it holds the file lock); close it or open a reader instead", path: path
                )
            }
            // The file may have been replaced while this one waited for its lock (its
            // earlier records cut off to an archive): write to the file now at the path.
            while !file.isStill(at: path) {
                file.close()
                file = try fs.open(path, .readWrite)
                guard try lockWaiting(file, upTo: options.lockWait) else {
                    throw EventLogError(
                        .logInUse, "the log is in use by another writer (it holds the file lock); close it or open a reader instead",
                        path: path)
                }
            }
            let header = try LogHeader.read(from: file, path: path)
            let format = FrameFormat(header: header)
            var mark = SyncMark.load(forLogAt: path, header: header, file: file)
            var scan = try Recovery.scan(
                file: file, format: format, mode: options.recovery, decodeFrom: replayFrom, resumeAt: resumeAt, durable: mark,
                visit: replayViews)
            scan.report.removedTemporaryFiles = LogCreation.removeAbandonedTemporaries(of: path, fileSystem: fs)
            if scan.report.droppedBytes > 0 {
                if let damage = scan.report.damage, !damage.isTornTail || damage.cutsWrittenRecords {
                    scan.report.savedTailPath = try saveTail(
                        of: file, from: scan.report.validLength, length: scan.report.droppedBytes, path: path, fileSystem: fs)
                }
                if let durable = mark, durable.end > scan.report.validLength {
                    // Salvage cut records the mark names: it no longer describes the file.
                    SyncMark.remove(forLogAt: path)
                    mark = nil
                }
                try file.truncate(to: scan.report.validLength)
                try file.syncAll()
            } else if scan.report.lastSeq > 0 {
                // The records found may still be only in the page cache (a writer in
                // `noSync` mode, or one that crashed before its sync): make them
                // durable before any frame is written that says they are.
                try file.syncData()
            }
            let writer = LogWriter(path: path, file: file, header: header, format: format, scan: scan, options: options, created: created)
            // Every record found is durable now (the sync above): mark it, if the mark is far behind.
            writer.state.withLock { s in
                s.markedSeq = mark?.seq ?? 0
                writer.markDurable(&s, through: s.lastPosition)
            }
            return writer
        } catch {
            file.close()
            throw error
        }
    }

    /// Tries the exclusive lock until it is free or `wait` has passed.
    private static func lockWaiting(_ file: any LogFile, upTo wait: Duration) throws(EventLogError) -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: wait)
        var pause = Duration.milliseconds(1)
        while true {
            if try file.tryLockExclusive() { return true }
            if clock.now >= deadline { return false }
            Thread.sleep(forTimeInterval: pause.timeInterval)
            pause = min(pause * 2, .milliseconds(20))
        }
    }

    private init(path: String, file: any LogFile, header: LogHeader, format: FrameFormat, scan: ScanResult, options: Options, created: Bool)
    {
        self.path = path
        self.recoveryReport = scan.report
        self.options = options
        self.created = created
        let allocated = scan.report.validLength + (scan.report.damage == nil ? scan.report.preallocatedBytes : 0)
        self.state = Locked(
            State(
                file: file, header: header, format: format, end: scan.report.validLength, allocated: allocated,
                lastSeq: scan.report.lastSeq,
                lastPosition: scan.report.lastPosition, lastChecksum: scan.report.lastPosition?.checksum ?? format.firstPrevious,
                index: scan.index))
        self.syncs = SyncCoordinator(durableSeq: scan.report.lastSeq)
    }

    deinit {
        state.withLock { s in
            s.file?.close()
            s.file = nil
        }
    }

    /// The seq of the last appended record (0 for an empty log).
    public var lastSeq: UInt64 { state.withLock { $0.lastSeq } }

    /// The byte length of the header plus all records.
    public var byteLength: Int64 { state.withLock { $0.end } }

    /// Where the last record's frame is, or `nil` for an empty log. A
    /// snapshot taken at ``lastSeq`` stores it, so a later open can resume there.
    public var lastPosition: LogPosition? { state.withLock { $0.lastPosition } }

    /// Makes every record appended so far durable (useful in ``Durability/noSync`` mode).
    /// A failed sync poisons the writer.
    ///
    /// - Throws: ``EventLogError/Code/closed`` after ``close()``;
    ///   ``EventLogError/Code/poisoned`` if an earlier write or sync failed;
    ///   ``EventLogError/Code/ioError`` when this sync fails (the writer is then poisoned).
    /// - Complexity: One `fdatasync`, after waiting for a sync already running, if any.
    public func sync() throws(EventLogError) {
        let (file, lastSeq, last, generation) = try state.withLock {
            (s) throws(EventLogError) -> (any LogFile, UInt64, LogPosition?, UInt64) in
            guard let file = s.file else { throw EventLogError(.closed, "the log writer is closed", path: path) }
            ReadLeases.acquire(self)
            return (file, s.lastSeq, s.lastPosition, s.generation)
        }
        // The lease keeps the file open for the sync even if `close()` runs meanwhile. The sync
        // vouches for the records written to this file by now only: a cut may have replaced it since.
        defer { ReadLeases.release(self) }
        try syncs.runSync({ () throws(EventLogError) in try file.syncData() }, covering: lastSeq, poisonFor: poisonError)
        if let last { markDurable(through: last, generation: generation) }
    }

    /// Releases the file and its lock. Later calls fail with ``EventLogError/Code/closed``.
    /// Reads already under way complete first: the file (and its lock) is
    /// released when the last of them returns. Do not call it while other
    /// threads still append or sync.
    public func close() {
        state.withLock { s in
            if let file = s.file, s.allocated > s.end, syncs.poison == nil {
                // Trim the preallocated space (and a staged append never committed); either size is a valid log if this is interrupted.
                try? file.truncate(to: s.end)
            }
            if let file = s.file { ReadLeases.close(file, of: self) }
            s.file = nil
            s.staging = nil
        }
    }
}

/// The path of the sync outbox beside a log (`LOG.outbox`): a log with one
/// is a device's mirror of a server list, written only by its sync session.
package func syncOutboxPath(forLogAt logPath: String) -> String { logPath + ".outbox" }
