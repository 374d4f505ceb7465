import CSHA256

/// Many leaves and nodes at once, three SHA-256 streams at a time
/// (`csha256_hardware_compress_many`): with the CPU's SHA instructions one
/// stream waits on their latency, three keep them busy. The same hashes as
/// ``HistoryHash/leaf(payload:)-(UnsafeRawBufferPointer)`` and
/// ``HistoryHash/node(_:_:)`` one by one (tested against them).
extension HistoryHash {
    /// The longest message (in blocks) hashed with others; longer ones are hashed alone.
    package static let batchedBlocks = 4
    /// Messages padded before one call of the C target hashes them together.
    fileprivate static let batch = 24

    /// Writes the leaf hash of each of `count` payloads to `out`: payload `i`
    /// is the bytes `bytes[offsets[i] ..< offsets[i + 1]]`.
    ///
    /// Leaves of the same length in blocks are hashed together: each length
    /// of one to ``batchedBlocks`` blocks has a staging area of ``batch``
    /// padded messages, hashed when it is full and at the end. Without the
    /// CPU's SHA instructions (or with `hardware` false, as the tests do)
    /// each leaf is hashed alone.
    package static func leaves(
        _ bytes: UnsafeRawPointer, offsets: UnsafePointer<Int>, count: Int, into out: UnsafeMutablePointer<HistoryHash>,
        hardware: Bool = SHA256.usesHardware
    ) {
        guard hardware && SHA256.usesHardware else {
            for i in 0..<count {
                out[i] = .leaf(payload: UnsafeRawBufferPointer(start: bytes + offsets[i], count: offsets[i + 1] - offsets[i]))
            }
            return
        }
        let staging = LeafStaging()
        defer { staging.deallocate() }
        for i in 0..<count {
            let length = offsets[i + 1] - offsets[i]
            let blocks = (1 + length + 9 + 63) / 64
            guard blocks <= batchedBlocks else {
                out[i] = .leaf(payload: UnsafeRawBufferPointer(start: bytes + offsets[i], count: length))
                continue
            }
            let slot = staging.counts[blocks - 1]
            pad(0x00, bytes + offsets[i], length, into: staging.message(blocks: blocks, slot: slot), blocks: blocks)
            staging.targets[(blocks - 1) * batch + slot] = i
            staging.counts[blocks - 1] = slot + 1
            if slot + 1 == batch { staging.flush(blocks: blocks, into: out) }
        }
        for blocks in 1...batchedBlocks { staging.flush(blocks: blocks, into: out) }
    }

    /// The root of the perfect subtree whose `count` leaves (a power of two)
    /// are at `hashes`; the buffer is overwritten level by level (each node
    /// of a level where the first of its two children was). Nodes are hashed
    /// ``batch`` at a time, or one by one as ``leaves(_:offsets:count:into:hardware:)`` says.
    package static func perfectRoot(
        _ hashes: UnsafeMutablePointer<HistoryHash>, count: Int, hardware: Bool = SHA256.usesHardware
    ) -> HistoryHash {
        precondition(count > 0 && count & (count - 1) == 0, "a perfect subtree has a power of two leaves")
        guard hardware && SHA256.usesHardware else {
            var width = count
            while width > 1 {
                for pair in 0..<width / 2 { hashes[pair] = .node(hashes[2 * pair], hashes[2 * pair + 1]) }
                width /= 2
            }
            return hashes[0]
        }
        let messages = UnsafeMutableRawPointer.allocate(byteCount: 128 * batch, alignment: 16)
        defer { messages.deallocate() }
        var width = count
        while width > 1 {
            var first = 0
            while first < width / 2 {
                // Nodes first ..< first + n: their children are copied out before any is overwritten.
                let n = min(batch, width / 2 - first)
                for j in 0..<n { nodeBlocks(hashes[2 * (first + j)], hashes[2 * (first + j) + 1], into: messages + 128 * j) }
                compress(messages, stride: 128, count: n, blocks: 2) { j, hash in hashes[first + j] = hash }
                first += n
            }
            width /= 2
        }
        return hashes[0]
    }

