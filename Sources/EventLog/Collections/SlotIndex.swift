/// An id → number hash table (a `LabelList`'s id → slot, a history index's
/// label numbering): open addressing with linear probing over one array of
/// 8-byte buckets.
///
/// A bucket is `0` (empty) or `(hash tag << 32) | (slot + 1)`; the key itself
/// is read from the list's slot storage, so a bucket costs 8 bytes (about
/// 9–18 bytes per id at the load factors used, `(7/16, 7/8]`), against
/// 20–40 for a `Dictionary<LabelID, UInt32>`. Ids are never deleted (a
/// removed label keeps its slot as a tombstone), so probing needs no
/// deletion markers. Hashing (``hash(_:)``) is a folded 64×64→128-bit
/// multiply of the id's two halves, each mixed with a per-process random
/// key: a few cycles instead of SipHash's dozens, and, since the keys are
/// secret, crafted ids cannot aim for long probe sequences.
///
/// Complexity: ``find(_:ids:)`` and ``insert(_:slot:ids:)`` are expected O(1);
/// growth rehashes in O(n), amortized O(1) per insert.
package struct SlotIndex: Sendable {
    /// The per-process random keys of ``hash(_:)``.
    private static let keys: (UInt64, UInt64) = {
        var rng = SystemRandomNumberGenerator()
        return (rng.next() | 1, rng.next() | 1)
    }()

    /// The id's 64-bit hash: its two 64-bit halves, each xored with a key,
    /// multiplied to 128 bits, folded by xor (the "mum" mix of wyhash).
    @inline(__always)
    package static func hash(_ id: LabelID) -> UInt64 {
        let (a, b) = withUnsafeBytes(of: id.uuid.uuid) { raw in
            (raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self), raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        }
        let keys = Self.keys
        let product = (a ^ keys.0).multipliedFullWidth(by: b ^ keys.1)
        return product.high ^ product.low
    }

    private var buckets: [UInt64] = []

    /// An empty table.
    package init() {}
    /// The number of ids in the table.
    package private(set) var count = 0

    /// The slot of `id`, or `nil`. `ids(slot)` gives the id stored at a slot.
    @inline(__always)
    package func find(_ id: LabelID, ids: (UInt32) -> LabelID) -> UInt32? {
        guard !buckets.isEmpty else { return nil }
        let hash = Self.hash(id)
        let tag = hash >> 32
        let mask = buckets.count - 1
        var i = Int(truncatingIfNeeded: hash) & mask
        return buckets.withUnsafeBufferPointer { table in
            while true {
                let bucket = table[i]
                if bucket == 0 { return nil }
                if bucket >> 32 == tag {
                    let slot = UInt32(truncatingIfNeeded: bucket) - 1
                    if ids(slot) == id { return slot }
                }
                i = (i + 1) & mask
            }
        }
    }

    /// Adds `id` (not yet in the table) at `slot`.
    package mutating func insert(_ id: LabelID, slot: UInt32, ids: (UInt32) -> LabelID) {
        if (count + 1) * 8 > buckets.count * 7 { grow(ids: ids) }
        place(hash: Self.hash(id), slot: slot)
        count += 1
    }

    /// Removes `id` (which must be in the table), shifting later entries of its
    /// probe run back so that every lookup still finds them (no tombstones).
    package mutating func remove(_ id: LabelID, ids: (UInt32) -> LabelID) {
        let mask = buckets.count - 1
        let hash = Self.hash(id)
        var hole = Int(truncatingIfNeeded: hash) & mask
        while true {
            let bucket = buckets[hole]
            precondition(bucket != 0, "removing an id that is not in the index")
            if bucket >> 32 == hash >> 32, ids(UInt32(truncatingIfNeeded: bucket) - 1) == id { break }
            hole = (hole + 1) & mask
        }
        buckets[hole] = 0
        count -= 1
        var next = hole
        while true {
            next = (next + 1) & mask
            let bucket = buckets[next]
            if bucket == 0 { return }
            let home = Int(truncatingIfNeeded: Self.hash(ids(UInt32(truncatingIfNeeded: bucket) - 1))) & mask
            // The entry may move into the hole unless its home lies cyclically in (hole, next].
            let stays = hole <= next ? (home > hole && home <= next) : (home > hole || home <= next)
            if !stays {
                buckets[hole] = bucket
                buckets[next] = 0
                hole = next
            }
        }
    }

    /// A table of slots `0..<n` (``build(count:ids:)``) and a slot whose id an
    /// earlier slot already has, if any.
    package static func built(count n: Int, ids: (UInt32) -> LabelID) -> (index: SlotIndex, duplicate: UInt32?) {
        var index = SlotIndex()
        let duplicate = index.build(count: n, ids: ids)
        return (index, duplicate)
    }

    /// Replaces the table with slots `0..<n` (bulk load, O(n)). Slots are
    /// placed in bucket order (a counting sort on the bucket's high bits), so
    /// the table is written nearly sequentially instead of at random. Returns
    /// a slot whose id an earlier slot already has, or `nil` when all are distinct.
    package mutating func build(count n: Int, ids: (UInt32) -> LabelID) -> UInt32? {
        var capacity = 16
        while n * 8 > capacity * 7 { capacity *= 2 }
        buckets = [UInt64](repeating: 0, count: capacity)
        count = 0
        guard n > 0 else { return nil }
        let mask = capacity - 1
        let shift = max(0, capacity.trailingZeroBitCount - 11)  // 2,048 groups: the scatter's write streams stay in cache
        var hashes = [UInt64](repeating: 0, count: n)
        var starts = [Int](repeating: 0, count: (mask >> shift) + 2)
        for i in 0..<n {
            let hash = Self.hash(ids(UInt32(i)))
            hashes[i] = hash
            starts[((Int(truncatingIfNeeded: hash) & mask) >> shift) + 1] += 1
        }
        for b in 1..<starts.count { starts[b] += starts[b - 1] }
        // Scatter each slot's finished bucket value and its home index into
        // bucket order, so the placing pass below reads both sequentially.
        var entries = [UInt64](repeating: 0, count: n)
        var homes = [UInt32](repeating: 0, count: n)
        for i in 0..<n {
            let hash = hashes[i]
            let home = Int(truncatingIfNeeded: hash) & mask
            let k = starts[home >> shift]
            entries[k] = (hash >> 32) << 32 | UInt64(i + 1)
            homes[k] = UInt32(truncatingIfNeeded: home)
            starts[home >> shift] = k + 1
        }
        hashes = []
        return buckets.withUnsafeMutableBufferPointer { table -> UInt32? in
            for k in 0..<n {
                let entry = entries[k]
                var i = Int(homes[k])
                while table[i] != 0 {
                    if table[i] >> 32 == entry >> 32 {
                        let other = UInt32(truncatingIfNeeded: table[i]) - 1, slot = UInt32(truncatingIfNeeded: entry) - 1
                        if ids(other) == ids(slot) { return max(slot, other) }
                    }
                    i = (i + 1) & mask
                }
                table[i] = entry
                count += 1
            }
            return nil
        }
    }

    private mutating func grow(ids: (UInt32) -> LabelID) {
        rehash(capacity: max(16, buckets.count * 2), ids: ids)
    }

    private mutating func rehash(capacity: Int, ids: (UInt32) -> LabelID) {
        let old = buckets
        buckets = [UInt64](repeating: 0, count: capacity)
        for bucket in old where bucket != 0 {
            let slot = UInt32(truncatingIfNeeded: bucket) - 1
            place(hash: Self.hash(ids(slot)), slot: slot)
        }
    }

    private mutating func place(hash: UInt64, slot: UInt32) {
        let mask = buckets.count - 1
        var i = Int(truncatingIfNeeded: hash) & mask
        buckets.withUnsafeMutableBufferPointer { table in
            while table[i] != 0 { i = (i + 1) & mask }
            table[i] = (hash >> 32) << 32 | UInt64(slot + 1)
        }
    }

    /// Traps unless the table holds exactly `slots` ids, each findable at its own slot (debug only).
    package func _checkInvariants(slotCount: Int, ids: (UInt32) -> LabelID) {
        #if DEBUG
        precondition(count == slotCount, "the index holds \(count) ids for \(slotCount) slots")
        precondition(buckets.isEmpty || count * 8 <= buckets.count * 7, "the index is over its load factor")
        for slot in 0..<UInt32(slotCount) {
            precondition(find(ids(slot), ids: ids) == slot, "id of slot \(slot) is not found at that slot")
        }
        #endif
    }
}
