import EventLog

/// Trial application with rollback: the store validates a batch by folding
/// its events into the live projection and undoing them afterwards, in
/// O(events · log n), instead of folding them into an O(n) copy.
extension LabelList {
    /// What undoes the applies made since the journal was opened.
    struct Journal: Sendable {
        let slotCount: Int
        let enabledCount: Int
        let listVersion: UInt64
        let lastSeq: UInt64
        let lastTimestamp: EventTimestamp?
        /// The title arena's extent: bytes appended since are dropped on rollback.
        let titles: (count: Int, garbage: Int)
        /// Earlier values of slots that existed when the journal was opened, oldest first.
        var slots: [(number: UInt32, old: Slot)] = []
        /// The inverse of each order edit, oldest first.
        var undo: [OrderEdit] = []
    }

    /// Runs `body` with this list, then restores the list exactly as it was
    /// (state, slot numbering and id index), whether `body` returns or throws.
    /// Every ``apply(_:)`` inside is undone in O(log n) (a `reordered` in O(n)).
    mutating func withRollback<R>(_ body: (inout LabelList) throws(StoreError) -> R) throws(StoreError) -> R {
        precondition(journal == nil, "rollbacks do not nest")
        journal = Journal(slotCount: slots.count, enabledCount: enabledCount, listVersion: listVersion,
                          lastSeq: lastSeq, lastTimestamp: lastTimestamp, titles: titles.mark)
        defer { rollBack() }
        return try body(&self)
    }

    private mutating func rollBack() {
        guard let journal else { return }
        self.journal = nil
        for edit in journal.undo.reversed() { editOrder(edit) }
        for (number, old) in journal.slots.reversed() { slots[Int(number)] = old }
        if slots.count > journal.slotCount {
            let storage = slots
            for number in (journal.slotCount..<storage.count).reversed() {
                slotIndex.remove(storage[number].id) { storage[Int($0)].id }
            }
            slots.removeSubrange(journal.slotCount...)
        }
        titles.restore(journal.titles)
        enabledCount = journal.enabledCount
        listVersion = journal.listVersion
        lastSeq = journal.lastSeq
        lastTimestamp = journal.lastTimestamp
    }
}
