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
/// - The hash is Swift's seeded `Hasher`, so bytes chosen to collide (a crafted
///   file) cannot make lookups quadratic; the entries' order, and so every
///   byte the codec writes, does not depend on it.
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

    /// An empty table.
    init() {}

    /// The number of entries.
    var count: Int { entries.count }

    /// Where entry `k` (`0..<count`) is in the buffer.
    @inline(__always)
    func entry(_ k: Int) -> (start: Int, length: Int) {
        let e = entries[k]
        return (e.start, e.length)
    }

    /// The hash of `bytes`, to pass to ``find(_:hash:in:)`` and ``append(start:length:hash:)``.
    /// A label id (16 bytes) is hashed as two words.
    @inline(__always)
    static func hash(_ bytes: UnsafeRawBufferPointer) -> Int {
        var hasher = Hasher()
        if bytes.count == 16 {
            hasher.combine(bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self))
            hasher.combine(bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        } else {
            hasher.combine(bytes: bytes)
        }
        return hasher.finalize()
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
