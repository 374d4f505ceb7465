import EventLog

extension LabelList {
    /// Traps if the list's storage is inconsistent (debug builds only; a no-op in release):
    /// - the order's invariants hold (see ``LabelOrder/_checkInvariants()``);
    /// - the order holds exactly the live slots, and every slot's id is found at that slot;
    /// - ``enabledCount`` is the number of live enabled slots;
    /// - every version and removal seq is in `1...lastSeq`, and ``listVersion`` ≤ ``lastSeq``;
    /// - removed slots hold no title and no enabled bit;
    /// - the title arena's live byte count is the live titles' total.
    public func _checkInvariants() {
        #if DEBUG || LABELSTORE_INTERNAL_CHECKS
        order._checkInvariants()
        let storage = slots
        slotIndex._checkInvariants(slotCount: slots.count) { storage[Int($0)].id }
        var live = 0, enabled = 0
        for (number, slot) in slots.enumerated() {
            precondition(slot.seq >= 1 && slot.seq <= lastSeq, "slot \(number) has seq \(slot.seq) outside 1...\(lastSeq)")
            precondition(
                slot.isLive == order.contains(UInt32(number)),
                "slot \(number) is \(slot.isLive ? "live" : "removed") but the order \(slot.isLive ? "lacks" : "holds") it")
            if slot.isLive {
                live += 1
                if slot.isEnabled { enabled += 1 }
            } else {
                precondition(slot.title == .empty && !slot.isEnabled, "removed slot \(number) keeps label data")
            }
        }
        let titleBytes = slots.reduce(0) { $0 + ($1.isLive ? $1.title.length : 0) }
        precondition(titleBytes == titles.liveBytes, "live titles hold \(titleBytes) bytes, but the arena counts \(titles.liveBytes)")
        precondition(live == order.count, "\(live) live slots, but the order holds \(order.count)")
        precondition(enabled == enabledCount, "\(enabled) enabled slots, but enabledCount is \(enabledCount)")
        precondition(listVersion <= lastSeq, "listVersion \(listVersion) is after lastSeq \(lastSeq)")
        #endif
    }

    /// Ends a fold: with internal checks compiled in (``InternalChecks``),
    /// runs ``_checkInvariants()`` when one is due; a no-op otherwise.
    @inline(__always)
    func _checkInvariantsAfterFold() {
        #if LABELSTORE_INTERNAL_CHECKS
        if InternalChecks.isDue(mutation: lastSeq, count: count) { _checkInvariants() }
        #endif
    }

    /// Ends a rollback: with internal checks compiled in, always runs
    /// ``_checkInvariants()`` (rollbacks are rare); a no-op otherwise.
    @inline(__always)
    func _checkInvariantsAfterRollback() {
        #if LABELSTORE_INTERNAL_CHECKS
        _checkInvariants()
        #endif
    }
}
