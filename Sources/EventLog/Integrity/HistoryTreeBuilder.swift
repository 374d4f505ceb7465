/// The history tree built one record at a time, holding only its *frontier*:
/// the hashes of the perfect subtrees that cover the records so far, one per
/// set bit of the count, largest (oldest) first — at most 64 hashes whatever
/// the history's length.
///
/// ``head`` is RFC 9162's Merkle Tree Hash of the records appended, so a
/// builder fed the same payloads in the same order gives the same head
/// whatever holds them (a file, a server list, a copy). The frontier is also
/// what continues a tree without the records before it (a checkpoint, the
/// base of an archived log): ``init(count:frontier:)``.
///
/// A value type; not shared between threads while it is being appended to.
public struct HistoryTreeBuilder: Sendable, Hashable, Codable {
    /// The number of records (leaves) appended; the seq of the last one.
    public private(set) var count: UInt64 = 0
    /// The perfect subtrees' hashes, largest first; `frontier.count ==
    /// count.nonzeroBitCount`.
    public private(set) var frontier: [HistoryHash] = []

    /// An empty tree (its head is ``HistoryHash/empty``).
    public init() {}

    /// A tree continued from its frontier after `count` records; `nil` unless
    /// `frontier` has exactly one hash per set bit of `count`.
    public init?(count: UInt64, frontier: [HistoryHash]) {
        guard frontier.count == count.nonzeroBitCount else { return nil }
        self.count = count
        self.frontier = frontier
    }

    /// Appends the record whose payload is `payload`.
    public mutating func append(payload: some Collection<UInt8>) {
        append(leaf: .leaf(payload: payload))
    }

    /// Appends the record whose payload is `payload`.
    package mutating func append(payload: UnsafeRawBufferPointer) {
        append(leaf: .leaf(payload: payload))
    }

    /// Appends a record by its leaf hash (``HistoryHash/leaf(payload:)``).
    public mutating func append(leaf: HistoryHash) {
        var hash = leaf
        var carried = count
        // Each trailing one bit of the count is a subtree of the new leaf's size: merge it.
        while carried & 1 == 1 {
            hash = .node(frontier.removeLast(), hash)
            carried >>= 1
        }
        frontier.append(hash)
        count += 1
    }

    /// Appends `size` records at once by the root of their perfect subtree
    /// (`size` a power of two, and the count a multiple of it, so the records
    /// form one subtree of the tree): the same frontier as appending their
    /// leaves one by one.
    package mutating func append(subtree: HistoryHash, size: UInt64) {
        precondition(size > 0 && size & (size - 1) == 0 && count % size == 0, "a subtree of \(size) records at count \(count)")
        var hash = subtree
        var carried = count / size
        while carried & 1 == 1 {
            hash = .node(frontier.removeLast(), hash)
            carried >>= 1
        }
        frontier.append(hash)
        count += size
    }

    /// The Merkle Tree Hash of the records appended: the subtrees folded from
    /// the smallest (newest) to the largest.
    public var root: HistoryHash {
        guard var hash = frontier.last else { return .empty }
        for subtree in frontier.dropLast().reversed() { hash = .node(subtree, hash) }
        return hash
    }

    /// The head after the last record appended.
    public var head: HistoryHead { HistoryHead(seq: count, hash: root) }
}
