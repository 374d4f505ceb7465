import EventLog

extension LabelStore {
    /// Validates `command` against the current state, appends its events,
    /// applies them and publishes them; returns the appended records.
    ///
    /// It returns `[]` (appending nothing) when the command changes nothing:
    /// enabling an enabled label, renaming to the same title (the same bytes),
    /// moving to the same position, reversing fewer than two labels,
    /// reordering to the current order.
    ///
    /// It returns when the records are as durable as the log's durability
    /// promises; by then the projection shows them. Notifications are
    /// delivered before this returns unless another thread is delivering
    /// (then that thread delivers them, in order).
    ///
    /// - Returns: The appended records, in seq order.
    /// - Throws: ``StoreError``. A refused command appends nothing (except the
    ///   audit record when ``Options/recordRejections`` is on):
    ///   ``StoreError/Code/labelRemoved(removedAtSeq:)`` for a removed id,
    ///   ``StoreError/Code/labelNeverAdded`` for an id never added,
    ///   ``StoreError/Code/labelAlreadyExists``,
    ///   ``StoreError/Code/positionOutOfRange(position:count:)``,
    ///   ``StoreError/Code/invalidCommand``, or
    ///   ``StoreError/Code/staleVersion(expected:current:)`` when
    ///   `options.expectation` no longer holds (checked after the command
    ///   itself). ``StoreError/Code/storage(_:)`` when the log fails (nothing
    ///   of the write is applied), ``StoreError/Code/closed`` after ``close()``.
    /// - Complexity: The command's fold (O(1) or O(log n) in the number of
    ///   labels; O(n) for a reorder or reverse) plus one append and, by the
    ///   log's durability, one sync; plus O(s) in the subscribers the change
    ///   touches.
    @discardableResult
    public func execute(_ command: LabelCommand, options: WriteOptions = WriteOptions()) throws(StoreError) -> [EventRecord] {
        try execute(batch: [command], options: options)
    }

    /// Applies `commands` atomically: each is validated against the state the
    /// previous ones leave, and either all their events are appended (in one
    /// all-or-nothing append) or none are. `options.expectation` is checked
    /// against the state before the batch. A failure names the command's
    /// position in ``StoreError/batchIndex``.
    ///
    /// - Returns: The appended records of every command, in seq order.
    /// - Throws: ``StoreError``: the refusals of ``execute(_:options:)``, for the
    ///   first command refused, with ``StoreError/batchIndex`` set; nothing of
    ///   the batch is appended.
    /// - Complexity: The commands' folds, one append and at most one sync for
    ///   the whole batch.
    @discardableResult
    public func execute(batch commands: [LabelCommand], options: WriteOptions = WriteOptions()) throws(StoreError) -> [EventRecord] {
        let describe = commands.count == 1 ? commands[0].description : "batch of \(commands.count) commands"
        return try write(options: options, audit: (commands.count == 1 ? commands[0].labelID : nil, describe)) {
            (list, now) throws(StoreError) in
            try list.events(for: commands, expectation: options.expectation)
                .map { LogEntry($0, timestamp: options.timestamp ?? now, actor: options.actor, note: options.note) }
        }
    }

    /// Appends raw entries (for revert and import), all or nothing, keeping
    /// their timestamp, actor and note (a missing timestamp is the store's clock).
    /// Each event is checked by the fold against the state the previous ones
    /// leave; an inconsistent one throws ``StoreError/Code/inconsistentEvent(_:)``
    /// with its position in ``StoreError/batchIndex``, and nothing is appended.
    /// Refusals here are never recorded as audit records.
    ///
    /// - Returns: The appended records, in seq order.
    /// - Throws: ``StoreError``: ``StoreError/Code/inconsistentEvent(_:)`` (with
    ///   ``StoreError/batchIndex``) for an entry the state refuses;
    ///   ``StoreError/Code/storage(_:)`` when the log fails;
    ///   ``StoreError/Code/closed`` after ``close()``. Nothing is appended.
    /// - Complexity: O(e) folds for e entries, one append, at most one sync.
    @discardableResult
    public func append(entries: [LogEntry]) throws(StoreError) -> [EventRecord] {
        try write(options: WriteOptions(), audit: nil) { (list, now) throws(StoreError) in
            try list.trialFold(
                entries,
                steps: { (_, entry) throws(StoreError) in
                    var entry = entry
                    entry.timestamp = entry.timestamp ?? now
                    return [entry]
                }, record: { entry, seq in entry.record(seq: seq, now: now) })
        }
    }

    /// Folds records appended to the storage by another writer into the
    /// projection, publishing them like the store's own writes.
    ///
    /// - Throws: ``StoreError``: ``StoreError/Code/storage(_:)`` when reading the
    ///   log fails, ``StoreError/Code/inconsistentEvent(_:)`` when a new record
    ///   contradicts the state (the projection keeps the records before it),
    ///   ``StoreError/Code/closed`` after ``close()``.
    /// - Complexity: O(k) in the k new records.
    public func refresh() throws(StoreError) {
        defer { delivery.drain() }
        try state.withLock { (s) throws(StoreError) in try catchUp(&s) }
    }

