import CSHA256

/// Many leaves and nodes at once, two SHA-256 streams at a time
/// (`csha256_hardware_compress2`): with the CPU's SHA instructions one
/// stream waits on their latency, two keep them busy. The same hashes as
/// ``HistoryHash/leaf(payload:)-(UnsafeRawBufferPointer)`` and
/// ``HistoryHash/node(_:_:)`` one by one (tested against them).
extension HistoryHash {
    /// The largest message hashed two at a time (longer ones are hashed alone).
    private static let pairedBlocks = 4

    /// Writes the leaf hash of each of `count` payloads to `out`: payload `i`
    /// is the bytes `bytes[offsets[i] ..< offsets[i + 1]]`.
    package static func leaves(
        _ bytes: UnsafeRawPointer, offsets: UnsafePointer<Int>, count: Int, into out: UnsafeMutablePointer<HistoryHash>
    ) {
        guard SHA256.usesHardware else {
            for i in 0..<count {
                out[i] = .leaf(payload: UnsafeRawBufferPointer(start: bytes + offsets[i], count: offsets[i + 1] - offsets[i]))
            }
            return
        }
        withUnsafeTemporaryAllocation(byteCount: 2 * 64 * pairedBlocks, alignment: 16) { buffer in
            let a = buffer.baseAddress!
            let b = a + 64 * pairedBlocks
            var i = 0
            while i < count {
                let lengthA = offsets[i + 1] - offsets[i]
                let blocksA = (1 + lengthA + 9 + 63) / 64
                if i + 1 < count {
                    let lengthB = offsets[i + 2] - offsets[i + 1]
                    if blocksA <= pairedBlocks && (1 + lengthB + 9 + 63) / 64 == blocksA {
                        pad(0x00, bytes + offsets[i], lengthA, into: a, blocks: blocksA)
                        pad(0x00, bytes + offsets[i + 1], lengthB, into: b, blocks: blocksA)
                        (out[i], out[i + 1]) = compressPair(a, b, blocks: blocksA)
                        i += 2
                        continue
                    }
                }
                out[i] = .leaf(payload: UnsafeRawBufferPointer(start: bytes + offsets[i], count: lengthA))
                i += 1
            }
        }
    }

    /// The root of the perfect subtree whose `count` leaves (a power of two)
    /// are at `hashes`; the buffer is overwritten level by level.
    package static func perfectRoot(_ hashes: UnsafeMutablePointer<HistoryHash>, count: Int) -> HistoryHash {
        precondition(count > 0 && count & (count - 1) == 0, "a perfect subtree has a power of two leaves")
        var width = count
        withUnsafeTemporaryAllocation(byteCount: 256, alignment: 16) { buffer in
            let a = buffer.baseAddress!
            let b = a + 128
            while width > 1 {
                var pair = 0
                while pair < width / 2 {
                    if SHA256.usesHardware && pair + 1 < width / 2 {
                        nodeBlocks(hashes[2 * pair], hashes[2 * pair + 1], into: a)
                        nodeBlocks(hashes[2 * pair + 2], hashes[2 * pair + 3], into: b)
                        (hashes[pair], hashes[pair + 1]) = compressPair(a, b, blocks: 2)
                        pair += 2
                    } else {
                        hashes[pair] = .node(hashes[2 * pair], hashes[2 * pair + 1])
                        pair += 1
                    }
                }
                width /= 2
            }
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

    /// The SHA-256 of the padded messages at `a` and `b`, `blocks` blocks each, interleaved.
    @inline(__always)
    private static func compressPair(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, blocks: Int) -> (HistoryHash, HistoryHash) {
        var stateA = SHA256.initialState
        var stateB = SHA256.initialState
        withUnsafeMutableBytes(of: &stateA) { wordsA in
            withUnsafeMutableBytes(of: &stateB) { wordsB in
                csha256_hardware_compress2(
                    wordsA.baseAddress!.assumingMemoryBound(to: UInt32.self), a, wordsB.baseAddress!.assumingMemoryBound(to: UInt32.self),
                    b, blocks)
            }
        }
        return (HistoryHash(state: stateA), HistoryHash(state: stateB))
    }
}
