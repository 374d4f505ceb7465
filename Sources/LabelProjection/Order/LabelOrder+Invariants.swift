/// The structural invariants of ``LabelOrder``, checked in debug builds and tests.
extension LabelOrder {
    /// Traps if any invariant is broken (debug builds only; a no-op in release):
    /// - every leaf is at depth ``height`` and every parent link matches;
    /// - each inner node's counts are the slot counts of its children, and the
    ///   total is ``count``;
    /// - every non-root leaf has `minLeaf...leafCapacity` slots and every
    ///   non-root inner node `minInner...innerCapacity` children; the root has
    ///   at least two children when it is an inner node;
    /// - `leafOf` names the leaf of every slot in the order, `-1` for others,
    ///   and no slot occurs twice.
    func _checkInvariants() {
        #if DEBUG || LABELSTORE_INTERNAL_CHECKS
        var seen = 0
        var inOrder = 0
        func check(_ node: Int32, level: Int, parent: Int32) -> Int {
            if level == 0 {
                let leaf = leaves[Int(node)]
                precondition(leaf.parent == parent, "leaf \(node) has parent \(leaf.parent), expected \(parent)")
                if parent >= 0 {
                    precondition(
                        leaf.items.count >= minLeaf && leaf.items.count <= leafCapacity, "leaf \(node) holds \(leaf.items.count) slots")
                } else {
                    precondition(leaf.items.count <= leafCapacity, "root leaf holds \(leaf.items.count) slots")
                }
                for slot in leaf.items {
                    precondition(
                        Int(slot) < leafOf.count && leafOf[Int(slot)] == node, "slot \(slot) is in leaf \(node) but leafOf says otherwise")
                }
                seen += leaf.items.count
                return leaf.items.count
            }
            let inner = inners[Int(node)]
            precondition(inner.parent == parent, "inner \(node) has parent \(inner.parent), expected \(parent)")
            precondition(inner.children.count == inner.counts.count, "inner \(node) has mismatched children and counts")
            precondition(inner.children.count <= innerCapacity, "inner \(node) has \(inner.children.count) children")
            precondition(inner.children.count >= (parent >= 0 ? minInner : 2), "inner \(node) has only \(inner.children.count) children")
            var total = 0
            for (child, expected) in zip(inner.children, inner.counts) {
                let actual = check(child, level: level - 1, parent: node)
                precondition(actual == expected, "inner \(node) records \(expected) slots under child \(child), which holds \(actual)")
                total += actual
            }
            return total
        }
        let total = check(root, level: height, parent: -1)
        precondition(total == count, "the tree holds \(total) slots but count is \(count)")
        precondition(seen == count)
        for leaf in leafOf where leaf >= 0 { inOrder += 1 }
        precondition(
            inOrder == count, "leafOf names \(inOrder) slots but the order holds \(count): a slot occurs twice or a stale entry remains")
        #endif
    }

    /// Ends an edit: with internal checks compiled in (``InternalChecks``),
    /// runs ``_checkInvariants()`` when one is due; a no-op otherwise.
    @inline(__always)
    mutating func _checkInvariantsAfterEdit() {
        #if LABELSTORE_INTERNAL_CHECKS
        editsChecked &+= 1
        if InternalChecks.isDue(mutation: editsChecked, count: count) { _checkInvariants() }
        #endif
    }
}