    // MARK: - The write path

    /// Validates (via `makeEntries`), appends, applies and enqueues, under the lock;
    /// then drains deliveries outside it. Retries after catching up on a seq conflict.
    private func write(
        options: WriteOptions, audit: (id: LabelID?, command: String)?,
        _ makeEntries: (inout LabelList, EventTimestamp) throws(StoreError) -> [LogEntry]
    ) throws(StoreError) -> [EventRecord] {
        var checkpoint: PendingSnapshot?
        defer {
            delivery.drain()
            if let checkpoint { writeAutomaticSnapshot(checkpoint) }
        }
        let (records, due) = try state.withLock { (s) throws(StoreError) -> ([EventRecord], PendingSnapshot?) in
            let records = try writeLocked(options: options, audit: audit, &s, makeEntries)
            return (records, records.isEmpty ? nil : snapshotDue(&s))
        }
        checkpoint = due
        return records
    }

    /// The body of ``write(options:audit:_:)`` under the store's lock.
    private func writeLocked(
        options: WriteOptions, audit: (id: LabelID?, command: String)?, _ s: inout State,
        _ makeEntries: (inout LabelList, EventTimestamp) throws(StoreError) -> [LogEntry]
    ) throws(StoreError) -> [EventRecord] {
        if s.closed { throw StoreError(.closed, "The store is closed.") }
        if let broken = s.broken { throw broken }
        // Read the clock under the lock, so timestamps follow seq order (given a monotonic clock).
        let now = self.options.clock()
        var attempt = 0
        while true {
            let entries: [LogEntry]
            do throws(StoreError) {
                entries = try makeEntries(&s.list, now)
            } catch {
                guard let audit else { throw error }
                throw recordRejection(error, audit: audit, options: options, now: now, &s)
            }
            if entries.isEmpty { return [] }
            do throws(StoreError) {
                return try commit(entries, &s)
            } catch  where attempt < 2 && error.isSeqConflict {
                attempt += 1
                try catchUp(&s)
            }
        }
    }

    /// Appends entries after the projection's last seq, then applies and enqueues each record.
    private func commit(_ entries: [LogEntry], _ s: inout State) throws(StoreError) -> [EventRecord] {
        let records: [EventRecord]
        do { records = try storage.append(entries, expectedLastSeq: s.list.lastSeq) } catch { throw StoreError.storage(error) }
        for record in records { try applyStored(record, &s) }
        return records
    }

    /// Applies a record that is already in the log, updates views, and enqueues notifications.
    /// If the fold refuses it, the store is marked broken (the log and projection disagree).
    func applyStored(_ record: EventRecord, _ s: inout State) throws(StoreError) {
        do {
            let change = try s.list.apply(record)
            log.noteApplied(record.seq)
            delivery.enqueue(s.hub.dispatch(change, in: s.list))
        } catch {
            let broken = StoreError.inconsistent(error)
            s.broken = broken
            throw broken
        }
    }

    /// Applies records other writers appended after the projection's last seq.
    private func catchUp(_ s: inout State) throws(StoreError) {
        var pending: [EventRecord] = []
        try Self.forEachRecord(in: storage, from: s.list.lastSeq + 1, through: nil) { (record) throws(StoreError) in
            pending.append(record)
            return true
        }
        for record in pending { try applyStored(record, &s) }
    }

    /// Writes the audit record for a refusal when asked to, and returns the error to throw.
    private func recordRejection(
        _ error: StoreError, audit: (id: LabelID?, command: String), options: WriteOptions,
        now: EventTimestamp, _ s: inout State
    ) -> StoreError {
        guard self.options.recordRejections, error.isRejection else { return error }
        var command = audit.command
        if let index = error.batchIndex { command += " (command \(index) failed)" }
        let event = LabelEvent.rejected(
            id: audit.id ?? error.id, command: command.clipped(toUTF8: LogLimits.maxReasonBytes),
            reason: error.message.clipped(toUTF8: LogLimits.maxReasonBytes))
        var result = error
        do throws(StoreError) {
            let records = try commit([LogEntry(event, timestamp: options.timestamp ?? now, actor: options.actor, note: options.note)], &s)
            result.auditSeq = records.first?.seq
        } catch {
            result.message += " (The audit record could not be written: \(error.message))"
        }
        return result
    }
}

extension StoreError {
    /// Whether this wraps the log's "expected last seq" conflict.
    var isSeqConflict: Bool {
        if case .storage(let error) = code { return error.code == .seqConflict }
        return false
    }
}

extension String {
    /// The longest prefix of whole characters that fits in `limit` bytes of UTF-8.
    func clipped(toUTF8 limit: Int) -> String {
        guard utf8.count > limit else { return self }
        var result = ""
        var bytes = 0
        for character in self {
            let n = character.utf8.count
            if bytes + n > limit { break }
            result.append(character)
            bytes += n
        }
        return result
    }
}
