import EventLog

/// How the live labels of two lists correspond, for comparing a list with a
/// later one (`labelreplay diff`) without making a `Label` (and its title's
/// `String`) of every label, nor hashing every id.
///
/// Two lists of the same history number their slots alike (slots are
/// numbered in the order ids were first added), so a label's slot in the
/// later list is usually its slot in the earlier one: that is checked (the
/// ids must be equal) and the id looked up otherwise, so any two lists
/// correspond correctly, those of one history the fastest.
extension LabelList {
    /// The correspondence of an earlier list's live labels with a later one's (``correspondence(to:)``).
    package struct Correspondence {
        /// The earlier list's live slots, in its order.
        package let earlierSlots: [UInt32]
        /// The later list's live slots, in its order.
        package let laterSlots: [UInt32]
        /// For each of the later list's positions, the label's position in the earlier list (-1: not live there).
        package let oldPosition: [Int32]
        /// For each of the earlier list's positions, the label's position in the later list (-1: not live there).
        package let newPosition: [Int32]
    }

    /// The live slots in list order.
    package var liveSlots: [UInt32] {
        var result: [UInt32] = []
        result.reserveCapacity(count)
        order.forEachLeaf { leaf in result.append(contentsOf: leaf) }
        return result
    }

    /// How this list's live labels correspond with `later`'s.
    ///
    /// - Complexity: O(n + m) for n and m live labels, with one hash lookup per
    ///   label whose slot differs between the two lists.
    package func correspondence(to later: LabelList) -> Correspondence {
        let earlierSlots = liveSlots
        let laterSlots = later.liveSlots
        var positionOfSlot = [Int32](repeating: -1, count: slots.count)
        for (position, slot) in earlierSlots.enumerated() { positionOfSlot[Int(slot)] = Int32(position) }
        var oldPosition = [Int32](repeating: -1, count: laterSlots.count)
        var newPosition = [Int32](repeating: -1, count: earlierSlots.count)
        slots.withUnsafeBufferPointer { mine in
            later.slots.withUnsafeBufferPointer { theirs in
                for (position, slot) in laterSlots.enumerated() {
                    let id = theirs[Int(slot)].id
                    let own: UInt32? = Int(slot) < mine.count && mine[Int(slot)].id == id ? slot : self.slot(of: id)
                    guard let own else { continue }
                    let old = positionOfSlot[Int(own)]
                    if old >= 0 {
                        oldPosition[position] = old
                        newPosition[Int(old)] = Int32(position)
                    }
                }
            }
        }
        return Correspondence(earlierSlots: earlierSlots, laterSlots: laterSlots, oldPosition: oldPosition, newPosition: newPosition)
    }

    /// The id in slot `number`.
    package func id(slot number: UInt32) -> LabelID { slots[Int(number)].id }

    /// Whether the label in slot `number` (live) is enabled.
    package func isEnabled(slot number: UInt32) -> Bool { slots[Int(number)].isEnabled }

    /// The (live) label in slot `number`, its title made into a `String`.
    package func label(inSlot number: UInt32) -> Label { label(slot: number) }

    /// Whether the titles in this list's slot `number` and `other`'s slot
    /// `otherNumber` have the same bytes (no `String` is made).
    package func sameTitle(slot number: UInt32, as other: LabelList, slot otherNumber: UInt32) -> Bool {
        let mine = slots[Int(number)].title
        let theirs = other.slots[Int(otherNumber)].title
        guard mine.length == theirs.length else { return false }
        return titles.withBytes(mine) { a in other.titles.withBytes(theirs) { b in TitleArena.bytesEqual(a, b) } }
    }
}
