/// Prefix sums over `0..<n` with point updates, both O(log n).
struct FenwickTree {
    private var tree: [Int]

    /// A tree of `n` ones.
    init(ones n: Int) {
        tree = [Int](repeating: 0, count: n + 1)
        for i in 1...max(1, n) where i <= n {
            tree[i] += 1
            let parent = i + (i & -i)
            if parent <= n { tree[parent] += tree[i] }
        }
    }

    /// The sum of the values at `0..<end`.
    func prefixSum(_ end: Int) -> Int {
        var i = end, sum = 0
        while i > 0 {
            sum += tree[i]
            i -= i & -i
        }
        return sum
    }

    /// Adds `delta` to the value at `index`.
    mutating func add(_ delta: Int, at index: Int) {
        var i = index + 1
        while i < tree.count {
            tree[i] += delta
            i += i & -i
        }
    }
}
