import EventLog
import Synchronization

/// A store's log as the store's readers see it, including readers that
/// outlive the store: its async streams.
///
/// - Reading: through the store's storage while there is one; once a file
///   log's writer is closed (``LabelStore/close()``) or gone (the store was
///   released), through a fresh `LogReader` on the file. A storage the caller
///   gave the store (e.g. an ``InMemoryEventLog``) is kept here, so streams
///   can still read it after the store is released; a file log the store
///   opened itself is not (releasing the store closes it and frees its lock).
/// - ``appliedSeq``: the last seq the store applied, updated under the
///   store's lock. Once the store is released it no longer changes: it is
///   what a stream is owed up to.
///
/// Reading a closed file keeps a few positioned `LogReader`s between reads,
/// so a stream's consecutive catch-up batches continue where the last one
/// stopped instead of scanning from seq 1 each time (which made catching up
/// over a closed or released file log quadratic in its length).
///
/// Thread safety: `appliedSeq` is an atomic; the origin and the reader pool
/// are behind locks, and a reader is used by one thread at a time (taken out of the pool).
final class StoreLog: Sendable {
    /// The caller's storage; `nil` for a file log the store opened itself.
    private let retained: (any EventStorage)?
    /// The file, when the storage is a file log.
    let path: String?
    private let applied: Atomic<UInt64>
    /// Readers of the closed file, each positioned after the records it returned.
    private let readers = Locked<[PooledReader]>([])
    /// The most readers kept (one per stream catching up at once, roughly).
    private static let pooledReaders = 4
    /// How many readers of the closed file were opened (for tests and diagnostics).
    let readersOpened = Atomic<Int>(0)

    /// The list before the log's first record (a based log's base image; else empty).
    /// A cut of the open log (``LabelStore/Options/retention``) moves it forward.
    var origin: LabelList { originList.withLock { $0 } }
    private let originList: Locked<LabelList>

    /// The log now starts after `list.lastSeq`, from `list` (a cut of the open log).
    func rebase(to list: LabelList) { originList.withLock { $0 = list } }

    init(storage: any EventStorage, ownsStorage: Bool, appliedSeq: UInt64, origin: LabelList = LabelList()) {
        self.originList = Locked(origin)
        retained = ownsStorage ? nil : storage
        path = (storage as? LogWriter)?.path
        applied = Atomic(appliedSeq)
    }

    /// The last seq the store applied.
    var appliedSeq: UInt64 { applied.load(ordering: .acquiring) }

    /// Records that the store applied `seq` (under the store's lock).
    func noteApplied(_ seq: UInt64) { applied.store(seq, ordering: .releasing) }

    /// Up to `maxCount` records from `seq` on, read through `storage` (the
    /// store's, while it is alive) or the storage kept here, and through the
    /// file when that storage is a closed file log or there is none.
    func read(from seq: UInt64, maxCount: Int, via storage: (any EventStorage)?) throws(StoreError) -> [EventRecord] {
        if seq >= 1, seq <= origin.lastSeq {
            do throws(EventLogError) {
                return try readArchived(from: seq, maxCount: maxCount, via: storage)
            } catch {
                throw StoreError.storage(error)
            }
        }
        if let storage = storage ?? retained {
            do {
                return try storage.read(from: seq, maxCount: maxCount)
            } catch  where error.code == .closed && path != nil {
                // Read the file below.
            } catch {
                throw StoreError.storage(error)
            }
        }
        guard let path else { throw StoreError(.closed, "The store's log is gone.") }
        do throws(EventLogError) {
            return try readFile(path, from: seq, maxCount: maxCount)
        } catch {
            throw StoreError.storage(error)
        }
    }

    /// Up to `maxCount` records from `seq`, a seq before the log's first:
    /// from the archive holding it, found and checked through the log's
    /// history (``LabelStore/history()``), never from the log (whose reads
    /// start at its first record whatever seq is asked). A read stops at the
    /// archive's last record; the next one continues in the next part.
    /// Positioned archive readers are pooled like the file's, so a stream
    /// catching up through an archive reads it once.
    private func readArchived(from seq: UInt64, maxCount: Int, via storage: (any EventStorage)?) throws(EventLogError) -> [EventRecord] {
        let history: LogHistory
        if let storage = storage ?? retained {
            history = LogHistory(storage: storage, name: path ?? "the store's log")
        } else if let path {
            history = try LogHistory(logPath: path)
        } else {
            throw EventLogError(.closed, "The store's log is gone.")
        }
        guard let archive = try history.archives(from: seq).first, archive.seqs.contains(seq) else {
            throw EventLogError(.archived, "seq \(seq) is held by no archive of \(history.name)", lastGoodSeq: seq - 1)
        }
        let count = Int(clamping: min(UInt64(maxCount), archive.seqs.upperBound - seq + 1))
        return try readPooled(archive.path, from: seq, maxCount: count) { () throws(EventLogError) in try history.open(archive) }
    }

