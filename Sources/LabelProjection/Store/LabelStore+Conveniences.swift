import EventLog

/// Shorthands for single commands; each is ``LabelStore/execute(_:options:)-8dri1``
/// with the same guarantees and errors.
extension LabelStore {
    /// Adds a label (at the end unless `position` is given) and returns its id.
    /// Pass the id of a removed label to restore it.
    ///
    /// - Throws: ``StoreError``. Refusals, which append nothing (but the audit record
    ///   when ``Options/recordRejections`` is on): ``StoreError/Code/invalidCommand``
    ///   for a title over `LogLimits.maxTitleBytes` bytes of UTF-8;
    ///   ``StoreError/Code/duplicateID`` when `id` is a live label's;
    ///   ``StoreError/Code/positionOutOfRange(position:count:)`` when `position` is outside
    ///   `0...count`.
    ///   Like every write, it also throws
    ///   ``StoreError/Code/staleVersion(expected:current:)`` when `options.expectation` no
    ///   longer holds, ``StoreError/Code/closed`` after ``close()-553o2``,
    ///   ``StoreError/Code/storage(_:)`` when the log fails (`EventLogError.Code.ioError`,
    ///   `EventLogError.Code.poisoned`, …; an actor or note over its limit is
    ///   `EventLogError.Code.invalidEvent`), and ``StoreError/Code/inconsistentEvent(_:)``
    ///   once a stored record failed to apply (the store then refuses every write).
    /// - Complexity: O(log n) in the number of labels to validate and apply, plus the
    ///   append (and its sync, per ``Options/durability``), O(log² n) per maintained
    ///   filtered view, and the delivery of the notifications.
    ///   Amortized: a write that makes a snapshot due (``SnapshotPolicy``) also writes it
    ///   (as ``writeSnapshot()`` does, O(s + t)) before it returns.
    @discardableResult
    public func add(
        _ title: String, isEnabled: Bool = true, id: LabelID? = nil, at position: Int? = nil,
        options: WriteOptions = WriteOptions()
    ) throws(StoreError) -> LabelID {
        let id = id ?? LabelID()
        try execute(.add(title: title, isEnabled: isEnabled, id: id, at: position), options: options)
        return id
    }

    /// Renames a label; renaming to the current title (the same bytes) appends nothing.
    ///
    /// - Throws: ``StoreError``. Refusals, which append nothing (but the audit record
    ///   when ``Options/recordRejections`` is on):
    ///   ``StoreError/Code/labelRemoved(removedAtSeq:)`` when `id` was removed;
    ///   ``StoreError/Code/unknownID`` when no label ever had `id`;
    ///   ``StoreError/Code/invalidCommand`` for a title over `LogLimits.maxTitleBytes`
    ///   bytes of UTF-8.
    ///   Like every write, it also throws
    ///   ``StoreError/Code/staleVersion(expected:current:)`` when `options.expectation` no
    ///   longer holds, ``StoreError/Code/closed`` after ``close()-553o2``,
    ///   ``StoreError/Code/storage(_:)`` when the log fails (`EventLogError.Code.ioError`,
    ///   `EventLogError.Code.poisoned`, …; an actor or note over its limit is
    ///   `EventLogError.Code.invalidEvent`), and ``StoreError/Code/inconsistentEvent(_:)``
    ///   once a stored record failed to apply (the store then refuses every write).
    /// - Complexity: O(1) expected to validate and apply (plus the title's length), plus
    ///   the append (and its sync, per ``Options/durability``), O(log² n) per maintained
    ///   filtered view, and the delivery of the notifications.
    ///   Amortized: a write that makes a snapshot due (``SnapshotPolicy``) also writes it
    ///   (as ``writeSnapshot()`` does, O(s + t)) before it returns.
    @discardableResult
    public func rename(_ id: LabelID, to title: String, options: WriteOptions = WriteOptions()) throws(StoreError) -> [EventRecord] {
        try execute(.rename(id: id, title: title), options: options)
    }

