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
        // `b`'s order read once as an array (an index into the tree is O(log n) each).
        let later = b.order.elements
        a.order.forEachLeaf { leaf in
            guard same else { return }
            for slot in leaf {
                let x = a.slots[Int(slot)], y = b.slots[Int(later[i])]
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
        for (number, slot) in a.slots.enumerated() where !slot.isLive {
            // Lists folded from the same records number their slots alike: the same slot first, by id if not.
            if b.slots[number].id == slot.id {
                guard b.slots[number].word == slot.word else { return false }
                continue
            }
            guard let other = b.slot(of: slot.id), b.slots[Int(other)].word == slot.word else { return false }
        }
        return true
    }
}

extension LabelList {
    /// How this list first differs from `expected` (`nil`: it does not, as `==`
    /// compares them), in words naming the label, position or counter: for
    /// reporting a stored list that is not the fold it should be (`labelreplay
    /// verify` of a server list's checkpoints). O(n).
    package func firstDifference(from expected: LabelList) -> String? {
        func state(_ label: Label, version: UInt64?) -> String {
            "\"\(label.title)\" (\(label.isEnabled ? "on" : "off"), version \(version ?? 0))"
        }
        if lastSeq != expected.lastSeq { return "it is the list after seq \(lastSeq), not after seq \(expected.lastSeq)" }
        for position in 0..<Swift.min(count, expected.count) {
            let held = self[position], wanted = expected[position]
            if held.id != wanted.id {
                return "position \(position) holds label \(held.id) where the records give label \(wanted.id)"
            }
            let heldVersion = labelVersion(held.id), wantedVersion = expected.labelVersion(wanted.id)
            if held.title != wanted.title || held.isEnabled != wanted.isEnabled || heldVersion != wantedVersion {
                return
                    "label \(held.id) is \(state(held, version: heldVersion)) where the records give \(state(wanted, version: wantedVersion))"
            }
        }
        if count != expected.count { return "it holds \(count) live labels where the records give \(expected.count)" }
        for slot in expected.slots where !slot.isLive {
            if removal(of: slot.id) != slot.seq {
                return
                    "label \(slot.id) was removed at seq \(slot.seq) by the records, \(removal(of: slot.id).map { "at seq \($0)" } ?? "not removed") by it"
            }
        }
        for slot in slots where !slot.isLive && expected.removal(of: slot.id) == nil {
            return "it holds label \(slot.id) as removed at seq \(slot.seq), which the records do not remove"
        }
        if enabledCount != expected.enabledCount {
            return "it counts \(enabledCount) enabled labels where the records give \(expected.enabledCount)"
        }
        if listVersion != expected.listVersion {
            return "its list version is \(listVersion) where the records give \(expected.listVersion)"
        }
        if lastTimestamp != expected.lastTimestamp {
            return
                "its last time is \(lastTimestamp.map { "\($0)" } ?? "none") where the records give \(expected.lastTimestamp.map { "\($0)" } ?? "none")"
        }
        return self == expected ? nil : "it differs from the records' fold"
    }
}
