import EventLog

/// Time travel: the state at an earlier point, folded from the log.
extension LabelStore {
    /// The list as it was right after record `seq` (0 gives the empty list),
    /// folded from the log with the same fold as the live projection: from
    /// the newest trusted snapshot or usable checkpoint (`LOG.checkpoints`) at
    /// or before `seq` when there is one (file logs), or the storage's nearest
    /// checkpoint (a `CheckpointStorage`, such as a PostgreSQL list), else from seq 1. The current seq returns the projection itself.
    /// It works on a closed store too (a closed file log is read with a `LogReader`).
    ///
    /// A `seq` before a cut log's first record is answered from the archives
    /// (``history()``), each checked against the base naming it before it is
    /// read; when the records were dropped or their archive is not there it
    /// throws ``StoreError/Code/storage(_:)`` with `EventLogError.Code.archived`
    /// (kind ``StoreError/Kind/seqOutOfRange``), naming the archive.
    ///
    /// - Throws: ``StoreError/Code/seqOutOfRange(seq:lastSeq:)`` if `seq > lastSeq`;
    ///   ``StoreError/Code/storage(_:)`` when the log cannot be read (e.g.
    ///   `EventLogError.Code.ioError` or `EventLogError.Code.corruptRecord`);
    ///   ``StoreError/Code/inconsistentEvent(_:)`` if a stored record does not fold.
    /// - Complexity: O(1) for the current seq and for 0. Otherwise O(r) in the records
    ///   folded (each O(log n), a `reordered` O(n)): those after the newest trusted snapshot
    ///   at or before `seq` (which is decoded first, O(its size)), else all of `1...seq`.
    ///   An open file log reads them from the snapshot's or checkpoint's record on
    ///   (its position in the file, checked against the frame after it), or else from the
    ///   nearest record it has indexed (fewer than 1,024 earlier records read in a region
    ///   it has scanned); after ``close()-553o2``, the file is read sequentially up to it.
    public func state(atSeq seq: UInt64) throws(StoreError) -> LabelList {
        let current = snapshot
        let last = current.lastSeq
        guard seq <= last else {
            throw StoreError(.seqOutOfRange(seq: seq, lastSeq: last), "There is no seq \(seq): the log ends at seq \(last).", seq: seq)
        }
        return seq == last ? current : try fold(through: seq)
    }

    /// The list as it was at `time`: records are folded in seq order and the
    /// fold stops before the first record stamped later than `time` (so a
    /// record with an out-of-order earlier timestamp after it is not included).
    ///
    /// A time before the last record cut off a cut log is answered from its
    /// archives (``history()``), as ``state(atSeq:)`` answers an archived seq.
    ///
    /// - Throws: ``StoreError/Code/storage(_:)`` when the log cannot be read
    ///   (`EventLogError.Code.archived` when the records the fold needs were
    ///   dropped or their archive is not there);
    ///   ``StoreError/Code/inconsistentEvent(_:)`` if a stored record does not fold.
    /// - Complexity: O(r) in the records folded, always from seq 1 (no snapshot is used)
    ///   up to the first record stamped later than `time`; each fold is O(log n), a
    ///   `reordered` O(n). The log is read in batches of 4,096 records, so up to 4,095 more
    ///   are read but not folded.
    public func state(atTime time: EventTimestamp) throws(StoreError) -> LabelList {
        try readingAcrossCuts { (origin) throws(StoreError) in
            // Records cut off before the log stamped later than `time`: the fold stops in an archive.
            if let base = storage.base, base.timeRange.upperBound > time {
                let first: UInt64
                do throws(EventLogError) { first = try history().firstSeq(foldingUntil: time) } catch { throw StoreError.storage(error) }
                return try foldAcrossArchives(from: first) { $0.timestamp <= time }
            }
            var list = origin
            try forEachStoredRecord(from: origin.lastSeq + 1, through: lastSeq) { (record) throws(StoreError) -> Bool in
                guard record.timestamp <= time else { return false }
                do throws(ProjectionError) { try list.replay(record) } catch { throw StoreError.inconsistent(error) }
                return true
            }
            return list
        }
    }

    /// The fold of records `1...seq` from storage, starting from the newest
    /// trusted snapshot or usable checkpoint at or before `seq` when there is one.
    func fold(through seq: UInt64) throws(StoreError) -> LabelList {
        guard seq > 0 else { return LabelList() }
        return try readingAcrossCuts { (origin) throws(StoreError) in
            guard seq >= origin.lastSeq else { return try foldAcrossArchives(through: seq) }
            let nearest = nearestList(atOrBefore: seq).flatMap { $0.list.lastSeq >= origin.lastSeq ? $0 : nil }
            var list = nearest?.list ?? origin
            try log.fold(&list, through: seq, via: storage, after: nearest?.position)
            return list
        }
    }

    /// Runs `body`, a read of the log from `origin` (the list before its
    /// first record), once more from the storage's base if it fails while a
    /// cut of the open log (``Options/retention``) moved the log's start: the
    /// records it was reading may have gone meanwhile. (The base is read from
    /// the storage, which changes with the cut, not from ``origin``, which
    /// follows it a moment later.)
    func readingAcrossCuts<T>(_ body: (LabelList) throws(StoreError) -> T) throws(StoreError) -> T {
        let origin = self.origin
        do {
            return try body(origin)
        } catch {
            guard ownedWriter != nil, let base = storage.base, base.lastCutSeq != origin.lastSeq else { throw error }
            return try body(try Self.origin(of: storage))
        }
    }
}

extension LabelStore {
    /// The error for a seq before a based log's base: its records were archived or dropped.
    func archived(_ seq: UInt64) -> StoreError {
        let firstSeq = origin.lastSeq + 1
        return StoreError(
            .seqOutOfRange(seq: seq, lastSeq: lastSeq),
            "Seq \(seq) is before the log's first record (seq \(firstSeq)): the records before it were cut off to an archive or dropped, and the log keeps the list at seq \(origin.lastSeq) only.",
            seq: seq)
    }
}
