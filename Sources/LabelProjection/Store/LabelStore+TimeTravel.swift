import EventLog

/// Time travel: the state at an earlier point, folded from the log.
extension LabelStore {
    /// The list as it was right after record `seq` (0 gives the empty list),
    /// folded from the log with the same fold as the live projection: from
    /// the newest trusted snapshot at or before `seq` when there is one (file
    /// logs), else from seq 1. The current seq returns the projection itself.
    /// Throws ``StoreError/Code/seqOutOfRange(seq:lastSeq:)`` if `seq > lastSeq`.
    public func state(atSeq seq: UInt64) throws(StoreError) -> LabelList {
        let current = snapshot
        let last = current.lastSeq
        guard seq <= last else {
            throw StoreError(.seqOutOfRange(seq: seq, lastSeq: last), "There is no seq \(seq): the log ends at seq \(last).", seq: seq)
        }
        return seq == last ? current : try fold(through: seq)
    }

    /// The list as it was at `time`: records are folded in seq order and the
    /// fold stops before the first record stamped later than `time` (so a
    /// record with an out-of-order earlier timestamp after it is not included).
    public func state(atTime time: EventTimestamp) throws(StoreError) -> LabelList {
        var list = LabelList()
        try forEachStoredRecord(from: 1, through: lastSeq) { (record) throws(StoreError) -> Bool in
            guard record.timestamp <= time else { return false }
            do throws(ProjectionError) { try list.replay(record) } catch { throw StoreError.inconsistent(error) }
            return true
        }
        return list
    }

    /// The fold of records `1...seq` from storage, starting from the newest
    /// trusted snapshot at or before `seq` when there is one.
    func fold(through seq: UInt64) throws(StoreError) -> LabelList {
        guard seq > 0 else { return LabelList() }
        var list = loadSnapshot(atOrBefore: seq) ?? LabelList()
        try log.fold(&list, through: seq, via: storage)
        return list
    }
}
