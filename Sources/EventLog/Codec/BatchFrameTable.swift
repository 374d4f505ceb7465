import Foundation

/// One table of a batch frame — its ids, its strings or its title words
/// (docs/FORMAT.md, "Batch frames (version 4)", "Tables and codes"): the
/// entries in the order of their first appearance, each a run of bytes inside
/// a buffer the caller holds (the body being read, or the body being
/// written), with a hash index that finds an entry by its bytes.
///
/// - Bytes, not text: entries are compared byte for byte, never as `String`s,
///   whose `==` is Unicode canonical equivalence and would make `é` and
///   `e` + U+0301 one entry (and the codec lossy).
/// - The table keeps offsets, not pointers: every call that reads entries is
///   passed the buffer, which may have moved since (a growing output), as long
///   as each entry's offsets still hold its bytes.
/// - The hash is keyed by a random key drawn once per process, so bytes
///   chosen to share slots (a crafted file) cannot be written in advance (a
///   keyed mix, not a cryptographic hash: at worst such a body slows its own
///   decoding). The entries' order, and so every byte the codec writes, does
///   not depend on it.
struct BatchFrameTable {
    /// Where an entry's bytes are, and their hash.
    private struct Entry {
        /// The offset of the first byte in the buffer.
        var start: Int
        /// The number of bytes.
        var length: Int
        /// ``BatchFrameTable/hash(_:)`` of the bytes.
        var hash: Int
    }

    /// The entries, entry `k` at index `k`.
    private var entries: [Entry] = []
    /// The open-addressing index: 0 for an empty slot, else an entry's index + 1.
    /// Its count is zero or a power of two, at least twice the entries'.
    private var slots: [Int32] = []

    /// This process's hash key: drawn once, so which bytes share a slot differs from run to run.
    private static let processKey: (UInt64, UInt64) = {
        var random = SystemRandomNumberGenerator()
        return (random.next(), random.next())
    }()
    /// ``processKey``, kept in the table so a hash does not check the static's initialization.
    private let key: (UInt64, UInt64)

    /// An empty table, with room for `expectedCount` entries before it grows.
    init(expectedCount: Int = 0) {
        key = Self.processKey
        guard expectedCount > 0 else { return }
        entries.reserveCapacity(expectedCount)
        slots = [Int32](repeating: 0, count: max(16, 1 << (Int.bitWidth - (2 * expectedCount - 1).leadingZeroBitCount)))
    }

    /// The number of entries.
    var count: Int { entries.count }

    /// Where entry `k` (`0..<count`) is in the buffer.
    @inline(__always)
    func entry(_ k: Int) -> (start: Int, length: Int) {
        let e = entries[k]
        return (e.start, e.length)
    }

    /// The hash of `bytes`, to pass to ``find(_:hash:in:)`` and
    /// ``append(start:length:hash:)``: the length and the key, then each
    /// eight bytes (the last ones padded with zeros), mixed by SplitMix64's
    /// finalizer. A label id is two rounds.
    @inline(__always)
    func hash(_ bytes: UnsafeRawBufferPointer) -> Int {
        let n = bytes.count
        var h = Self.mix(key.0 ^ UInt64(truncatingIfNeeded: n))
        var i = 0
        while i &+ 8 <= n {
            h = Self.mix(h ^ bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            i &+= 8
        }
        if i < n {
            var tail: UInt64 = 0
            for j in i..<n { tail |= UInt64(bytes[j]) &<< (8 &* (j &- i)) }
            h = Self.mix(h ^ tail)
        }
        return Int(truncatingIfNeeded: Self.mix(h ^ key.1))
    }

    /// SplitMix64's finalizer: a bijection of 64 bits whose every output bit depends on every input bit.
    @inline(__always)
    private static func mix(_ x: UInt64) -> UInt64 {
        var z = x
        z = (z ^ (z &>> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z &>> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z &>> 31)
    }

    /// The entry that holds exactly `bytes`, or `nil`. `hash` is
    /// ``hash(_:)`` of `bytes`; `buffer` holds the entries' bytes.
    func find(_ bytes: UnsafeRawBufferPointer, hash: Int, in buffer: UnsafeRawBufferPointer) -> Int? {
        guard !slots.isEmpty else { return nil }
        let mask = slots.count &- 1
        var slot = hash & mask
        while true {
            let stored = Int(slots[slot])
            if stored == 0 { return nil }
            let e = entries[stored &- 1]
            if e.hash == hash && e.length == bytes.count && Self.same(bytes, buffer, at: e.start) { return stored &- 1 }
            slot = (slot &+ 1) & mask
        }
    }

    /// Adds an entry: `length` bytes at `start` in the buffer, whose hash is
    /// `hash`. The caller has found no entry with these bytes (``find(_:hash:in:)``).
    mutating func append(start: Int, length: Int, hash: Int) {
        if (entries.count &+ 1) &* 2 > slots.count { grow() }
        entries.append(Entry(start: start, length: length, hash: hash))
        place(entries.count, hash: hash)
    }

    /// Puts `stored` (an entry's index + 1) in the first empty slot from its hash's.
    private mutating func place(_ stored: Int, hash: Int) {
        let mask = slots.count &- 1
        var slot = hash & mask
        while slots[slot] != 0 { slot = (slot &+ 1) & mask }
        slots[slot] = Int32(truncatingIfNeeded: stored)
    }

    /// Doubles the index (at least 16 slots) and places every entry again.
    private mutating func grow() {
        slots = [Int32](repeating: 0, count: max(16, slots.count &* 2))
        for (k, e) in entries.enumerated() { place(k &+ 1, hash: e.hash) }
    }

    /// Whether `bytes` equal the `bytes.count` bytes of `buffer` at `start`.
    @inline(__always)
    private static func same(_ bytes: UnsafeRawBufferPointer, _ buffer: UnsafeRawBufferPointer, at start: Int) -> Bool {
        let n = bytes.count
        guard n > 0 else { return true }
        return memcmp(bytes.baseAddress!, buffer.baseAddress! + start, n) == 0
    }
}
