/// Editing the counted B+-tree: insert, remove, move and bulk replacement,
/// with the splits, merges and redistributions that keep every non-root
/// node between a quarter full and full.
extension LabelOrder {
    /// Inserts `slot` (not already present) so that it ends up at `position` (in `0...count`).
    mutating func insert(_ slot: UInt32, at position: Int) {
        defer { _checkInvariantsAfterEdit() }
        precondition(position >= 0 && position <= count, "position \(position) is outside 0...\(count)")
        precondition(!contains(slot), "slot \(slot) is already in the order")
        var node = Int(root)
        var p = position
        for _ in 0..<height {
            let k = Self.child(containing: &p, in: inners[node].counts, forInsert: true)
            inners[node].counts[k] += 1
            node = Int(inners[node].children[k])
        }
        leaves[node].items.insert(slot, at: p)
        setLeaf(of: slot, to: Int32(node))
        count += 1
        if leaves[node].items.count > leafCapacity {
            // Appending at the very end splits three to one, so lists built by
            // appending end up three quarters full rather than half.
            splitLeaf(Int32(node), appending: position == count - 1)
        }
    }

    /// Removes and returns the slot at `position` (in `0..<count`).
    @discardableResult
    mutating func remove(at position: Int) -> UInt32 {
        defer { _checkInvariantsAfterEdit() }
        precondition(position >= 0 && position < count, "position \(position) is outside 0..<\(count)")
        var node = Int(root)
        var p = position
        for _ in 0..<height {
            let k = Self.child(containing: &p, in: inners[node].counts, forInsert: false)
            inners[node].counts[k] -= 1
            node = Int(inners[node].children[k])
        }
        let slot = leaves[node].items.remove(at: p)
        leafOf[Int(slot)] = -1
        count -= 1
        fixLeaf(Int32(node))
        return slot
    }

    /// Removes the slot at `from`, then inserts it at `to` in the shortened order.
    mutating func move(from: Int, to: Int) {
        let slot = remove(at: from)
        insert(slot, at: to)
    }

    /// Replaces the whole order with `slots` (distinct), in O(n + previous n).
    /// Leaves are filled to three quarters so that inserts do not split at once.
    mutating func replace(with slots: [UInt32]) {
        defer { _checkInvariantsAfterEdit() }
        forEachLeaf { items in for slot in items { leafOf[Int(slot)] = -1 } }
        leaves = []
        inners = []
        freeLeaves = []
        freeInners = []
        count = slots.count
        height = 0
        if let maxSlot = slots.max(), Int(maxSlot) >= leafOf.count {
            leafOf.append(contentsOf: repeatElement(-1, count: Int(maxSlot) + 1 - leafOf.count))
        }
        // Leaves.
        var level: [(node: Int32, count: Int)] = []
        for range in Self.groups(of: slots.count, fill: max(1, leafCapacity * 3 / 4), minimum: minLeaf) {
            let leaf = Int32(leaves.count)
            leaves.append(Leaf(items: Array(slots[range]), parent: -1))
            for slot in slots[range] { leafOf[Int(slot)] = leaf }
            level.append((leaf, range.count))
        }
        if level.isEmpty {
            leaves.append(Leaf())
            level.append((0, 0))
        }
        // Inner levels, bottom up.
        while level.count > 1 {
            var next: [(node: Int32, count: Int)] = []
            for range in Self.groups(of: level.count, fill: max(minInner, innerCapacity * 3 / 4), minimum: minInner) {
                let inner = Int32(inners.count)
                let group = level[range]
                inners.append(Inner(children: group.map(\.node), counts: group.map(\.count), parent: -1))
                for (child, _) in group { setParent(of: child, level: height, to: inner) }
                next.append((inner, group.reduce(0) { $0 + $1.count }))
            }
            level = next
            height += 1
        }
        root = level[0].node
    }