    /// Sets `isEnabled`; setting the current value appends nothing.
    ///
    /// - Throws: ``StoreError``. Refusals, which append nothing (but the audit record
    ///   when ``Options/recordRejections`` is on):
    ///   ``StoreError/Code/labelRemoved(removedAtSeq:)`` when `id` was removed;
    ///   ``StoreError/Code/unknownID`` when no label ever had `id`.
    ///   Like every write, it also throws
    ///   ``StoreError/Code/staleVersion(expected:current:)`` when `options.expectation` no
    ///   longer holds, ``StoreError/Code/closed`` after ``close()-553o2``,
    ///   ``StoreError/Code/storage(_:)`` when the log fails (`EventLogError.Code.ioError`,
    ///   `EventLogError.Code.poisoned`, …; an actor or note over its limit is
    ///   `EventLogError.Code.invalidEvent`), and ``StoreError/Code/inconsistentEvent(_:)``
    ///   once a stored record failed to apply (the store then refuses every write).
    /// - Complexity: O(1) expected to validate and apply (plus the title's length), plus
    ///   the append (and its sync, per ``Options/durability``), O(log² n) per maintained
    ///   filtered view, and the delivery of the notifications.
    ///   Amortized: a write that makes a snapshot due (``SnapshotPolicy``) also writes it
    ///   (as ``writeSnapshot()`` does, O(s + t)) before it returns.
    @discardableResult
    public func setEnabled(_ id: LabelID, _ isEnabled: Bool, options: WriteOptions = WriteOptions()) throws(StoreError) -> [EventRecord] {
        try execute(.setEnabled(id: id, isEnabled: isEnabled), options: options)
    }

    /// Flips `isEnabled`.
    ///
    /// - Throws: ``StoreError``. Refusals, which append nothing (but the audit record
    ///   when ``Options/recordRejections`` is on):
    ///   ``StoreError/Code/labelRemoved(removedAtSeq:)`` when `id` was removed;
    ///   ``StoreError/Code/unknownID`` when no label ever had `id`.
    ///   Like every write, it also throws
    ///   ``StoreError/Code/staleVersion(expected:current:)`` when `options.expectation` no
    ///   longer holds, ``StoreError/Code/closed`` after ``close()-553o2``,
    ///   ``StoreError/Code/storage(_:)`` when the log fails (`EventLogError.Code.ioError`,
    ///   `EventLogError.Code.poisoned`, …; an actor or note over its limit is
    ///   `EventLogError.Code.invalidEvent`), and ``StoreError/Code/inconsistentEvent(_:)``
    ///   once a stored record failed to apply (the store then refuses every write).
    /// - Complexity: O(1) expected to validate and apply (plus the title's length), plus
    ///   the append (and its sync, per ``Options/durability``), O(log² n) per maintained
    ///   filtered view, and the delivery of the notifications.
    ///   Amortized: a write that makes a snapshot due (``SnapshotPolicy``) also writes it
    ///   (as ``writeSnapshot()`` does, O(s + t)) before it returns.
    @discardableResult
    public func toggle(_ id: LabelID, options: WriteOptions = WriteOptions()) throws(StoreError) -> [EventRecord] {
        try execute(.toggle(id: id), options: options)
    }

    /// Removes a label.
    ///
    /// - Throws: ``StoreError``. Refusals, which append nothing (but the audit record
    ///   when ``Options/recordRejections`` is on):
    ///   ``StoreError/Code/labelRemoved(removedAtSeq:)`` when `id` was removed;
    ///   ``StoreError/Code/unknownID`` when no label ever had `id`.
    ///   Like every write, it also throws
    ///   ``StoreError/Code/staleVersion(expected:current:)`` when `options.expectation` no
    ///   longer holds, ``StoreError/Code/closed`` after ``close()-553o2``,
    ///   ``StoreError/Code/storage(_:)`` when the log fails (`EventLogError.Code.ioError`,
    ///   `EventLogError.Code.poisoned`, …; an actor or note over its limit is
    ///   `EventLogError.Code.invalidEvent`), and ``StoreError/Code/inconsistentEvent(_:)``
    ///   once a stored record failed to apply (the store then refuses every write).
    /// - Complexity: O(log n) in the number of labels to validate and apply, plus the
    ///   append (and its sync, per ``Options/durability``), O(log² n) per maintained
    ///   filtered view, and the delivery of the notifications.
    ///   Amortized: a write that makes a snapshot due (``SnapshotPolicy``) also writes it
    ///   (as ``writeSnapshot()`` does, O(s + t)) before it returns.
    @discardableResult
    public func remove(_ id: LabelID, options: WriteOptions = WriteOptions()) throws(StoreError) -> [EventRecord] {
        try execute(.remove(id: id), options: options)
    }

