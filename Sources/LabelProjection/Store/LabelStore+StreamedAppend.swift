import EventLog

/// Appending raw entries in a stream (`labelreplay import`): all or nothing,
/// like ``LabelStore/append(entries:)``, but without holding them all in memory.
extension LabelStore {
    /// Appends the entries `next` returns, chunk by chunk (`nil`: no more),
    /// all or nothing, keeping their timestamp, actor and note (a missing
    /// timestamp is the store's clock, read once, when this starts).
    ///
    /// Each entry is checked by the fold against the state the entries before
    /// it leave, exactly as ``append(entries:)`` checks them, as its chunk
    /// arrives; the chunk is then written to the log as part of one staged
    /// append (`LogWriter.appendStaged`), which only the end commits. So memory
    /// holds one chunk, a copy of the projection being built, and nothing
    /// per record already written. `beforeCommit` runs once every entry is
    /// checked and written, just before the commit; throwing from it (or from
    /// `next`) abandons the append.
    ///
    /// The store's lock is held throughout: reads and other writes wait, and
    /// so see all of the entries or none (`next` and `beforeCommit` must not
    /// call the store; its storage they may read). Once committed, the records are
    /// applied and published like any write (with no subscriber, the checked
    /// projection simply becomes the store's).
    ///
    /// A log that is not a `LogWriter` (an `InMemoryEventLog`) gets the
    /// entries in one ``append(entries:)`` at the end.
    ///
    /// - Returns: The appended records' seqs, or `nil` if `next` returned no entry.
    /// - Throws: ``StoreError``: ``StoreError/Code/inconsistentEvent(_:)`` for an
    ///   entry the state refuses, with its position among all the entries in
    ///   ``StoreError/batchIndex``; ``StoreError/Code/storage(_:)`` when the log
    ///   fails or refuses an entry (`EventLogError.Code.invalidEvent`, also with
    ///   ``StoreError/batchIndex``); ``StoreError/Code/closed``. Whatever `next`
    ///   or `beforeCommit` throws is rethrown unchanged. In every case nothing
    ///   is appended and the projection is as it was.
    /// - Complexity: O(e) folds for e entries, written in parts, then two syncs;
    ///   with subscribers, O(e) more to apply and publish the records.
    ///
    /// With `caches`, the frames of every part staged are handed to them, and
    /// so is the list after each record whose seq is a multiple of their
    /// interval (a chunk is folded and staged in parts that end there). The
    /// caller finishes or abandons them after.
    package func appendStreamed(
        _ next: () throws -> [LogEntry]?, building caches: StagedHistoryCaches? = nil, beforeCommit: () throws -> Void = {}
    ) throws -> ClosedRange<UInt64>? {
        guard let writer = storage as? LogWriter else { return try appendCollected(next, beforeCommit: beforeCommit) }
        let (seqs, checkpoint) = try state.withLock { (s) throws -> (ClosedRange<UInt64>?, PendingSnapshot?) in
            if s.closed { throw StoreError.closedStore }
            if let broken = s.broken { throw broken }
            let now = options.clock()
            let firstSeq = s.list.lastSeq + 1
            var work = s.list
            let staged: ClosedRange<UInt64>?
            do {
                (_, staged) = try writer.appendStaged(expectedLastSeq: s.list.lastSeq) { stage in
                    while let chunk = try next() {
                        guard let caches else {
                            try stage.write(try Self.fold(chunk[...], into: &work, now: now, firstSeq: firstSeq))
                            continue
                        }
                        var start = 0
                        while start < chunk.count {
                            // Up to the next checkpoint's record at most.
                            let count = min(chunk.count - start, Int(caches.interval - work.lastSeq % caches.interval))
                            let records = try Self.fold(chunk[start..<start + count], into: &work, now: now, firstSeq: firstSeq)
                            if let frames = try stage.writeKeepingFrames(records) { caches.staged(frames) }
                            if work.lastSeq % caches.interval == 0 { caches.checkpoint(work) }
                            start += count
                        }
                    }
                    caches?.endOfRecords()
                    try beforeCommit()
                }
            } catch let error as EventLogError {
                var failure = StoreError.storage(error)
                if error.code == .invalidEvent, let good = error.lastGoodSeq, good + 1 >= firstSeq {
                    failure.batchIndex = Int(good + 1 - firstSeq)
                }
                throw failure
            }
            guard let staged else { return (nil, nil) }
            if s.hub.count == 0 {
                s.list = work
                log.noteApplied(s.list.lastSeq)
            } else {
                work = LabelList()  // freed before the records are applied again, for the subscribers
                try applyStored(staged, &s)
            }
            return (staged, snapshotDue(&s))
        }
        delivery.drain()
        if let checkpoint { writeAutomaticSnapshot(checkpoint) }
        return seqs
    }

    /// Folds `chunk` into `work` (on trial: `work` is a copy) and returns its records,
    /// numbered after `work`'s last seq; a refusal names the entry's position since `firstSeq`.
    private static func fold(_ chunk: ArraySlice<LogEntry>, into work: inout LabelList, now: EventTimestamp, firstSeq: UInt64)
        throws(StoreError)
        -> [EventRecord]
    {
        var records: [EventRecord] = []
        records.reserveCapacity(chunk.count)
        for entry in chunk {
            let record = entry.record(seq: work.lastSeq + 1, now: now)
            do throws(ProjectionError) { try work.replay(record) } catch {
                var refusal = StoreError.inconsistent(error)
                refusal.batchIndex = Int(record.seq - firstSeq)
                throw refusal
            }
            records.append(record)
        }
        return records
    }

    /// Applies and publishes the stored records `seqs`, read back from the log a batch at a time.
    private func applyStored(_ seqs: ClosedRange<UInt64>, _ s: inout State) throws(StoreError) {
        try forEachRecordInBatches(
            from: seqs.lowerBound, through: seqs.upperBound, batch: StoreLog.batch,
            read: { (next, count) throws(StoreError) in
                do throws(EventLogError) { return try storage.read(from: next, maxCount: count) } catch { throw StoreError.storage(error) }
            },
            { (record) throws(StoreError) in
                try applyStored(record, &s)
                return true
            })
    }

    /// ``appendStreamed(_:beforeCommit:)`` over a storage that cannot stage: every entry, then one append.
    private func appendCollected(_ next: () throws -> [LogEntry]?, beforeCommit: () throws -> Void) throws -> ClosedRange<UInt64>? {
        var entries: [LogEntry] = []
        while let chunk = try next() { entries += chunk }
        guard !entries.isEmpty else { return nil }
        try beforeCommit()
        let records = try append(entries: entries)
        return records[0].seq...records[records.count - 1].seq
    }
}
