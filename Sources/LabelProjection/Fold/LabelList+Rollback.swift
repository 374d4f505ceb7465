import EventLog

/// Trial application with rollback: the store validates a batch by folding
/// its events into the live projection and undoing them afterwards, in
/// O(events · log n), instead of folding them into an O(n) copy.
extension LabelList {
    /// One edit of the order, as ``apply(_:)`` makes it.
    enum OrderEdit: Sendable {
        case inserted(UInt32, at: Int)
        case removed(UInt32, at: Int)
        case moved(from: Int, to: Int)
        case replaced(with: [UInt32])
    }

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

    /// Writes a slot, remembering its old value while a journal is open.
    mutating func setSlot(_ number: UInt32, _ slot: Slot) {
        if let slotCount = journal?.slotCount, Int(number) < slotCount {
            journal!.slots.append((number, slots[Int(number)]))
        }
        slots[Int(number)] = slot
    }

    /// Edits the order, remembering the inverse while a journal is open.
    mutating func editOrder(_ edit: OrderEdit) {
        switch edit {
        case .inserted(let slot, let at):
            order.insert(slot, at: at)
            journal?.undo.append(.removed(slot, at: at))
        case .removed(_, let at):
            let slot = order.remove(at: at)
            journal?.undo.append(.inserted(slot, at: at))
        case .moved(let from, let to):
            order.move(from: from, to: to)
            journal?.undo.append(.moved(from: to, to: from))
        case .replaced(let slots):
            if journal != nil { journal!.undo.append(.replaced(with: order.elements)) }
            order.replace(with: slots)
        }
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