    /// `prefix` then `length` bytes at `source`, padded to `blocks` blocks at `base`.
    @inline(__always)
    private static func pad(_ prefix: UInt8, _ source: UnsafeRawPointer, _ length: Int, into base: UnsafeMutableRawPointer, blocks: Int) {
        let total = 1 + length
        base.storeBytes(of: prefix, as: UInt8.self)
        (base + 1).copyMemory(from: source, byteCount: length)
        (base + total).initializeMemory(as: UInt8.self, repeating: 0, count: 64 * blocks - total)
        base.storeBytes(of: 0x80, toByteOffset: total, as: UInt8.self)
        base.storeBytes(of: (UInt64(total) &* 8).bigEndian, toByteOffset: 64 * blocks - 8, as: UInt64.self)
    }

    /// Hashes the `count` (at most ``batch``) padded messages of `blocks`
    /// blocks each at `messages`, `stride` bytes apart, and passes each
    /// message's number and digest to `body`.
    @inline(__always)
    fileprivate static func compress(
        _ messages: UnsafeRawPointer, stride: Int, count: Int, blocks: Int, _ body: (Int, HistoryHash) -> Void
    ) {
        guard count > 0 else { return }
        withUnsafeTemporaryAllocation(of: SIMD8<UInt32>.self, capacity: batch) { states in
            withUnsafeTemporaryAllocation(of: UnsafeRawPointer?.self, capacity: batch) { data in
                let initial = HistoryHash(state: SHA256.initialState).words
                for j in 0..<count {
                    states[j] = initial
                    data[j] = messages + stride * j
                }
                UnsafeMutableRawPointer(states.baseAddress!).withMemoryRebound(to: UInt32.self, capacity: 8 * count) { words in
                    csha256_hardware_compress_many(words, data.baseAddress!, count, blocks)
                }
                for j in 0..<count { body(j, HistoryHash(words: states[j])) }
            }
        }
    }

    /// The hash whose digest words are `words`.
    fileprivate init(words: SIMD8<UInt32>) { self.words = words }
}

/// The padded leaves ``HistoryHash/leaves(_:offsets:count:into:)`` has not
/// hashed yet, by their length in blocks: up to `batch` messages of each
/// length and the index of the leaf each is. One per call, on its thread.
private struct LeafStaging {
    private static var batch: Int { HistoryHash.batch }
    private static var lengths: Int { HistoryHash.batchedBlocks }
    /// The messages of `b` blocks start at `64 * batch * (b - 1) * b / 2`, `64 * b` bytes apart.
    let messages: UnsafeMutableRawPointer
    /// The leaf index of message `slot` of `b` blocks: `targets[(b - 1) * batch + slot]`.
    let targets: UnsafeMutablePointer<Int>
    /// How many messages of each length are staged.
    let counts: UnsafeMutablePointer<Int>

    init() {
        messages = .allocate(byteCount: 64 * Self.batch * Self.lengths * (Self.lengths + 1) / 2, alignment: 16)
        targets = .allocate(capacity: Self.batch * Self.lengths)
        counts = .allocate(capacity: Self.lengths)
        counts.initialize(repeating: 0, count: Self.lengths)
    }

    /// Where staged message `slot` of `blocks` blocks goes.
    @inline(__always)
    func message(blocks: Int, slot: Int) -> UnsafeMutableRawPointer {
        messages + 64 * Self.batch * (blocks - 1) * blocks / 2 + 64 * blocks * slot
    }

    /// Hashes the staged messages of `blocks` blocks into their leaves in `out`.
    func flush(blocks: Int, into out: UnsafeMutablePointer<HistoryHash>) {
        let targets = self.targets + (blocks - 1) * Self.batch
        HistoryHash.compress(message(blocks: blocks, slot: 0), stride: 64 * blocks, count: counts[blocks - 1], blocks: blocks) { j, hash in
            out[targets[j]] = hash
        }
        counts[blocks - 1] = 0
    }

    func deallocate() {
        messages.deallocate()
        targets.deallocate()
        counts.deallocate()
    }
}
