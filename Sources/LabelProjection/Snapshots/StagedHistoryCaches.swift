import EventLog
import Foundation

/// A new log's history caches — `LOG.index`, `LOG.tree` and
/// `LOG.checkpoints` — built while an import writes its records, from the
/// frames it stages and the lists its own fold makes, instead of by three
/// passes over the whole log after it (one of them a second fold).
///
/// ``LabelStore`` (its streamed append, ``LabelStore/appendStreamed(_:building:beforeCommit:)``)
/// hands over the frames of every part it stages (``staged(_:)``) and, after
/// each record whose seq is a multiple of ``interval``, the list after it
/// (``checkpoint(_:)``). A thread of its own reads the frames as a reader of
/// the committed log would (``StagedFrameReader``: the same checks and
/// positions), adds each record to the index and its leaf to the tree
/// (``StagedIndexAndTree``), collects the removals, and appends the
/// checkpoints to a temporary file through the same
/// ``CheckpointFile/Appender`` as an update. So the three files are byte for
/// byte the ones `labelreplay index` would write. Once the records are
/// committed, ``finish()`` puts them in place (each under its own lock, as
/// an update writes it); ``abandon()`` removes the temporaries. A process
/// that dies first leaves temporaries, which the next update of each file
/// removes (``SystemFile/removeStaleTemporaries(of:)``).
///
/// Memory: at most 4 staged parts wait for the thread; it holds the index
/// being built, half a megabyte of leaves, and what the next delta is
/// written on (``CheckpointDeltaBase``: a few bytes per slot, not a list).
/// A list handed over is the caller's own, not a copy: the caller waits
/// while its checkpoint is written (``checkpoint(_:)``), so there is one
/// list in memory, where an update after the import held two.
///
/// Thread safety: ``staged(_:)`` and ``checkpoint(_:)`` are called from one
/// thread, in seq order, and ``finish()`` or ``abandon()`` once, after them;
/// everything below `condition` is guarded by it; the reader, the builders
/// and the removals belong to the capture's thread until it ends.
package final class StagedHistoryCaches: @unchecked Sendable {
    /// What the thread is handed, in seq order.
    private enum Job {
        case frames(StagedFrames)
        case checkpoint(LabelList)
        /// No more work; with `keeping`, the index and tree file are ended first.
        case end(keeping: Bool)
    }

    /// A checkpoint is taken after every record whose seq is a multiple of this.
    package let interval: UInt64
    private let checkpointPath: String
    private let checkpointTemporary: String
    private let checkpointFile: SystemFile

    private let condition = NSCondition()
    private var jobs: [Job] = []
    /// Lists handed over, and let go of by the thread (a caller waits for its own).
    private var listsHanded = 0
    private var listsReleased = 0
    /// The most jobs waiting for the thread.
    private static let queueDepth = 4
    private var failure: EventLogError?
    private var running = false

    /// Whether ``finish()`` or ``abandon()`` was called.
    private var settled = false
    private let reader: StagedFrameReader
    private let indexAndTree: StagedIndexAndTree
    private var appender: CheckpointFile.Appender
    /// The last record read's position.
    private var lastPosition: LogPosition?
    /// The removals since the last checkpoint, whose slots the next checkpoint's list gives.
    private var removed: [(id: LabelID, seq: UInt64, title: String, isEnabled: Bool)] = []

    /// Starts building the caches of the log at `logPath`, which `header`
    /// heads and which holds no record yet (not a based log), with a
    /// checkpoint every `interval` records.
    ///
    /// - Throws: ``EventLogError`` when a temporary cannot be created or written.
    package init(
        logPath: String, header: LogHeader, interval: UInt64 = CheckpointFile.defaultInterval,
        fullEvery: Int = CheckpointFile.defaultFullEvery
    ) throws(EventLogError) {
        precondition(interval > 0, "a checkpoint interval is at least 1")
        self.interval = interval
        checkpointPath = CheckpointFile.path(for: logPath)
        SystemFile.removeStaleTemporaries(of: checkpointPath)
        checkpointTemporary = SystemFile.temporaryPath(for: checkpointPath)
        reader = StagedFrameReader(header: header, path: logPath)
        indexAndTree = try StagedIndexAndTree(header: header, logPath: logPath)
        appender = CheckpointFile.Appender(
            logID: header.logID, fullEvery: fullEvery, tree: HistoryTreeBuilder(), end: CheckpointFile.headerLength)
        do throws(EventLogError) {
            checkpointFile = try SystemFile.open(checkpointTemporary, .createExclusive)
        } catch {
            indexAndTree.abandon()
            throw error
        }
        do throws(EventLogError) {
            try CheckpointFile.encodeHeader(logID: header.logID, interval: interval, firstSeq: 1).withUnsafeBytes { raw in
                Result { () throws(EventLogError) in try checkpointFile.write(raw, at: 0) }
            }.get()
        } catch {
            checkpointFile.close()
            SystemFile.unlink(checkpointTemporary)
            indexAndTree.abandon()
            throw error
        }
        running = true
        let thread = Thread { [self] in work() }
        thread.name = "labelreplay caches"
        thread.start()
    }

    /// Hands over the frames of records just staged, which follow those handed over before.
    package func staged(_ frames: StagedFrames) {
        enqueue(.frames(frames))
    }

    /// Hands over the list after the last record of the frames handed over,
    /// whose seq is a multiple of ``interval``, and waits until its
    /// checkpoint is written: the thread has let go of it, so the caller's
    /// next edit copies nothing.
    package func checkpoint(_ list: LabelList) {
        condition.withLock {
            guard queueLocked(.checkpoint(list)) else { return }
            listsHanded += 1
            let ticket = listsHanded
            while running && listsReleased < ticket { condition.wait() }
        }
    }

    /// Says that every record was handed over: the thread ends the index and
    /// the tree file (encodes and writes them aside) while the caller commits.
    package func endOfRecords() {
        enqueue(.end(keeping: true))
    }

    /// Waits for the work handed over, then puts the checkpoints in place of
    /// `LOG.checkpoints` (synced, renamed under that file's lock, the
    /// directory synced), and writes `LOG.index` and `LOG.tree`. Call it once
    /// the records are committed. Returns the checkpoints' seqs.
    ///
    /// - Throws: ``EventLogError`` when a record could not be read back or a
    ///   file written; the temporaries are removed, and each file is as it
    ///   was or as written (caches: the next update checks them).
    package func finish() throws(EventLogError) -> [UInt64] {
        precondition(!settled, "staged history caches are finished or abandoned once")
        settled = true
        let failure = stop(keeping: true)
        let synced = Result { () throws(EventLogError) in
            if let failure { throw failure }
            try checkpointFile.syncAll()
        }
        checkpointFile.close()
        do throws(EventLogError) {
            try synced.get()
            let lock = try SystemFile.openLockedReplaceable(checkpointPath)
            defer { lock.close() }
            try SystemFile.rename(checkpointTemporary, to: checkpointPath)
            try SystemFile.syncDirectory(containing: checkpointPath)
        } catch {
            SystemFile.unlink(checkpointTemporary)
            indexAndTree.abandon()
            throw error
        }
        try indexAndTree.finish()
        return appender.seqs
    }

    /// Stops and removes the temporaries (the records were not committed, or
    /// the log is too small to keep caches for); the log's caches are as
    /// they were. Does nothing after ``finish()``.
    package func abandon() {
        guard !settled else { return }
        settled = true
        _ = stop(keeping: false)
        checkpointFile.close()
        SystemFile.unlink(checkpointTemporary)
        indexAndTree.abandon()
    }

    /// Ends the thread after the work handed over and returns what failed, if anything.
    private func stop(keeping: Bool) -> EventLogError? {
        enqueue(.end(keeping: keeping))
        return condition.withLock {
            while running { condition.wait() }
            return failure
        }
    }

    private func enqueue(_ job: Job) {
        condition.withLock { _ = queueLocked(job) }
    }

    /// Under `condition`'s lock: waits for room in the queue, then queues
    /// `job` and wakes the thread. Returns false, queueing nothing, when the
    /// thread has ended.
    private func queueLocked(_ job: Job) -> Bool {
        while running && jobs.count >= Self.queueDepth { condition.wait() }
        guard running else { return false }
        jobs.append(job)
        condition.broadcast()
        return true
    }

    /// The thread: the jobs in order, until the end or a failure (after
    /// which what is handed over is dropped, and ``finish()`` throws it).
    private func work() {
        while true {
            var job: Job? = condition.withLock {
                while jobs.isEmpty { condition.wait() }
                let job = jobs.removeFirst()
                condition.broadcast()
                return job
            }
            var failed: EventLogError?
            var ended = false
            do throws(EventLogError) {
                switch job {
                case .frames(let frames): try read(frames)
                case .checkpoint(let list): try write(list)
                case .end(let keeping):
                    ended = true
                    // No checkpoint follows: what is kept for a delta is freed before the index is encoded.
                    appender.forgetBase()
                    if keeping { try indexAndTree.prepare() }
                case nil: break
                }
            } catch {
                failed = error
            }
            let wasList = if case .checkpoint = job { true } else { false }
            job = nil  // a list is let go of before its caller is told
            condition.withLock {
                if wasList { listsReleased += 1 }
                if ended || failed != nil {
                    failure = failed
                    running = false
                    jobs = []
                }
                condition.broadcast()
            }
            if ended || failed != nil { return }
        }
    }

    /// Reads the records of `frames`: each into the index, the tree and the checkpoints' tree, and the removals noted.
    private func read(_ frames: StagedFrames) throws(EventLogError) {
        reader.append(frames)
        do {
            try reader.forEachView { view, position in
                appender.tree.append(leaf: try indexAndTree.add(view, at: position))
                appender.note(view.event)
                if case .removed(let id, _, let title, let isEnabled) = view.event {
                    removed.append((id, view.seq, title.string, isEnabled))
                }
                lastPosition = position
            }
        } catch let error as EventLogError {
            throw error
        } catch {
            throw EventLogError(.ioError, "the staged records could not be read back: \(error)")
        }
    }

    /// Appends the checkpoint of `list`, the list after the last record read,
    /// behind the removal block of the removals since the one before.
    private func write(_ list: LabelList) throws(EventLogError) {
        guard let position = lastPosition, position.seq == list.lastSeq else {
            throw EventLogError(
                .invalidEvent, "a checkpoint at seq \(list.lastSeq) was handed over after seq \(lastPosition?.seq ?? 0) was read")
        }
        for removal in removed {
            guard let slot = list.slot(of: removal.id) else { continue }
            appender.pending.append(slot: slot, id: removal.id, seq: removal.seq, title: removal.title, isEnabled: removal.isEnabled)
        }
        removed = []
        try appender.append(list, at: position, to: checkpointFile)
    }
}
