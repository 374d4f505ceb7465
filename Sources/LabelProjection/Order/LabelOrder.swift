/// A sequence of distinct small integers ("slots") with exact positions: a
/// counted B+-tree (an order-statistic tree with wide nodes).
///
/// Leaves hold up to ``leafCapacity`` slots in order; inner nodes hold up to
/// ``innerCapacity`` children with the number of slots under each. Every leaf
/// is at the same depth. `leafOf[slot]` names the leaf holding a slot, so a
/// slot's position is found by scanning its leaf and walking up the parents.
///
/// Complexity, with `n` slots, leaf capacity `L` and fanout `F`
/// (height `h = O(log_F n)`):
/// - ``count``: O(1);
/// - ``subscript(_:)`` (slot at a position): O(h·F);
/// - ``position(of:)``: O(L + h·F);
/// - ``insert(_:at:)``, ``remove(at:)``, ``move(from:to:)``: O(L + h·F), including
///   splits, merges and redistributions (each touches O(1) nodes per level);
/// - ``replace(with:)`` and ``init(_:)``: O(n) bulk build;
/// - ``partitionPoint(where:)``: O((h·log F + log L)·c) where `c` is the predicate's cost.
///
/// Nodes live in arrays addressed by index (no class instances), so copying
/// an order is cheap until one copy is mutated (copy-on-write per array).
struct LabelOrder: Sendable {
    /// One leaf: slots in order and the inner node above it (-1 for the root).
    struct Leaf: Sendable {
        var items: [UInt32] = []
        var parent: Int32 = -1
    }

    /// One inner node: children (leaves at level 1, inner nodes above), the
    /// number of slots under each child, and its parent (-1 for the root).
    struct Inner: Sendable {
        var children: [Int32] = []
        var counts: [Int] = []
        var parent: Int32 = -1
    }

    /// The most slots a leaf holds (a leaf reaching `leafCapacity + 1` splits).
    let leafCapacity: Int
    /// The most children an inner node holds.
    let innerCapacity: Int
    /// The fewest slots a non-root leaf holds.
    var minLeaf: Int { leafCapacity / 4 }
    /// The fewest children a non-root inner node holds.
    var minInner: Int { max(2, innerCapacity / 4) }

    var leaves: [Leaf] = [Leaf()]
    var inners: [Inner] = []
    var freeLeaves: [Int32] = []
    var freeInners: [Int32] = []
    /// `leafOf[slot]`: the leaf holding `slot`, or -1 when it is not in the order.
    var leafOf: [Int32] = []
    /// The root: a leaf index when `height == 0`, else an inner index.
    var root: Int32 = 0
    /// The number of inner levels above the leaves.
    var height = 0
    /// The number of slots (set only by the editing methods).
    var count = 0
    #if LABELSTORE_INTERNAL_CHECKS
    /// Edits so far, to space the internal checks (``InternalChecks``).
    var editsChecked: UInt64 = 0
    #endif

    /// An empty order. Capacities below 4 are raised to 4 (small ones are for tests).
    init(leafCapacity: Int = 256, innerCapacity: Int = 64) {
        self.leafCapacity = max(4, leafCapacity)
        self.innerCapacity = max(4, innerCapacity)
    }

    /// An order holding `slots` (distinct) in this order; O(n).
    init(_ slots: [UInt32], leafCapacity: Int = 256, innerCapacity: Int = 64) {
        self.init(leafCapacity: leafCapacity, innerCapacity: innerCapacity)
        replace(with: slots)
    }

    /// Whether `slot` is in the order (O(1)).
    func contains(_ slot: UInt32) -> Bool {
        Int(slot) < leafOf.count && leafOf[Int(slot)] >= 0
    }

    /// The slot at `position`, which must be in `0..<count`.
    subscript(position: Int) -> UInt32 {
        precondition(position >= 0 && position < count, "position \(position) is outside 0..<\(count)")
        var node = Int(root)
        var p = position
        for _ in 0..<height {
            let child = Self.child(containing: &p, in: inners[node].counts, forInsert: false)
            node = Int(inners[node].children[child])
        }
        return leaves[node].items[p]
    }

