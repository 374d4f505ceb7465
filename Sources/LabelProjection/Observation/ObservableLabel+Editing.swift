import EventLog

/// Editing a label through its row. Each edit is the store's own command
/// (``LabelStore/rename(_:to:options:)-743qe`` and so on, async), addressed
/// by the row's ``ObservableLabel/id`` when the store applies it — never by a
/// position in a list or a filtered view, so an edit made through a row that
/// is out of date cannot land on another label.
///
/// - An edit of a label removed meanwhile is refused with the store's error,
///   `Edit skipped: label was removed.` (``StoreError/kind`` is
///   ``StoreError/Kind/labelRemoved``, naming the seq of the removal); with
///   ``LabelStore/Options-swift.struct/recordRejections`` on, the refusal is
///   logged as an audit record. Nothing else changes.
/// - With `ifUnchanged: true` the edit is made only if the label's version
///   is still the ``ObservableLabel/version`` the row shows when the edit is
///   made; otherwise it throws ``StoreError/Code/staleVersion(expected:current:)``
///   (optimistic concurrency: someone else changed the label since the screen showed it).
/// - When an edit returns, its records are durable and applied to the store,
///   and the row's list model (and every view made from it) shows them
///   (``ObservableLabels/update()`` was called).
///
/// Each returns the records it appended (none when it changes nothing).
extension ObservableLabel {
    /// Renames the label (see the extension's notes).
    ///
    /// - Throws: ``StoreError``, as ``LabelStore/rename(_:to:options:)-743qe``;
    ///   ``StoreError/Code/staleVersion(expected:current:)`` when `ifUnchanged` and the
    ///   label changed.
    @discardableResult
    public func rename(to title: String, options: WriteOptions = WriteOptions(), ifUnchanged: Bool = false) async throws(StoreError)
        -> [EventRecord]
    {
        try await edit(.rename(id: id, title: title), options, ifUnchanged)
    }

    /// Sets `isEnabled` (see the extension's notes); the current value appends nothing.
    ///
    /// - Throws: ``StoreError``, as ``LabelStore/setEnabled(_:_:options:)-3lv3``.
    @discardableResult
    public func setEnabled(_ isEnabled: Bool, options: WriteOptions = WriteOptions(), ifUnchanged: Bool = false) async throws(StoreError)
        -> [EventRecord]
    {
        try await edit(.setEnabled(id: id, isEnabled: isEnabled), options, ifUnchanged)
    }

    /// Flips `isEnabled` as the store sees it when it applies the edit (see the extension's notes).
    ///
    /// - Throws: ``StoreError``, as ``LabelStore/toggle(_:options:)-81kfg``.
    @discardableResult
    public func toggle(options: WriteOptions = WriteOptions(), ifUnchanged: Bool = false) async throws(StoreError) -> [EventRecord] {
        try await edit(.toggle(id: id), options, ifUnchanged)
    }

    /// Removes the label (see the extension's notes). The row object stays
    /// valid, showing the label as it was; it leaves every model's `rows`.
    ///
    /// - Throws: ``StoreError``, as ``LabelStore/remove(_:options:)-7wg7w``.
    @discardableResult
    public func remove(options: WriteOptions = WriteOptions(), ifUnchanged: Bool = false) async throws(StoreError) -> [EventRecord] {
        try await edit(.remove(id: id), options, ifUnchanged)
    }

    /// Moves the label to `position` in the *list* (its position after the
    /// move, as ``LabelStore/move(_:to:options:)-9s1io``), not in a filtered view.
    ///
    /// - Throws: ``StoreError``, as ``LabelStore/move(_:to:options:)-9s1io``;
    ///   ``StoreError/Code/positionOutOfRange(position:count:)`` outside `0..<count`.
    @discardableResult
    public func move(to position: Int, options: WriteOptions = WriteOptions(), ifUnchanged: Bool = false) async throws(StoreError)
        -> [EventRecord]
    {
        try await edit(.move(id: id, to: position), options, ifUnchanged)
    }

    /// Runs `command` with the row's version as the expectation when asked,
    /// then brings the list model up to date (also after a refusal, which
    /// may have appended an audit record).
    private func edit(_ command: LabelCommand, _ options: WriteOptions, _ ifUnchanged: Bool) async throws(StoreError) -> [EventRecord] {
        var options = options
        if ifUnchanged { options.expectation = .label(id, version: version) }
        let model = self.model
        defer { model?.update() }
        return try await store.execute(command, options: options)
    }
}
