/// Which records an audit question asks for: about some labels, by some
/// actors, stamped in a time window. Filters that are `nil` do not narrow;
/// given filters combine with AND, the values of one filter with OR.
///
/// ``matches(_:)`` is the answer's definition; a ``HistoryIndex`` only
/// narrows which records are read to apply it
/// (``LogReader/forEachRecord(matching:using:from:through:_:)``).
public struct HistoryQuery: Sendable, Hashable {
    /// Records whose event names any of these labels; a `reordered` event matches when its order holds any of them.
    public var labels: Set<LabelID>?
    /// Records by any of these actors (`nil` in the set: records without an actor).
    public var actors: Set<String?>?
    /// Records stamped at or after this time.
    public var since: EventTimestamp?
    /// Records stamped at or before this time.
    public var until: EventTimestamp?

    /// Creates a query; every filter defaults to `nil` (every record matches).
    public init(labels: Set<LabelID>? = nil, actors: Set<String?>? = nil, since: EventTimestamp? = nil, until: EventTimestamp? = nil) {
        self.labels = labels
        self.actors = actors
        self.since = since
        self.until = until
    }

    /// Whether any filter is given (otherwise every record matches and an index cannot help).
    public var narrows: Bool { labels != nil || actors != nil || since != nil || until != nil }

    /// Whether `record` matches every filter given.
    public func matches(_ record: EventRecord) -> Bool {
        (labels.map { Self.event(record.event, concerns: $0) } ?? true)
            && (actors.map { $0.contains(record.actor) } ?? true)
            && (since.map { record.timestamp >= $0 } ?? true)
            && (until.map { record.timestamp <= $0 } ?? true)
    }

    /// Whether `event` is about any of `ids`: it names one, or it is a reorder of a list holding one.
    public static func event(_ event: LabelEvent, concerns ids: Set<LabelID>) -> Bool {
        if let id = event.labelID { return ids.contains(id) }
        if case .reordered(let order) = event { return order.contains { ids.contains($0) } }
        return false
    }
}

extension LogReader {
    /// Calls `body` with every record from `seq` through `last` (`nil`: the
    /// end as it is now) that `query` matches, in seq order; `body` returns
    /// `false` to stop. With a usable `index` (``HistoryIndexFile/load(for:wholeCheckLimit:)``),
    /// only the records it names as candidates are read among those it covers
    /// (each reached with ``seek(toSeq:atOffset:previousChecksum:)``, so each is
    /// checked as any read is), and the records after it covers are scanned;
    /// without one, every record is read. The records passed are the same either way.
    ///
    /// The reader is left after the last record read.
    ///
    /// - Throws: What ``next()`` throws for a record read (damage, a seq gap, an I/O
    ///   error); ``EventLogError/Code/corruptRecord`` naming the index file when a position
    ///   the index gives does not lead to the record it names (a wrong index fails the read,
    ///   it never changes the answer); whatever `body` throws.
    /// - Complexity: With an index: O(c · B) for the c candidates (each read from the start
    ///   of its block of ``HistoryIndex/blockSize`` records, consecutive candidates sharing
    ///   the reads), plus O(t) for the t records after the index. Without: O(records).
    public func forEachRecord(
        matching query: HistoryQuery, using index: HistoryIndex?, from seq: UInt64 = 1, through last: UInt64? = nil,
        _ body: (EventRecord) throws -> Bool
    ) throws {
        let first = max(seq, 1)
        var scanFrom = first
        // A damaged part of the index (checked as it is read) is not used: the whole range is scanned.
        if let index, query.narrows,
            let candidates = try? index.candidates(labels: query.labels, actors: query.actors, since: query.since, until: query.until)
        {
            for candidate in candidates where candidate >= first {
                if let last, candidate > last { return }
                try move(toSeq: candidate, using: index)
                // The index was checked to belong to this log, which so holds every record it
                // covers: a candidate that cannot be read means the index's positions are wrong.
                guard let record = try next(), record.seq == candidate else {
                    throw Self.unreachable(candidate, path: path, lastGoodSeq: nextSeq - 1)
                }
                if query.matches(record), try !body(record) { return }
            }
            scanFrom = max(first, index.coveredSeq + 1)
        }
        try move(toSeq: scanFrom, using: index)
        while let record = try next() {
            if let last, record.seq > last { return }
            if query.matches(record), try !body(record) { return }
        }
    }

    /// The record `seq`, reached through `index` when that is cheaper than
    /// reading on (see ``forEachRecord(matching:using:from:through:_:)``);
    /// `nil` when the log ends before it. The reader is left after it.
    ///
    /// - Throws: What ``next()`` throws; ``EventLogError/Code/corruptRecord`` naming the index
    ///   file when a position it gives does not lead to record `seq` though it covers it.
    /// - Complexity: O(``HistoryIndex/blockSize``) frames at most with an index; O(seq) without.
    public func record(atSeq seq: UInt64, using index: HistoryIndex?) throws -> EventRecord? {
        try move(toSeq: seq, using: index)
        guard let record = try next() else {
            if let index, seq <= index.coveredSeq { throw Self.unreachable(seq, path: path, lastGoodSeq: nextSeq - 1) }
            return nil
        }
        return record
    }

    /// The error for a record an index covers that its positions do not lead to.
    static func unreachable(_ seq: UInt64, path: String, lastGoodSeq: UInt64) -> EventLogError {
        EventLogError(
            .corruptRecord,
            "the history index names record \(seq), but reading from the position it gives does not reach it (rebuild the index)",
            path: HistoryIndexFile.path(for: path), lastGoodSeq: lastGoodSeq)
    }

    /// Positions the reader so that the next record read is `seq` (or the
    /// end, when the log is shorter), the cheapest way: reading on when `seq`
    /// is a few records ahead; else jumping to the frame before it (whose
    /// checksum the read of `seq` then checks its link against) or to the start
    /// of its block, from the index's record offsets (or just after the
    /// index's last record) and reading on from there. A damaged part of the
    /// record offsets is not used: the reader then starts at the block.
    func move(toSeq seq: UInt64, using index: HistoryIndex?) throws(EventLogError) {
        if seq == nextSeq { return }
        if seq > nextSeq, seq - nextSeq <= 64 { return try skip(toSeq: seq) }
        if let index, seq >= 1, seq <= index.coveredSeq, let place = try? index.recordOffsets(of: seq) {
            if let previous = place.previous {
                try seek(toSeq: seq - 1, atOffset: previous, knownPreviousChecksum: nil)
            } else {
                try seek(toSeq: seq, atOffset: place.offset, knownPreviousChecksum: index.start(for: seq)!.previousChecksum)
            }
        } else if seq > nextSeq, seq - nextSeq <= HistoryIndex.blockSize {
            return try skip(toSeq: seq)
        } else if let start = index?.start(for: seq), seq < nextSeq || start.seq > nextSeq {
            try seek(toSeq: start.seq, atOffset: start.offset, previousChecksum: start.previousChecksum)
        } else if let covered = index?.covered, seq == covered.seq + 1 {
            try seek(toSeq: seq, atOffset: covered.end, previousChecksum: covered.checksum ?? 0)
        } else if seq < nextSeq {
            try rewind()
        }
        try skip(toSeq: seq)
    }
}