    /// The position of `slot`, or `nil` if it is not in the order.
    func position(of slot: UInt32) -> Int? {
        guard contains(slot) else { return nil }
        let leaf = leafOf[Int(slot)]
        var position = leaves[Int(leaf)].items.withUnsafeBufferPointer { items in
            var i = 0
            while items[i] != slot { i += 1 }
            return i
        }
        var child = leaf
        var parent = leaves[Int(leaf)].parent
        while parent >= 0 {
            position += inners[Int(parent)].children.withUnsafeBufferPointer { children in
                inners[Int(parent)].counts.withUnsafeBufferPointer { counts in
                    var before = 0
                    var k = 0
                    while children[k] != child {
                        before += counts[k]
                        k += 1
                    }
                    return before
                }
            }
            child = parent
            parent = inners[Int(parent)].parent
        }
        return position
    }

    /// The slots in order (O(n)).
    var elements: [UInt32] {
        var result: [UInt32] = []
        result.reserveCapacity(count)
        forEachLeaf { result.append(contentsOf: $0) }
        return result
    }

    /// Whether the order is exactly `slots` (O(n)).
    func elementsEqual(_ slots: [UInt32]) -> Bool {
        guard slots.count == count else { return false }
        var i = 0
        var same = true
        forEachLeaf { items in
            guard same else { return }
            for slot in items {
                if slot != slots[i] {
                    same = false
                    return
                }
                i += 1
            }
        }
        return same
    }

    /// Calls `body` with each leaf's slots, in order.
    func forEachLeaf(_ body: ([UInt32]) throws -> Void) rethrows {
        try visit(root, level: height, body)
    }

    private func visit(_ node: Int32, level: Int, _ body: ([UInt32]) throws -> Void) rethrows {
        if level == 0 { return try body(leaves[Int(node)].items) }
        for child in inners[Int(node)].children { try visit(child, level: level - 1, body) }
    }

    /// Up to `limit` slots just before `position` (in `0...count`) that share
    /// its leaf, nearest first: a bounded look at the neighbourhood, O(h·F + limit).
    func neighbours(before position: Int, limit: Int) -> ArraySlice<UInt32> {
        guard position > 0 else { return [] }
        var node = Int(root)
        var p = position - 1
        for _ in 0..<height {
            let child = Self.child(containing: &p, in: inners[node].counts, forInsert: false)
            node = Int(inners[node].children[child])
        }
        let items = leaves[node].items
        return items[max(0, p + 1 - limit)...p]
    }

    /// The first position whose slot satisfies `isAfter`, given that `isAfter`
    /// is false for a prefix of the order and true for the rest (`count` if
    /// it is never true). Calls `isAfter` O(h·log F + log L) times.
    func partitionPoint(where isAfter: (UInt32) -> Bool) -> Int {
        var node = root
        var base = 0
        for level in stride(from: height, to: 0, by: -1) {
            let inner = inners[Int(node)]
            // The first child whose last slot is after; all before it are entirely before.
            var lo = 0, hi = inner.children.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if isAfter(lastSlot(under: inner.children[mid], level: level - 1)) { hi = mid } else { lo = mid + 1 }
            }
            if lo == inner.children.count { return count }
            for k in 0..<lo { base += inner.counts[k] }
            node = inner.children[lo]
        }
        let items = leaves[Int(node)].items
        var lo = 0, hi = items.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if isAfter(items[mid]) { hi = mid } else { lo = mid + 1 }
        }
        return base + lo
    }

    /// The last slot under a non-empty node at `level` (0: a leaf).
    private func lastSlot(under node: Int32, level: Int) -> UInt32 {
        var node = node
        for _ in 0..<level { node = inners[Int(node)].children.last! }
        return leaves[Int(node)].items.last!
    }

    /// The child of a node (given its per-child counts) that holds position `p`,
    /// making `p` relative to that child. For an insert, `p` may equal the
    /// node's total (it then goes to the end of the last child).
    static func child(containing p: inout Int, in counts: [Int], forInsert: Bool) -> Int {
        counts.withUnsafeBufferPointer { counts in
            let last = counts.count - 1
            var k = 0
            while k < last {
                let c = counts[k]
                if p < c || (forInsert && p == c) { return k }
                p -= c
                k += 1
            }
            return last
        }
    }
}
