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
    ///   of the write is applied), ``StoreError/Code/closed`` after ``close()-553o2``.
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
    /// - Throws: ``StoreError``: the refusals of ``execute(_:options:)-8dri1``, for the
    ///   first command refused, with ``StoreError/batchIndex`` set; nothing of
    ///   the batch is appended.
    /// - Complexity: The commands' folds, one append and at most one sync for
    ///   the whole batch.
    @discardableResult
    public func execute(batch commands: [LabelCommand], options: WriteOptions = WriteOptions()) throws(StoreError) -> [EventRecord] {
        try write(Self.request(batch: commands, options: options))
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
    ///   ``StoreError/Code/closed`` after ``close()-553o2``. Nothing is appended.
    /// - Complexity: O(e) folds for e entries, one append, at most one sync.
    @discardableResult
    public func append(entries: [LogEntry]) throws(StoreError) -> [EventRecord] {
        try write(Self.request(entries: entries))
    }

    /// Folds records appended to the storage by another writer into the
    /// projection, publishing them like the store's own writes.
    ///
    /// - Throws: ``StoreError``: ``StoreError/Code/storage(_:)`` when reading the
    ///   log fails, ``StoreError/Code/inconsistentEvent(_:)`` when a new record
    ///   contradicts the state (the projection keeps the records before it),
    ///   ``StoreError/Code/closed`` after ``close()-553o2``.
    /// - Complexity: O(k) in the k new records.
    public func refresh() throws(StoreError) {
        defer { delivery.drain() }
        try state.withLock { (s) throws(StoreError) in try catchUp(&s) }
    }

    // MARK: - Requests

    /// The request for a batch of commands (one command is a batch of one).
    static func request(batch commands: [LabelCommand], options: WriteOptions) -> WriteRequest {
        let describe = commands.count == 1 ? commands[0].description : "batch of \(commands.count) commands"
        return WriteRequest(options: options, audit: .init(id: commands.count == 1 ? commands[0].labelID : nil, command: describe)) {
            (list, now) throws(StoreError) in
            try list.events(for: commands, expectation: options.expectation)
                .map { LogEntry($0, timestamp: options.timestamp ?? now, actor: options.actor, note: options.note) }
        }
    }

    /// The request for raw entries: each checked by the fold against the state the previous ones leave.
    static func request(entries: [LogEntry]) -> WriteRequest {
        WriteRequest(options: WriteOptions(), audit: nil) { (list, now) throws(StoreError) in
            try list.trialFold(
                entries,
                steps: { (_, entry) throws(StoreError) in
                    var entry = entry
                    entry.timestamp = entry.timestamp ?? now
                    return [entry]
                }, record: { entry, seq in entry.record(seq: seq, now: now) })
        }
    }

    /// Submits `request` and waits until it is committed: on this thread, with
    /// every write queued before it (see ``commitQueued(_:)``), when this
    /// writer leads or is handed the lead; else by the leading writer (or an
    /// async commit job), waiting on the request itself (see ``WriteQueue``).
    /// Then delivers notifications and writes a snapshot that became due.
    func write(_ request: WriteRequest) throws(StoreError) -> [EventRecord] {
        if writeQueue.submitSynchronous(request) || request.waitForTurn() {
            let checkpoint = state.withLock { s in commitQueued(&s) }
            writeQueue.handOffCommit()
            delivery.drain()
            if let checkpoint { writeAutomaticSnapshot(checkpoint) }
        } else {
            delivery.drain()
        }
        guard let outcome = request.outcome else { preconditionFailure("a committed write has an outcome") }
        return try outcome.get()
    }

    /// Applies records other writers appended after the projection's last seq.
    func catchUp(_ s: inout State) throws(StoreError) {
        var pending: [EventRecord] = []
        try Self.forEachRecord(in: storage, from: s.list.lastSeq + 1, through: nil) { (record) throws(StoreError) in
            pending.append(record)
            return true
        }
        for record in pending { try applyStored(record, &s) }
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
