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
        journal = Journal(
            slotCount: slots.count, enabledCount: enabledCount, listVersion: listVersion,
            lastSeq: lastSeq, lastTimestamp: lastTimestamp, titles: titles.mark)
        defer { rollBack() }
        return try body(&self)
    }

    /// Validates a batch by folding it into this list and rolling it back
    /// (``withRollback(_:)``): for each of `items` in order, `steps` gives
    /// what the item becomes in the state the items before it leave (or
    /// throws why it is refused), and each step is folded as the record
    /// `record(step, seq)` at the next seq, checked like any stored record.
    /// Returns every item's steps, in order; the list is unchanged on return.
    ///
    /// A refusal, or a record the fold refuses (as
    /// ``StoreError/Code/inconsistentEvent(_:)``), is thrown with the item's
    /// position in ``StoreError/batchIndex`` when there is more than one item.
    mutating func trialFold<Item, Step>(
        _ items: [Item], steps: (_ state: LabelList, _ item: Item) throws(StoreError) -> [Step],
        record: (_ step: Step, _ seq: UInt64) -> EventRecord
    ) throws(StoreError) -> [Step] {
        try withRollback { (work) throws(StoreError) -> [Step] in
            var all: [Step] = []
            all.reserveCapacity(items.count)
            for (i, item) in items.enumerated() {
                do throws(StoreError) {
                    for step in try steps(work, item) {
                        do throws(ProjectionError) {
                            try work.replay(record(step, work.lastSeq + 1))
                        } catch {
                            throw StoreError.inconsistent(error)
                        }
                        all.append(step)
                    }
                } catch {
                    var error = error
                    if items.count > 1 { error.batchIndex = i }
                    throw error
                }
            }
            return all
        }
    }

    private mutating func rollBack() {
        guard let journal else { return }
        self.journal = nil
        defer { _checkInvariantsAfterRollback() }
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
