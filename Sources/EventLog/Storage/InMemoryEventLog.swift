import Foundation

/// An ``EventStorage`` in memory: for tests, previews and throwaway stores.
///
/// Appends are validated like the file log's (limits, seq conflict) but
/// nothing is durable. Thread safety: state is behind a `Locked` lock.
public final class InMemoryEventLog: IdempotentAppendStorage, Sendable {
    private let records: Locked<[EventRecord]>
    /// The batch id of each append that carried one, by its first seq. Taken
    /// only while ``records``' lock is held (in that order).
    private let batchIDs = Locked<[UInt64: UUID]>([:])
    private let clock: @Sendable () -> EventTimestamp
    /// The seq before the first record held (0 unless made with ``init(after:clock:)``).
    private let seqBefore: UInt64

    /// Creates an empty log, or one holding `records` (which must have seqs 1, 2, 3, …).
    public init(records: [EventRecord] = [], clock: @escaping @Sendable () -> EventTimestamp = { .now() }) {
        precondition(records.enumerated().allSatisfy { UInt64($0.offset + 1) == $0.element.seq }, "records must have seqs 1, 2, 3, …")
        self.records = Locked(records)
        self.clock = clock
        self.seqBefore = 0
    }

    /// An empty log that continues a history it does not hold: its last seq is
    /// `seq`, the first record appended is `seq + 1`, and reads of seqs up to
    /// `seq` return nothing. For a store started from a checkpoint of the list
    /// at `seq` (`labelreplay trace`).
    package init(after seq: UInt64, clock: @escaping @Sendable () -> EventTimestamp = { .now() }) {
        self.records = Locked([])
        self.clock = clock
        self.seqBefore = seq
    }

    /// The seq of the last record.
    public var lastSeq: UInt64 { records.withLock { seqBefore + UInt64($0.count) } }

    /// All records, in order.
    public var allRecords: [EventRecord] { records.withLock { $0 } }

    /// Appends entries after `expectedLastSeq` (when given), all or nothing.
    ///
    /// - Throws: ``EventLogError/Code/seqConflict`` when `expectedLastSeq` is not
    ///   ``lastSeq``; ``EventLogError/Code/invalidEvent`` for an entry beyond a
    ///   ``LogLimits`` limit. Nothing is appended then.
    /// - Complexity: O(k) for k entries, amortized (the record array grows geometrically;
    ///   while an ``allRecords`` array is kept elsewhere, the next append copies all records).
    @discardableResult
    public func append(_ entries: [LogEntry], expectedLastSeq: UInt64? = nil) throws(EventLogError) -> [EventRecord] {
        try append(entries, expectedLastSeq: expectedLastSeq, batch: nil)
    }

    /// Appends entries after `expectedLastSeq` (when given), all or nothing,
    /// storing `batchID` with the first record (``batchID(atSeq:)``).
    ///
    /// - Throws: What ``append(_:expectedLastSeq:)`` throws.
    @discardableResult
    public func append(_ entries: [LogEntry], expectedLastSeq: UInt64?, batchID: UUID) throws(EventLogError) -> [EventRecord] {
        try append(entries, expectedLastSeq: expectedLastSeq, batch: batchID)
    }

    /// The batch id the append whose first record is at `seq` carried, if any.
    ///
    /// - Throws: Nothing in practice: the `throws` is the protocol requirement's.
    public func batchID(atSeq seq: UInt64) throws(EventLogError) -> UUID? {
        records.withLock { _ in batchIDs.withLock { $0[seq] } }
    }

    private func append(_ entries: [LogEntry], expectedLastSeq: UInt64?, batch: UUID?) throws(EventLogError) -> [EventRecord] {
        let now = clock()
        return try records.withLock { (all) throws(EventLogError) -> [EventRecord] in
            let last = seqBefore + UInt64(all.count)
            if let expectedLastSeq, expectedLastSeq != last {
                throw EventLogError(
                    .seqConflict, "expected the log to end at seq \(expectedLastSeq) but it ends at seq \(last)", lastGoodSeq: last)
            }
            var new: [EventRecord] = []
            for (i, entry) in entries.enumerated() {
                let record = entry.record(seq: last + 1 + UInt64(i), now: now)
                try record.validateForEncoding()
                new.append(record)
            }
            all.append(contentsOf: new)
            if let batch, let first = new.first { batchIDs.withLock { $0[first.seq] = batch } }
            return new
        }
    }

    /// Up to `maxCount` records from `seq` on.
    ///
    /// - Throws: Nothing in practice: the `throws` is the ``EventStorage`` requirement's.
    /// - Complexity: O(k) in the records returned (copied out of the array).
    public func read(from seq: UInt64, maxCount: Int) throws(EventLogError) -> [EventRecord] {
        records.withLock { all in
            if seqBefore > 0 && seq <= seqBefore { return [] }  // records it does not hold
            let start = Int(max(seq, seqBefore + 1) - seqBefore - 1)
            guard start < all.count, maxCount > 0 else { return [] }
            return Array(all[start..<min(all.count, start + maxCount)])
        }
    }
}
