import EventLog

extension LabelStore {
    /// The whole projection as a value.
    ///
    /// - Complexity: O(1). While the returned list is alive, the store's next write
    ///   copies the parts of the storage it changes.
    public var snapshot: LabelList { state.withLock { $0.list } }

    /// The live labels in list order.
    ///
    /// - Complexity: O(n + t) for n labels with t title bytes (each title is made into a
    ///   `String`), under the store's lock.
    public var labels: [Label] { state.withLock { $0.list.labels } }

    /// The live label with this id, or `nil` (a hash lookup, not a scan).
    ///
    /// - Complexity: O(1) expected, plus the title's length to make its `String`.
    public func label(_ id: LabelID) -> Label? { state.withLock { $0.list.label(id) } }

    /// The number of live labels.
    public var count: Int { state.withLock { $0.list.count } }

    /// The number of enabled live labels.
    public var enabledCount: Int { state.withLock { $0.list.enabledCount } }

    /// The seq of the last record applied to the projection.
    public var lastSeq: UInt64 { state.withLock { $0.list.lastSeq } }

    /// The seq of the last event that changed membership or order.
    public var listVersion: UInt64 { state.withLock { $0.list.listVersion } }

    /// The version of a live label (the seq of the event that last added it or changed its title or `isEnabled`).
    ///
    /// - Complexity: O(1) expected.
    public func labelVersion(_ id: LabelID) -> UInt64? { state.withLock { $0.list.labelVersion(id) } }

    /// The seq that removed this id, if it is removed and was not added again.
    ///
    /// - Complexity: O(1) expected.
    public func removal(of id: LabelID) -> UInt64? { state.withLock { $0.list.removal(of: id) } }

    /// Every id the log has seen, live or removed (for resolving id prefixes).
    ///
    /// - Complexity: O(s) in the ids ever added (live labels and removed ones), under
    ///   the store's lock.
    public var knownIDs: Set<LabelID> { state.withLock { $0.list.knownIDs } }

    /// The rows of a filtered view, in list order. Uses the incrementally
    /// maintained view when a subscriber keeps one; otherwise filters once.
    ///
    /// - Complexity: O(r) in the rows returned (plus their titles' bytes) when a
    ///   subscriber to ``Dependency/view(_:)`` of an equal query keeps the view maintained;
    ///   otherwise O(n + t), as every one of the n labels (t title bytes) is made and
    ///   matched with ``ViewQuery/matches(_:)``. Either way under the store's lock.
    public func view(_ query: ViewQuery) -> [Label] {
        state.withLock { s in
            if let view = s.hub.view(query) { return view.labels(in: s.list) }
            return s.list.labels.filter(query.matches)
        }
    }

    /// The id at `position` *now*, for positional UI actions ("change first",
    /// "remove last"); the write that follows is addressed by that id.
    ///
    /// - Throws: ``StoreError/Code/nothingToActOn`` when the list is empty;
    ///   ``StoreError/Code/positionOutOfRange(position:count:)`` when `position` is
    ///   outside `0..<count`. Reading works on a closed store too.
    /// - Complexity: O(log n) in the number of labels.
    public func id(at position: Int) throws(StoreError) -> LabelID {
        try id { _ in position }
    }

    /// The id of the first label.
    ///
    /// - Throws: ``StoreError/Code/nothingToActOn`` when the list is empty.
    /// - Complexity: O(log n) in the number of labels.
    public func firstID() throws(StoreError) -> LabelID { try id { _ in 0 } }

    /// The id of the last label.
    ///
    /// - Throws: ``StoreError/Code/nothingToActOn`` when the list is empty.
    /// - Complexity: O(log n) in the number of labels.
    public func lastID() throws(StoreError) -> LabelID { try id { $0 - 1 } }

    /// The id at the position `pick(count)`, resolved under the lock.
    private func id(_ pick: (Int) -> Int) throws(StoreError) -> LabelID {
        try state.withLock { (s) throws(StoreError) -> LabelID in
            let count = s.list.count
            guard count > 0 else { throw StoreError(.nothingToActOn, "Nothing to act on: the list is empty.") }
            let position = pick(count)
            guard position >= 0, position < count else {
                throw StoreError.position(position, count: count, valid: "0..<\(count)")
            }
            return s.list.id(at: position)
        }
    }
}

extension LabelStore {
    /// What opening the file log found and cut (a torn tail, preallocated
    /// space); `nil` for a store over another `EventStorage`.
    public var recoveryReport: RecoveryReport? { ownedWriter?.recoveryReport }

    /// Whether opening created the file log; `false` for other storages.
    public var createdLog: Bool { ownedWriter?.created ?? false }
}