    /// Splits `0..<n` into consecutive groups of `fill`, folding a last group
    /// smaller than `minimum` into the one before it.
    static func groups(of n: Int, fill: Int, minimum: Int) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var start = 0
        while start < n {
            let end = min(n, start + fill)
            ranges.append(start..<end)
            start = end
        }
        if ranges.count > 1, let last = ranges.last, last.count < minimum {
            ranges.removeLast()
            let previous = ranges.removeLast()
            ranges.append(previous.lowerBound..<last.upperBound)
        }
        return ranges
    }

    // MARK: - Node bookkeeping

    mutating func setLeaf(of slot: UInt32, to leaf: Int32) {
        let i = Int(slot)
        if i >= leafOf.count { leafOf.append(contentsOf: repeatElement(-1, count: i + 1 - leafOf.count)) }
        leafOf[i] = leaf
    }

    /// Sets the parent of `node`, which is a leaf at level 0 and an inner node above.
    private mutating func setParent(of node: Int32, level: Int, to parent: Int32) {
        if level == 0 { leaves[Int(node)].parent = parent } else { inners[Int(node)].parent = parent }
    }

    private func parent(of node: Int32, level: Int) -> Int32 {
        level == 0 ? leaves[Int(node)].parent : inners[Int(node)].parent
    }

    private mutating func newLeaf(_ leaf: Leaf) -> Int32 {
        if let reused = freeLeaves.popLast() {
            leaves[Int(reused)] = leaf
            return reused
        }
        leaves.append(leaf)
        return Int32(leaves.count - 1)
    }

    private mutating func newInner(_ inner: Inner) -> Int32 {
        if let reused = freeInners.popLast() {
            inners[Int(reused)] = inner
            return reused
        }
        inners.append(inner)
        return Int32(inners.count - 1)
    }

    /// The index of `child` among `parent`'s children.
    private func index(of child: Int32, in parent: Int32) -> Int {
        inners[Int(parent)].children.firstIndex(of: child)!
    }

    // MARK: - Splits

    private mutating func splitLeaf(_ leaf: Int32, appending: Bool) {
        let items = leaves[Int(leaf)].items
        let mid = appending ? items.count - max(minLeaf, items.count / 4) : items.count / 2
        let right = newLeaf(Leaf(items: Array(items[mid...]), parent: leaves[Int(leaf)].parent))
        leaves[Int(leaf)].items.removeSubrange(mid...)
        for slot in items[mid...] { leafOf[Int(slot)] = right }
        addSibling(right, count: items.count - mid, after: leaf, leftCount: mid, level: 0)
    }

    private mutating func splitInner(_ node: Int32, level: Int) {
        let children = inners[Int(node)].children
        let counts = inners[Int(node)].counts
        let mid = children.count / 2
        let right = newInner(Inner(children: Array(children[mid...]), counts: Array(counts[mid...]), parent: inners[Int(node)].parent))
        inners[Int(node)].children.removeSubrange(mid...)
        inners[Int(node)].counts.removeSubrange(mid...)
        for child in children[mid...] { setParent(of: child, level: level - 1, to: right) }
        addSibling(right, count: counts[mid...].reduce(0, +), after: node, leftCount: counts[..<mid].reduce(0, +), level: level)
    }

    /// Links `right` (a new node at `level`, holding `count` slots) after `left`
    /// (now holding `leftCount`), growing a new root if `left` was the root.
    private mutating func addSibling(_ right: Int32, count: Int, after left: Int32, leftCount: Int, level: Int) {
        let parent = parent(of: left, level: level)
        if parent < 0 {
            let newRoot = newInner(Inner(children: [left, right], counts: [leftCount, count], parent: -1))
            setParent(of: left, level: level, to: newRoot)
            setParent(of: right, level: level, to: newRoot)
            root = newRoot
            height += 1
            return
        }
        let k = index(of: left, in: parent)
        inners[Int(parent)].counts[k] = leftCount
        inners[Int(parent)].children.insert(right, at: k + 1)
        inners[Int(parent)].counts.insert(count, at: k + 1)
        if inners[Int(parent)].children.count > innerCapacity { splitInner(parent, level: level + 1) }
    }

    // MARK: - Underflow

    /// Restores the fill of a leaf that may have dropped below ``minLeaf``.
    private mutating func fixLeaf(_ leaf: Int32) {
        let parent = leaves[Int(leaf)].parent
        guard parent >= 0, leaves[Int(leaf)].items.count < minLeaf else { return }
        let k = index(of: leaf, in: parent)
        let kl = k > 0 ? k - 1 : k
        let left = inners[Int(parent)].children[kl], right = inners[Int(parent)].children[kl + 1]
        let leftCount = leaves[Int(left)].items.count, rightCount = leaves[Int(right)].items.count
        if leftCount + rightCount <= leafCapacity {
            let moved = leaves[Int(right)].items
            leaves[Int(left)].items.append(contentsOf: moved)
            for slot in moved { leafOf[Int(slot)] = left }
            leaves[Int(right)] = Leaf()
            freeLeaves.append(right)
            removeChild(at: kl + 1, from: parent, mergingCountInto: kl)
            fixInner(parent, level: 1)
        } else {
            // Even out: the underfull side takes slots across the boundary.
            let total = leftCount + rightCount
            let newLeft = total / 2
            if newLeft > leftCount {
                let moved = leaves[Int(right)].items[..<(newLeft - leftCount)]
                leaves[Int(left)].items.append(contentsOf: moved)
                for slot in moved { leafOf[Int(slot)] = left }
                leaves[Int(right)].items.removeSubrange(..<(newLeft - leftCount))
            } else {
                let moved = leaves[Int(left)].items[newLeft...]
                leaves[Int(right)].items.insert(contentsOf: moved, at: 0)
                for slot in moved { leafOf[Int(slot)] = right }
                leaves[Int(left)].items.removeSubrange(newLeft...)
            }
            inners[Int(parent)].counts[kl] = newLeft
            inners[Int(parent)].counts[kl + 1] = total - newLeft
        }
    }

    /// Restores the fill of an inner node at `level` that may have dropped
    /// below ``minInner``; collapses a root left with one child.
    private mutating func fixInner(_ node: Int32, level: Int) {
        let parent = inners[Int(node)].parent
        if parent < 0 {
            if inners[Int(node)].children.count == 1 {
                let only = inners[Int(node)].children[0]
                setParent(of: only, level: level - 1, to: -1)
                inners[Int(node)] = Inner()
                freeInners.append(node)
                root = only
                height -= 1
            }
            return
        }
        guard inners[Int(node)].children.count < minInner else { return }
        let k = index(of: node, in: parent)
        let kl = k > 0 ? k - 1 : k
        let left = inners[Int(parent)].children[kl], right = inners[Int(parent)].children[kl + 1]
        let leftChildren = inners[Int(left)].children.count, rightChildren = inners[Int(right)].children.count
        if leftChildren + rightChildren <= innerCapacity {
            let moved = inners[Int(right)].children
            inners[Int(left)].children.append(contentsOf: moved)
            inners[Int(left)].counts.append(contentsOf: inners[Int(right)].counts)
            for child in moved { setParent(of: child, level: level - 1, to: left) }
            inners[Int(right)] = Inner()
            freeInners.append(right)
            removeChild(at: kl + 1, from: parent, mergingCountInto: kl)
            fixInner(parent, level: level + 1)
        } else {
            let total = leftChildren + rightChildren
            let newLeft = total / 2
            var shifted = 0
            if newLeft > leftChildren {
                let n = newLeft - leftChildren
                let children = inners[Int(right)].children[..<n], counts = inners[Int(right)].counts[..<n]
                shifted = counts.reduce(0, +)
                inners[Int(left)].children.append(contentsOf: children)
                inners[Int(left)].counts.append(contentsOf: counts)
                for child in children { setParent(of: child, level: level - 1, to: left) }
                inners[Int(right)].children.removeSubrange(..<n)
                inners[Int(right)].counts.removeSubrange(..<n)
            } else {
                let children = inners[Int(left)].children[newLeft...], counts = inners[Int(left)].counts[newLeft...]
                shifted = -counts.reduce(0, +)
                inners[Int(right)].children.insert(contentsOf: children, at: 0)
                inners[Int(right)].counts.insert(contentsOf: counts, at: 0)
                for child in children { setParent(of: child, level: level - 1, to: right) }
                inners[Int(left)].children.removeSubrange(newLeft...)
                inners[Int(left)].counts.removeSubrange(newLeft...)
            }
            inners[Int(parent)].counts[kl] += shifted
            inners[Int(parent)].counts[kl + 1] -= shifted
        }
    }

    /// Removes child `k` of `parent`, adding its count to child `into`.
    private mutating func removeChild(at k: Int, from parent: Int32, mergingCountInto into: Int) {
        inners[Int(parent)].counts[into] += inners[Int(parent)].counts[k]
        inners[Int(parent)].children.remove(at: k)
        inners[Int(parent)].counts.remove(at: k)
    }
}
