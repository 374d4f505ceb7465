import CSHA256

/// SHA-256 (FIPS 180-4), the hash of the history tree (``HistoryHead``).
///
/// Foundation has no hash on Linux and the package takes no dependencies, so
/// it is here, written for throughput: whole 64-byte blocks are read straight
/// from the caller's bytes, and compressed by the CPU's SHA instructions when
/// it has them (x86-64's SHA extensions, AArch64's SHA2; the `CSHA256`
/// target), else by portable Swift whose state and schedule live in
/// registers and a stack buffer. The two give the same digests (tested). A value is one
/// incremental hash; it is not thread-safe to share one while updating it
/// (it is a value: each thread hashes its own copy).
package struct SHA256: Sendable {
    private var state: State = SHA256.initialState
    /// Bytes of an unfinished block (fewer than 64).
    private var pending: [UInt8] = []
    /// Bytes hashed so far.
    private var length: UInt64 = 0

    /// The eight 32-bit words of the chaining state.
    package typealias State = (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32)

    package static let initialState: State = (
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19
    )

    /// A hash of nothing yet.
    package init() { pending.reserveCapacity(64) }

    /// Hashes `bytes` after what was hashed before.
    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard var base = bytes.baseAddress, !bytes.isEmpty else { return }
        var remaining = bytes.count
        length &+= UInt64(remaining)
        if !pending.isEmpty {
            let take = min(64 - pending.count, remaining)
            pending.append(contentsOf: UnsafeRawBufferPointer(start: base, count: take))
            base += take
            remaining -= take
            guard pending.count == 64 else { return }
            pending.withUnsafeBytes { Self.compress(&state, $0.baseAddress!) }
            pending.removeAll(keepingCapacity: true)
        }
        if remaining >= 64 {
            Self.compress(&state, base, blocks: remaining / 64)
            base += remaining / 64 * 64
            remaining %= 64
        }
        if remaining > 0 { pending.append(contentsOf: UnsafeRawBufferPointer(start: base, count: remaining)) }
    }

    /// Hashes `bytes` after what was hashed before.
    package mutating func update(_ bytes: some Sequence<UInt8>) {
        let array = Array(bytes)
        array.withUnsafeBytes { update($0) }
    }

    /// The digest of everything hashed (the value is spent: hash no more into it).
    package mutating func finalize() -> HistoryHash {
        let bitLength = length &* 8
        var tail = pending
        tail.append(0x80)
        while tail.count % 64 != 56 { tail.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) { tail.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift))) }
        tail.withUnsafeBytes { Self.compress(&state, $0.baseAddress!, blocks: $0.count / 64) }
        return HistoryHash(state: state)
    }

    /// The digest of `bytes`.
    package static func digest(_ bytes: UnsafeRawBufferPointer) -> HistoryHash {
        var hash = SHA256()
        hash.update(bytes)
        return hash.finalize()
    }

    /// The digest of `bytes`.
    package static func digest(_ bytes: some Sequence<UInt8>) -> HistoryHash {
        let array = Array(bytes)
        return array.withUnsafeBytes { digest($0) }
    }

    /// Whether this CPU's SHA-256 instructions are used.
    package static let usesHardware = csha256_hardware_available() != 0

    /// Compresses `blocks` 64-byte blocks at `data` into `state`.
    @inline(__always)
    package static func compress(_ state: inout State, _ data: UnsafeRawPointer, blocks: Int = 1) {
        if usesHardware {
            withUnsafeMutableBytes(of: &state) { words in
                csha256_hardware_compress(words.baseAddress!.assumingMemoryBound(to: UInt32.self), data, blocks)
            }
        } else {
            for block in 0..<blocks { portableCompress(&state, data + 64 * block) }
        }
    }

    /// Compresses one 64-byte block at `block` into `state`, in Swift.
    package static func portableCompress(_ state: inout State, _ block: UnsafeRawPointer) {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            for i in 0..<16 {
                w[i] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self))
            }
            for i in 16..<64 {
                let x = w[i - 15]
                let y = w[i - 2]
                let s0 = rotate(x, 7) ^ rotate(x, 18) ^ (x >> 3)
                let s1 = rotate(y, 17) ^ rotate(y, 19) ^ (y >> 10)
                w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
            }
            var (a, b, c, d, e, f, g, h) = state
            roundConstants.withUnsafeBufferPointer { k in
                for i in 0..<64 {
                    let s1 = rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25)
                    let choice = g ^ (e & (f ^ g))
                    let t1 = h &+ s1 &+ choice &+ k[i] &+ w[i]
                    let s0 = rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22)
                    let majority = (a & b) | (c & (a | b))
                    let t2 = s0 &+ majority
                    h = g
                    g = f
                    f = e
                    e = d &+ t1
                    d = c
                    c = b
                    b = a
                    a = t1 &+ t2
                }
            }
            state.0 &+= a
            state.1 &+= b
            state.2 &+= c
            state.3 &+= d
            state.4 &+= e
            state.5 &+= f
            state.6 &+= g
            state.7 &+= h
        }
    }

    @inline(__always)
    private static func rotate(_ x: UInt32, _ n: UInt32) -> UInt32 { x >> n | x << (32 &- n) }

    private static let roundConstants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2
    ]
}
