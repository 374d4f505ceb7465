/// Building a consistency proof from what a holder of a history's frontier
/// and of the records after it has: the proof a device that mirrors a
/// server's history checks, after each pull, against the head it already
/// held (docs/SYNC.md, "Proving the server's history").
extension ConsistencyProof {
    /// The proof (RFC 9162 §2.1.4.1) that the history of `old` extended by
    /// the records whose leaf hashes are `leaves` extends `old`, with the head
    /// those records give as ``new``.
    ///
    /// Needs no record before `old.count`: every subtree of the old history
    /// such a proof holds is one of `old`'s frontier (the perfect subtrees
    /// covering its records), and every other subtree lies among `leaves`.
    /// Checking the proof against a head someone else claims for the longer
    /// history (``verify()`` with ``new`` set to it) tells whether their
    /// history extends the one `old` stands for — the records after it being
    /// the ones at hand.
    ///
    /// - Complexity: O(`leaves.count`) hashes: about one per leaf (the later
    ///   head is computed from the proof's own hashes).
    public static func extending(_ old: HistoryTreeBuilder, by leaves: [HistoryHash]) -> ConsistencyProof {
        let count = old.count + UInt64(leaves.count)
        guard old.count > 0, !leaves.isEmpty else {
            var longer = old
            for leaf in leaves { longer.append(leaf: leaf) }
            return ConsistencyProof(old: old.head, new: longer.head, path: [])
        }
        let hasher = ExtendedTree(old: old, leaves: leaves)
        let path = hasher.subproof(oldCount: old.count, range: 0..<count, isWhole: true)
        var proof = ConsistencyProof(old: old.head, new: HistoryHead(seq: count, hash: .empty), path: path)
        do throws(EventLogError) {
            proof.new.hash = try proof.roots { EventLogError(.invalidProof, $0) }.new
        } catch {
            preconditionFailure("a proof built from the trees does not give their roots: \(error)")
        }
        return proof
    }
}

/// A history given as a frontier (its first `old.count` records, by their
/// perfect subtrees) and the leaves after it: the hashes RFC 9162's proofs
/// need, computed without the old records.
private struct ExtendedTree {
    /// The perfect subtrees of the old records, by the range of seqs (0-based) each covers.
    let pieces: [Range<UInt64>: HistoryHash]
    let oldCount: UInt64
    let leaves: [HistoryHash]

    init(old: HistoryTreeBuilder, leaves: [HistoryHash]) {
        var pieces: [Range<UInt64>: HistoryHash] = [:]
        var start: UInt64 = 0
        var index = 0
        for bit in (0..<64).reversed() where old.count & (1 << UInt64(bit)) != 0 {
            let size = UInt64(1) << UInt64(bit)
            pieces[start..<(start + size)] = old.frontier[index]
            start += size
            index += 1
        }
        self.pieces = pieces
        self.oldCount = old.count
        self.leaves = leaves
    }

    /// RFC 9162's SUBPROOF(m, D[range], b).
    func subproof(oldCount m: UInt64, range: Range<UInt64>, isWhole: Bool) -> [HistoryHash] {
        let n = UInt64(range.count)
        if m == n { return isWhole ? [] : [treeHash(range)] }
        let k = Self.largestPowerOfTwo(below: n)
        if m <= k {
            return subproof(oldCount: m, range: range.lowerBound..<(range.lowerBound + k), isWhole: isWhole)
                + [treeHash((range.lowerBound + k)..<range.upperBound)]
        }
        return subproof(oldCount: m - k, range: (range.lowerBound + k)..<range.upperBound, isWhole: false)
            + [treeHash(range.lowerBound..<(range.lowerBound + k))]
    }

    /// RFC 9162's MTH(D[range]): an old frontier piece as held, new leaves hashed.
    func treeHash(_ range: Range<UInt64>) -> HistoryHash {
        if range.lowerBound >= oldCount { return newTreeHash(from: Int(range.lowerBound - oldCount), count: range.count) }
        if let piece = pieces[range] { return piece }
        precondition(range.count > 1, "record \(range.lowerBound) of the old history is not in its frontier")
        let k = Self.largestPowerOfTwo(below: UInt64(range.count))
        return .node(
            treeHash(range.lowerBound..<(range.lowerBound + k)), treeHash((range.lowerBound + k)..<range.upperBound))
    }

    /// MTH of `count` new leaves from `start`: each perfect subtree hashed
    /// level by level, several nodes at a time.
    private func newTreeHash(from start: Int, count: Int) -> HistoryHash {
        if count & (count - 1) == 0 {
            if count == 1 { return leaves[start] }
            var level = Array(leaves[start..<(start + count)])
            return level.withUnsafeMutableBufferPointer { HistoryHash.perfectRoot($0.baseAddress!, count: count) }
        }
        let k = Int(Self.largestPowerOfTwo(below: UInt64(count)))
        return .node(newTreeHash(from: start, count: k), newTreeHash(from: start + k, count: count - k))
    }

    /// The largest power of two less than `n` (`n` ≥ 2).
    static func largestPowerOfTwo(below n: UInt64) -> UInt64 {
        UInt64(1) << UInt64(63 - (n - 1).leadingZeroBitCount)
    }
}
