import EventLog

/// Trial application with rollback: the store validates a batch by folding
/// its events into the live projection and undoing them afterwards, in
/// O(events · log n), instead of folding them into an O(n) copy.
extension LabelList {
    /// What undoes the applies made since the journal was opened: the old
    /// values of slots and the inverse of order edits, oldest first. Nested
    /// rollbacks (``withRollback(_:)`` inside another, ``withSavepoint(_:)``)
    /// share one journal and undo only their own suffix of it.
    struct Journal: Sendable {
        /// Slots numbered below this have their old value recorded before a
        /// write (slots above it were created inside the innermost open
        /// rollback, which drops them wholesale).
        var slotThreshold: Int
        /// Earlier values of slots, oldest first.
        var slots: [(number: UInt32, old: Slot)] = []
        /// The inverse of each order edit, oldest first.
        var undo: [OrderEdit] = []
    }

    /// The list as it was when a (possibly nested) rollback began.
    struct Savepoint {
        let slotCount: Int
        let enabledCount: Int
        let listVersion: UInt64
        let lastSeq: UInt64
        let lastTimestamp: EventTimestamp?
        /// The title arena's extent: bytes appended since are dropped on rollback.
        let titles: (count: Int, garbage: Int)
        /// The journal's length and threshold then.
        let slotEntries: Int
        let undoEntries: Int
        let slotThreshold: Int
        /// Whether this savepoint opened the journal.
        let opensJournal: Bool
    }

    /// Runs `body` with this list, then restores the list exactly as it was
    /// (state, slot numbering and id index), whether `body` returns or throws.
    /// Every ``apply(_:)`` inside is undone in O(log n) (a `reordered` in O(n)).
    /// Rollbacks nest: an inner one undoes only what was applied inside it.
    mutating func withRollback<R, Failure: Error>(_ body: (inout LabelList) throws(Failure) -> R) throws(Failure) -> R {
        let savepoint = openSavepoint()
        defer { rollBack(to: savepoint) }
        return try body(&self)
    }

    /// Runs `body` with this list and keeps what it applied if it returns;
    /// if it throws, restores the list as it was before `body` (as
    /// ``withRollback(_:)`` does). Inside an open rollback, what is kept is
    /// still undone by that rollback.
    mutating func withSavepoint<R, Failure: Error>(_ body: (inout LabelList) throws(Failure) -> R) throws(Failure) -> R {
        let savepoint = openSavepoint()
        do {
            let result = try body(&self)
            release(savepoint)
            return result
        } catch {
            rollBack(to: savepoint)
            throw error
        }
    }

    private mutating func openSavepoint() -> Savepoint {
        let opens = journal == nil
        if opens { journal = Journal(slotThreshold: slots.count) }
        let savepoint = Savepoint(
            slotCount: slots.count, enabledCount: enabledCount, listVersion: listVersion,
            lastSeq: lastSeq, lastTimestamp: lastTimestamp, titles: titles.mark,
            slotEntries: journal!.slots.count, undoEntries: journal!.undo.count,
            slotThreshold: journal!.slotThreshold, opensJournal: opens)
        // Slots created before this point but after an outer savepoint must be
        // recorded too, so this savepoint can restore them.
        journal!.slotThreshold = slots.count
        return savepoint
    }

    /// Keeps what was applied since `savepoint` (an outer rollback still undoes it).
    private mutating func release(_ savepoint: Savepoint) {
        if savepoint.opensJournal {
            journal = nil
        } else {
            journal!.slotThreshold = savepoint.slotThreshold
        }
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

    private mutating func rollBack(to savepoint: Savepoint) {
        guard var journal else { return }
        // Undo with the journal closed, so the undoing edits are not recorded.
        self.journal = nil
        defer { _checkInvariantsAfterRollback() }
        for edit in journal.undo[savepoint.undoEntries...].reversed() { editOrder(edit) }
        for (number, old) in journal.slots[savepoint.slotEntries...].reversed() { slots[Int(number)] = old }
        if slots.count > savepoint.slotCount {
            let storage = slots
            for number in (savepoint.slotCount..<storage.count).reversed() {
                slotIndex.remove(storage[number].id) { storage[Int($0)].id }
            }
            slots.removeSubrange(savepoint.slotCount...)
        }
        titles.restore(savepoint.titles)
        enabledCount = savepoint.enabledCount
        listVersion = savepoint.listVersion
        lastSeq = savepoint.lastSeq
        lastTimestamp = savepoint.lastTimestamp
        guard !savepoint.opensJournal else { return }
        journal.undo.removeSubrange(savepoint.undoEntries...)
        journal.slots.removeSubrange(savepoint.slotEntries...)
        journal.slotThreshold = savepoint.slotThreshold
        self.journal = journal
    }
}
