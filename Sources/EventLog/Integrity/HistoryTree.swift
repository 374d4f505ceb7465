/// The shape of the history tree (RFC 9162 §2.1): which subtrees a proof
/// names. A tree of `n` leaves splits at `k`, the largest power of two below
/// `n`; leaves are numbered from 0 (record `seq` is leaf `seq − 1`).
///
/// The functions here say *which* ranges of leaves a proof's hashes cover, in
/// the order the proof lists them; whoever holds the records hashes them
/// (``HistoryRangeHasher``). Ranges of one proof never overlap.
package enum HistoryTree {
    /// The largest power of two strictly below `n` (`n ≥ 2`).
    package static func split(_ n: UInt64) -> UInt64 {
        precondition(n >= 2, "a tree of fewer than two leaves does not split")
        return 1 << (63 - UInt64((n - 1).leadingZeroBitCount))
    }

    /// The leaves whose subtree hashes make the inclusion proof of leaf
    /// `leaf` in a tree of `size` leaves (RFC 9162 §2.1.3.1, `PATH(m, D[n])`),
    /// from the leaf's sibling up to the root's other child.
    package static func inclusionRanges(leaf: UInt64, size: UInt64) -> [Range<UInt64>] {
        precondition(leaf < size, "leaf \(leaf) is not in a tree of \(size)")
        var ranges: [Range<UInt64>] = []
        var low: UInt64 = 0
        var high = size
        while high - low > 1 {
            let k = split(high - low)
            if leaf - low < k {
                ranges.append(low + k..<high)
                high = low + k
            } else {
                ranges.append(low..<low + k)
                low += k
            }
        }
        return ranges.reversed()
    }

    /// The leaves whose subtree hashes make the consistency proof from a tree
    /// of `old` leaves to one of `new` (RFC 9162 §2.1.4.1, `PROOF(m, D[n])`),
    /// in the proof's order. Empty when `old == new`; `0 < old ≤ new`.
    package static func consistencyRanges(old: UInt64, new: UInt64) -> [Range<UInt64>] {
        precondition(old > 0 && old <= new, "no consistency proof from \(old) to \(new)")
        var ranges: [Range<UInt64>] = []
        var low: UInt64 = 0
        var high = new
        var m = old
        var whole = true  // SUBPROOF's b: the old tree is this whole subtree's left part
        while true {
            let n = high - low
            if m == n {
                if !whole { ranges.append(low..<high) }
                break
            }
            let k = split(n)
            if m <= k {
                ranges.append(low + k..<high)
                high = low + k
            } else {
                ranges.append(low..<low + k)
                low += k
                m -= k
                whole = false
            }
        }
        return ranges.reversed()
    }
}
