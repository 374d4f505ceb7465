/// A list of small integers kept in blocks, so that inserting or removing
/// at any position costs O(√n) instead of O(n).
///
/// The event generator uses it as its model of the label order: a stream of
/// a million events grows the list to ~100,000 labels (ten million events: a
/// million), where a plain array's shifting would dominate generation time.
struct ChunkedList {
    /// The most elements a block holds before it is split in two.
    static let blockCapacity = 1024

    private var blocks: [[Int32]] = []
    private var counts: [Int] = []
    /// The number of elements.
    private(set) var count = 0

    /// Creates an empty list.
    init() {}

    /// The element at `index` (`0..<count`).
    subscript(index: Int) -> Int32 {
        let (b, offset) = locate(index)
        return blocks[b][offset]
    }

    /// Inserts `value` so that it ends up at `index` (`0...count`).
    mutating func insert(_ value: Int32, at index: Int) {
        precondition(index >= 0 && index <= count, "insert position out of range")
        if blocks.isEmpty {
            blocks.append([value])
            counts.append(1)
            count = 1
            return
        }
        let b: Int
        let offset: Int
        if index == count {
            b = blocks.count - 1
            offset = counts[b]
        } else {
            (b, offset) = locate(index)
        }
        blocks[b].insert(value, at: offset)
        counts[b] += 1
        count += 1
        if counts[b] > Self.blockCapacity {
            let half = counts[b] / 2
            let tail = Array(blocks[b][half...])
            blocks[b].removeSubrange(half...)
            counts[b] = half
            blocks.insert(tail, at: b + 1)
            counts.insert(tail.count, at: b + 1)
        }
    }

    /// Removes and returns the element at `index` (`0..<count`).
    @discardableResult
    mutating func remove(at index: Int) -> Int32 {
        let (b, offset) = locate(index)
        let value = blocks[b].remove(at: offset)
        counts[b] -= 1
        count -= 1
        if counts[b] == 0 {
            blocks.remove(at: b)
            counts.remove(at: b)
        }
        return value
    }

    /// All elements in order (for tests).
    var elements: [Int32] { blocks.flatMap { $0 } }

    private func locate(_ index: Int) -> (block: Int, offset: Int) {
        precondition(index >= 0 && index < count, "index out of range")
        var rest = index
        return counts.withUnsafeBufferPointer { c in
            var b = 0
            while rest >= c[b] {
                rest -= c[b]
                b += 1
            }
            return (b, rest)
        }
    }
}
