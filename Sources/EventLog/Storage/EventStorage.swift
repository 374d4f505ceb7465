import Foundation

/// The small protocol through which a store reaches its log.
///
/// A file (``LogWriter``), memory (``InMemoryEventLog``), or a table in a
/// database server can implement it; the projection never knows which.
///
/// Requirements:
/// - seqs are gapless, start at 1, and are assigned by the storage;
/// - `append` is all-or-nothing and returns only when the records are as
///   durable as the storage promises;
/// - `read(from:maxCount:)` returns records in seq order and never a partial one:
///   a read from seq `n` returns `n, n+1, …` with no gap, or nothing;
/// - several writers (several stores over one storage, several processes or
///   hosts over a server) are ordered by `expectedLastSeq`: an append whose
///   expectation no longer holds fails with ``EventLogError/Code/seqConflict``
///   and appends nothing.
///
/// Following new records is reading from the next seq; ``waitForAppends(after:timeout:)``
/// says when to read (a server log wakes on a notification, the others poll).
/// One contract test suite runs against every storage of this package.
public protocol EventStorage: AnyObject, Sendable {
    /// The seq of the last record known to this storage object (0 when empty).
    ///
    /// For a log with one writer (a file log, whose lock keeps other writers
    /// out) it is exact. For a shared storage (a server log, an in-memory log
    /// several stores append to) it is the last seq this object appended or
    /// read; ``refreshLastSeq()`` asks the storage itself.
    var lastSeq: UInt64 { get }
    /// The seq of the last record, read from the storage now (a server log
    /// asks the server); ``lastSeq`` afterwards is at least this.
    ///
    /// - Throws: ``EventLogError`` when the storage cannot be asked.
    func refreshLastSeq() throws(EventLogError) -> UInt64
    /// Waits until the storage may hold records after `seq`, or until
    /// `timeout` passes; returns whether it may. A `true` is a hint (read from
    /// `seq + 1` to see), a `false` means none were seen.
    ///
    /// The default implementation polls ``refreshLastSeq()`` every 10 ms; a
    /// server log waits for a notification, with a timed poll beside it.
    ///
    /// - Throws: ``EventLogError`` when the storage cannot be asked (a server
    ///   log reconnects first and throws only when it cannot).
    func waitForAppends(after seq: UInt64, timeout: Duration) throws(EventLogError) -> Bool
    /// Appends entries after `expectedLastSeq` (when given), all or nothing,
    /// and returns their records with the seqs the storage assigned.
    ///
    /// - Throws: ``EventLogError``: ``EventLogError/Code/seqConflict`` when
    ///   `expectedLastSeq` is not the last seq; the storage's failures
    ///   (``EventLogError/Code/ioError``, ``EventLogError/Code/closed``, limits,
    ///   …). Nothing is appended.
    func append(_ entries: [LogEntry], expectedLastSeq: UInt64?) throws(EventLogError) -> [EventRecord]
    /// Up to `maxCount` records from `seq` on, in seq order (empty past the end).
    ///
    /// - Throws: ``EventLogError`` when reading fails (``EventLogError/Code/ioError``,
    ///   ``EventLogError/Code/corruptRecord``, ``EventLogError/Code/closed``, …).
    func read(from seq: UInt64, maxCount: Int) throws(EventLogError) -> [EventRecord]
    /// The base of a storage whose records before its first were cut off
    /// (archived or dropped; docs/FORMAT.md, "Based logs"): the list and the
    /// history tree's frontier after the last record cut, which a store
    /// opens and hashes on from. `nil` (the default) for a storage whose
    /// records start at seq 1. A read from an earlier seq starts at the
    /// first record after it.
    var base: LogBase? { get }
    /// Where the storage's records start in its history, read at one moment
    /// (a cut of the open log changes it): its log id, its base and the
    /// chained checksum its first record continues, for reading it across
    /// its archives (``LogHistory/init(storage:name:)``). `nil` (the
    /// default) when the storage has no log id or chain (an in-memory log).
    var historyStart: LogHistory.Start? { get }
}

extension EventStorage {
    /// `nil`: the storage's records start at seq 1.
    public var base: LogBase? { nil }

    /// `nil`: the storage has no log id or chain to continue.
    public var historyStart: LogHistory.Start? { nil }

    /// ``lastSeq``: storages with one writer know their last seq exactly.
    public func refreshLastSeq() throws(EventLogError) -> UInt64 { lastSeq }

    /// Polls ``refreshLastSeq()`` every 10 ms until it passes `seq` or `timeout` passes.
    public func waitForAppends(after seq: UInt64, timeout: Duration) throws(EventLogError) -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while true {
            if try refreshLastSeq() > seq { return true }
            let now = clock.now
            if now >= deadline { return false }
            let step = min(Duration.milliseconds(10), now.duration(to: deadline))
            Thread.sleep(forTimeInterval: step.timeInterval)
        }
    }

    /// Calls `body` for every record from `seq` through `last` (inclusive; `nil` means the end), in order,
    /// reading in batches. `body` returns `false` to stop early.
    ///
    /// - Throws: What ``read(from:maxCount:)`` or `body` throws; the loop stops there.
    /// - Complexity: O(records visited), in batches of `batch` records.
    public func forEachRecord(
        from seq: UInt64 = 1, through last: UInt64? = nil, batch: Int = 4096,
        _ body: (EventRecord) throws -> Bool
    ) throws {
        try forEachRecordInBatches(
            from: seq, through: last, batch: batch,
            read: { (next, count) throws in
                try read(from: next, maxCount: count)
            }, body)
    }
}

/// The one batch loop behind ``EventStorage/forEachRecord(from:through:batch:_:)``
/// and a store's reads of its log: calls `body` for every record from `seq`
/// through `last` (inclusive; `nil` means the end), in order, fetching them
/// with `read(from, maxCount)` in batches of at most `batch` (and never past
/// `last`). Stops when `body` returns `false` or `read` returns no records.
package func forEachRecordInBatches<Failure: Error>(
    from seq: UInt64, through last: UInt64?, batch: Int,
    read: (_ seq: UInt64, _ maxCount: Int) throws(Failure) -> [EventRecord],
    _ body: (EventRecord) throws(Failure) -> Bool
) throws(Failure) {
    var next = max(seq, 1)
    while true {
        if let last, next > last { return }
        var count = batch
        if let last, last - next < UInt64(max(batch, 0)) { count = Int(last - next + 1) }  // no further than `last`
        let records = try read(next, count)
        if records.isEmpty { return }
        for record in records {
            if let last, record.seq > last { return }
            if try !body(record) { return }
        }
        next = records[records.count - 1].seq + 1
    }
}
