/// Records by seq across the archives and the live log.
extension LogHistory {
    /// The record at `seq`, from whichever part holds it (an archive checked
    /// first, ``archives(from:)``); `nil` when `seq` is 0 or past the end.
    /// Never another seq's record.
    ///
    /// - Throws: ``EventLogError/Code/archived`` when the records through
    ///   `seq` were dropped or their archive is not there;
    ///   ``EventLogError/Code/archiveMismatch``; what reading throws.
    /// - Complexity: O(records of the holding part before `seq`) for an
    ///   archive (read from its first record, after its check); as
    ///   ``LogReader/skip(toSeq:)`` or one storage read for the live part.
    public func record(at seq: UInt64) throws(EventLogError) -> EventRecord? {
        guard seq >= 1 else { return nil }
        var found: EventRecord?
        try forEachRecord(from: seq, through: seq) { record throws(EventLogError) in
            found = record
            return false
        }
        guard let found else { return nil }
        guard found.seq == seq else {
            throw EventLogError(.seqGap, "\(name): a read of seq \(seq) gave seq \(found.seq)", path: name, lastGoodSeq: seq - 1)
        }
        return found
    }

    /// Calls `body` with every record from `seq` through `last` (`nil`: the
    /// end), in seq order across the archives and the live log, until `body`
    /// returns `false`. The archives are checked before any of their records
    /// is passed (``archives(from:)``), and each join is checked again as it
    /// is crossed (the archive's last seq is the one before the next part's first).
    ///
    /// - Throws: what ``archives(from:)`` throws, what reading throws, and what `body` throws.
    public func forEachRecord(
        from seq: UInt64, through last: UInt64? = nil, _ body: (EventRecord) throws(EventLogError) -> Bool
    ) throws(EventLogError) {
        let start = max(seq, 1)
        let end = last ?? .max
        guard start <= end else { return }
        var next = start
        for archive in try archives(from: start) {
            let reader = try open(archive)
            try reader.skip(toSeq: next)
            while next <= archive.seqs.upperBound, next <= end {
                guard let record = try reader.next() else { break }
                guard try body(record) else { return }
                next = record.seq + 1
            }
            guard next > end || next == archive.seqs.upperBound + 1 else {
                throw ArchiveJoin.mismatch(archive, "it ended at seq \(next - 1) while it was read")
            }
            if next > end { return }
        }
        while next <= end {
            let count = Int(clamping: min(4_096, end - next + 1))
            let records = try liveRecords(from: next, maxCount: count)
            guard let first = records.first else { return }
            guard first.seq == next else {
                throw EventLogError(
                    .seqGap, "\(name): a read from seq \(next) began at seq \(first.seq)", path: name, lastGoodSeq: next - 1)
            }
            for record in records {
                guard try body(record) else { return }
                next = record.seq + 1
            }
        }
    }
}