    /// Moves a label to `position` (its position after the move).
    ///
    /// - Throws: ``StoreError``. Refusals, which append nothing (but the audit record
    ///   when ``Options/recordRejections`` is on):
    ///   ``StoreError/Code/labelRemoved(removedAtSeq:)`` when `id` was removed;
    ///   ``StoreError/Code/unknownID`` when no label ever had `id`;
    ///   ``StoreError/Code/positionOutOfRange(position:count:)`` when `position` is outside
    ///   `0..<count`.
    ///   Like every write, it also throws
    ///   ``StoreError/Code/staleVersion(expected:current:)`` when `options.expectation` no
    ///   longer holds, ``StoreError/Code/closed`` after ``close()-553o2``,
    ///   ``StoreError/Code/storage(_:)`` when the log fails (`EventLogError.Code.ioError`,
    ///   `EventLogError.Code.poisoned`, …; an actor or note over its limit is
    ///   `EventLogError.Code.invalidEvent`), and ``StoreError/Code/inconsistentEvent(_:)``
    ///   once a stored record failed to apply (the store then refuses every write).
    /// - Complexity: O(log n) in the number of labels to validate and apply, plus the
    ///   append (and its sync, per ``Options/durability``), O(log² n) per maintained
    ///   filtered view, and the delivery of the notifications.
    ///   Amortized: a write that makes a snapshot due (``SnapshotPolicy``) also writes it
    ///   (as ``writeSnapshot()`` does, O(s + t)) before it returns.
    @discardableResult
    public func move(_ id: LabelID, to position: Int, options: WriteOptions = WriteOptions()) throws(StoreError) -> [EventRecord] {
        try execute(.move(id: id, to: position), options: options)
    }

    /// Reverses the list; fewer than two labels append nothing.
    ///
    /// - Throws: ``StoreError``. Reversing is never refused as such, but like every write it
    ///   throws ``StoreError/Code/staleVersion(expected:current:)`` when
    ///   `options.expectation` no longer holds, ``StoreError/Code/closed`` after
    ///   ``close()-553o2``, ``StoreError/Code/storage(_:)`` when the log fails
    ///   (`EventLogError.Code.ioError`, `EventLogError.Code.poisoned`, …; an actor or
    ///   note over its limit is `EventLogError.Code.invalidEvent`), and
    ///   ``StoreError/Code/inconsistentEvent(_:)`` once a stored record failed to apply
    ///   (the store then refuses every write).
    /// - Complexity: O(n) in the number of labels, plus the append (and its sync, per
    ///   ``Options/durability``), O(n + r log r) per maintained filtered view of r rows,
    ///   and the delivery of the notifications.
    ///   Amortized: a write that makes a snapshot due (``SnapshotPolicy``) also writes it
    ///   (as ``writeSnapshot()`` does, O(s + t)) before it returns.
    @discardableResult
    public func reverse(options: WriteOptions = WriteOptions()) throws(StoreError) -> [EventRecord] {
        try execute(.reverse, options: options)
    }

    /// Gives the list this order (a permutation of the live ids); the current order
    /// appends nothing.
    ///
    /// - Throws: ``StoreError``. Refusals, which append nothing (but the audit record
    ///   when ``Options/recordRejections`` is on): ``StoreError/Code/invalidCommand``
    ///   when `ids` is not a permutation of the live ids (an id removed or never added,
    ///   one listed twice, or one missing).
    ///   Like every write, it also throws
    ///   ``StoreError/Code/staleVersion(expected:current:)`` when `options.expectation` no
    ///   longer holds, ``StoreError/Code/closed`` after ``close()-553o2``,
    ///   ``StoreError/Code/storage(_:)`` when the log fails (`EventLogError.Code.ioError`,
    ///   `EventLogError.Code.poisoned`, …; an actor or note over its limit is
    ///   `EventLogError.Code.invalidEvent`), and ``StoreError/Code/inconsistentEvent(_:)``
    ///   once a stored record failed to apply (the store then refuses every write).
    /// - Complexity: O(n + s) for n labels and s ids ever added (to check the
    ///   permutation), plus the append (and its sync, per ``Options/durability``),
    ///   O(n + r log r) per maintained filtered view of r rows, and the delivery of the
    ///   notifications.
    ///   Amortized: a write that makes a snapshot due (``SnapshotPolicy``) also writes it
    ///   (as ``writeSnapshot()`` does, O(s + t)) before it returns.
    @discardableResult
    public func reorder(_ ids: [LabelID], options: WriteOptions = WriteOptions()) throws(StoreError) -> [EventRecord] {
        try execute(.reorder(ids), options: options)
    }
}