    /// Reads the file with the pooled reader nearest before `seq` (or a new
    /// one) and pools it again unless it reached the end of the log.
    private func readFile(_ path: String, from seq: UInt64, maxCount: Int) throws(EventLogError) -> [EventRecord] {
        try readPooled(path, from: seq, maxCount: maxCount) { () throws(EventLogError) in try LogReader(path: path) }
    }

    /// Reads `path` (the log or an archive) with the pooled reader of it
    /// nearest before `seq` (or one `open` makes) and pools it again unless
    /// it reached the end of the file.
    private func readPooled(
        _ path: String, from seq: UInt64, maxCount: Int, open: () throws(EventLogError) -> LogReader
    ) throws(EventLogError) -> [EventRecord] {
        let pooled = readers.withLock { pool -> PooledReader? in
            let usable = pool.indices.filter { pool[$0].reader.path == path && pool[$0].reader.nextSeq <= seq }
            guard let best = usable.max(by: { pool[$0].reader.nextSeq < pool[$1].reader.nextSeq }) else { return nil }
            return pool.remove(at: best)
        }
        let reader: PooledReader
        if let pooled {
            reader = pooled
        } else {
            reader = PooledReader(try open())
            readersOpened.add(1, ordering: .relaxed)
        }
        try reader.reader.skip(toSeq: seq)
        let records = try reader.reader.poll(maxCount: maxCount)
        if records.count == maxCount {
            readers.withLock { pool in
                pool.append(reader)
                if pool.count > Self.pooledReaders { pool.removeFirst() }
            }
        }
        return records
    }

    /// Folds the records after `list.lastSeq` through `seq` into `list`, reading as ``read(from:maxCount:via:)`` does.
    /// `position`, where the frame of the list's last record is in the log file (a
    /// checkpoint's or snapshot's), is where the read of a log file the store writes starts
    /// (``LogWriter/forEachView(from:after:_:)``): a region an open resumed past is not
    /// read from the nearest record the writer indexed, which may be seq 1.
    func fold(_ list: inout LabelList, through seq: UInt64, via storage: (any EventStorage)?, after position: LogPosition? = nil)
        throws(StoreError)
    {
        if let writer = (storage ?? retained) as? LogWriter {
            // A log file the store writes: the records are folded as they are decoded, in place, at most
            // `viewBatch` per read, so that a `close()` meanwhile is not held up by a long fold (a read
            // keeps the file, and its lock, open until it returns).
            var failure: ProjectionError?
            var position = position.flatMap { $0.seq == list.lastSeq ? $0 : nil }
            while list.lastSeq < seq, failure == nil {
                let start = list.lastSeq
                do throws(EventLogError) {
                    // Later batches start where the last one ended: the writer indexed the records it passed.
                    defer { position = nil }
                    try writer.forEachView(from: start + 1, after: position) { view in
                        do throws(ProjectionError) { try list.replay(view) } catch {
                            failure = error
                            return false
                        }
                        return view.seq < seq && view.seq - start < Self.viewBatch
                    }
                } catch  where error.code == .closed && path != nil {
                    break  // closed meanwhile: what is left is read from the file below
                } catch {
                    throw StoreError.storage(error)
                }
                if list.lastSeq == start { break }  // the log holds no more
            }
            if let failure { throw StoreError.inconsistent(failure) }
            guard list.lastSeq < seq else { return }
        }
        try forEachRecord(from: list.lastSeq + 1, through: seq, via: storage) { (record) throws(StoreError) in
            do throws(ProjectionError) { try list.replay(record) } catch { throw StoreError.inconsistent(error) }
            return true
        }
    }

    /// Calls `body` for each record from `seq` through `last` (`nil`: the end), in order, read as
    /// ``read(from:maxCount:via:)`` reads, in batches of ``batch``; `body` returns `false` to stop.
    func forEachRecord(
        from seq: UInt64, through last: UInt64?, via storage: (any EventStorage)?,
        _ body: (EventRecord) throws(StoreError) -> Bool
    ) throws(StoreError) {
        try forEachRecordInBatches(
            from: seq, through: last, batch: Self.batch,
            read: { (next, count) throws(StoreError) in
                try read(from: next, maxCount: count, via: storage)
            }, body)
    }

    /// How many records the store reads from its log at a time when it folds or walks it.
    static let batch = 4096

    /// How many records a fold of a log file decodes in place per read (``fold(_:through:via:)``):
    /// a few tens of milliseconds of folding, the longest a `close()` waits for the file's release.
    static let viewBatch: UInt64 = 65_536
}

/// A `LogReader` in ``StoreLog``'s pool. `@unchecked Sendable`: a reader is
/// used by one thread at a time, between being taken out of the pool (under
/// its lock) and being put back.
private final class PooledReader: @unchecked Sendable {
    let reader: LogReader
    init(_ reader: LogReader) { self.reader = reader }
}
