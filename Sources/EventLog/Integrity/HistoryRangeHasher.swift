/// Hashes the subtrees a proof names while the records go by once, in seq
/// order: each range of leaves gets a ``HistoryTreeBuilder`` of its own, and
/// the whole tree one more, so a proof costs one pass over the records and
/// memory for a few dozen frontiers, whatever the history's length.
package struct HistoryRangeHasher {
    private var ranges: [Range<UInt64>]
    private var builders: [HistoryTreeBuilder]
    /// Index into `ranges` of the ranges sorted by start (they never overlap).
    private var order: [Int]
    private var nextInOrder = 0
    /// The tree of every leaf passed.
    package private(set) var whole = HistoryTreeBuilder()

    /// A hasher of `ranges` (leaf numbers from 0), which must not overlap.
    package init(ranges: [Range<UInt64>]) {
        self.ranges = ranges
        builders = Array(repeating: HistoryTreeBuilder(), count: ranges.count)
        order = ranges.indices.sorted { ranges[$0].lowerBound < ranges[$1].lowerBound }
    }

    /// The leaf after the last one passed (0 first).
    package var nextLeaf: UInt64 { whole.count }

    /// Passes the next leaf.
    package mutating func add(leaf: HistoryHash) {
        let number = whole.count
        whole.append(leaf: leaf)
        while nextInOrder < order.count, ranges[order[nextInOrder]].upperBound <= number { nextInOrder += 1 }
        if nextInOrder < order.count, ranges[order[nextInOrder]].contains(number) {
            builders[order[nextInOrder]].append(leaf: leaf)
        }
    }

    /// The hashes of the ranges, in the order given; `nil` until every leaf
    /// of every range was passed.
    package var hashes: [HistoryHash]? {
        for (index, range) in ranges.enumerated() where builders[index].count != range.upperBound - range.lowerBound {
            return nil
        }
        return builders.map(\.root)
    }
}
