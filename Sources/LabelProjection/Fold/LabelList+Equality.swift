import EventLog

extension LabelList: Equatable {
    /// Whether two lists hold the same state: the same live labels (ids, titles,
    /// flags, versions) in the same order, the same removed ids with the same
    /// removal seqs, and the same counts, list version, last seq and last
    /// timestamp. How slots are numbered inside does not matter. O(n).
    public static func == (a: LabelList, b: LabelList) -> Bool {
        guard a.count == b.count, a.slots.count == b.slots.count, a.enabledCount == b.enabledCount,
            a.listVersion == b.listVersion, a.lastSeq == b.lastSeq, a.lastTimestamp == b.lastTimestamp
        else { return false }
        var i = 0
        var same = true
        a.order.forEachLeaf { leaf in
            guard same else { return }
            for slot in leaf {
                let x = a.slots[Int(slot)], y = b.slots[Int(b.order[i])]
                if x.id != y.id || x.word != y.word || x.title.length != y.title.length {
                    same = false
                    return
                }
                let titlesEqual = a.titles.withBytes(x.title) { ax in b.titles.withBytes(y.title) { TitleArena.bytesEqual(ax, $0) } }
                if !titlesEqual {
                    same = false
                    return
                }
                i += 1
            }
        }
        guard same else { return false }
        for slot in a.slots where !slot.isLive {
            guard let other = b.slot(of: slot.id), b.slots[Int(other)].word == slot.word else { return false }
        }
        return true
    }
}
