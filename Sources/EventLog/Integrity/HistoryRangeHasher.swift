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

    /// A hasher of `ranges` whose first `start.count` leaves are known only
    /// by `start`'s frontier (a based log's base): the leaves passed are
    /// those after them. A range's part before them is taken from the
    /// frontier's perfect subtrees, which must tile it exactly; `nil` when
    /// one does not (that range needs the leaves themselves: the archive).
    ///
    /// Every range a proof names about leaves from `start.count` on, or
    /// between heads of at least `start.count` leaves, is tiled: a subtree
    /// of the history tree that starts before `start.count` and ends after it
    /// starts at a multiple of a power of two above its size, so at the end
    /// of one of the frontier's subtrees.
    package init?(ranges: [Range<UInt64>], start: HistoryTreeBuilder) {
        self.init(ranges: ranges)
        whole = start
        // The frontier's subtrees, as leaf ranges: largest (oldest) first.
        var blocks: [(range: Range<UInt64>, hash: HistoryHash)] = []
        var low: UInt64 = 0
        for (bit, hash) in zip(Self.setBitsDescending(start.count), start.frontier) {
            blocks.append((low..<low + bit, hash))
            low += bit
        }
        for (index, range) in ranges.enumerated() where range.lowerBound < start.count {
            let known = range.lowerBound..<min(range.upperBound, start.count)
            let inside = blocks.filter { known.contains($0.range.lowerBound) }
            guard inside.first?.range.lowerBound == known.lowerBound, inside.last?.range.upperBound == known.upperBound,
                let builder = HistoryTreeBuilder(count: UInt64(known.count), frontier: inside.map(\.hash))
            else { return nil }
            builders[index] = builder
        }
    }

    /// The powers of two that sum to `count`, largest first.
    private static func setBitsDescending(_ count: UInt64) -> [UInt64] {
        (0..<64).reversed().compactMap { bit in count & (1 << UInt64(bit)) != 0 ? 1 << UInt64(bit) : nil }
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
