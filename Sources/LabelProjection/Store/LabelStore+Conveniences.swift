import EventLog

/// Shorthands for single commands; each is ``LabelStore/execute(_:options:)``
/// with the same guarantees and errors.
extension LabelStore {
    /// Adds a label (at the end unless `position` is given) and returns its id.
    /// Pass the id of a removed label to restore it.
    @discardableResult
    public func add(_ title: String, isEnabled: Bool = true, id: LabelID? = nil, at position: Int? = nil,
                    options: WriteOptions = WriteOptions()) throws(StoreError) -> LabelID {
        let id = id ?? LabelID()
        try execute(.add(title: title, isEnabled: isEnabled, id: id, at: position), options: options)
        return id
    }

    /// Renames a label; renaming to the current title (the same bytes) appends nothing.
    @discardableResult
    public func rename(_ id: LabelID, to title: String, options: WriteOptions = WriteOptions()) throws(StoreError) -> [EventRecord] {
        try execute(.rename(id: id, title: title), options: options)
    }

    /// Sets `isEnabled`; setting the current value appends nothing.
    @discardableResult
    public func setEnabled(_ id: LabelID, _ isEnabled: Bool, options: WriteOptions = WriteOptions()) throws(StoreError) -> [EventRecord] {
        try execute(.setEnabled(id: id, isEnabled: isEnabled), options: options)
    }

    /// Flips `isEnabled`.
    @discardableResult
    public func toggle(_ id: LabelID, options: WriteOptions = WriteOptions()) throws(StoreError) -> [EventRecord] {
        try execute(.toggle(id: id), options: options)
    }

    /// Removes a label.
    @discardableResult
    public func remove(_ id: LabelID, options: WriteOptions = WriteOptions()) throws(StoreError) -> [EventRecord] {
        try execute(.remove(id: id), options: options)
    }

    /// Moves a label to `position` (its position after the move).
    @discardableResult
    public func move(_ id: LabelID, to position: Int, options: WriteOptions = WriteOptions()) throws(StoreError) -> [EventRecord] {
        try execute(.move(id: id, to: position), options: options)
    }

    /// Reverses the list.
    @discardableResult
    public func reverse(options: WriteOptions = WriteOptions()) throws(StoreError) -> [EventRecord] {
        try execute(.reverse, options: options)
    }

    /// Gives the list this order (a permutation of the live ids).
    @discardableResult
    public func reorder(_ ids: [LabelID], options: WriteOptions = WriteOptions()) throws(StoreError) -> [EventRecord] {
        try execute(.reorder(ids), options: options)
    }
}
