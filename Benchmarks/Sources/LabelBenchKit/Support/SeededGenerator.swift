/// A small, fast, seeded random number generator (xoshiro256**, seeded
/// through SplitMix64).
///
/// The benchmark's event stream must be the same on every machine and with
/// every toolchain, so this type also provides its own bounded draws
/// (``below(_:)``, ``percent(_:)``) instead of the standard library's
/// `random(in:using:)`, whose algorithm is not guaranteed to stay the same.
struct SeededGenerator: RandomNumberGenerator {
    private var s0: UInt64
    private var s1: UInt64
    private var s2: UInt64
    private var s3: UInt64

    /// Creates a generator whose whole output is determined by `seed`.
    init(seed: UInt64) {
        var x = seed
        func splitMix() -> UInt64 {
            x &+= 0x9E37_79B9_7F4A_7C15
            var z = x
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        s0 = splitMix()
        s1 = splitMix()
        s2 = splitMix()
        s3 = splitMix()
    }

    /// The next 64 random bits.
    mutating func next() -> UInt64 {
        let result = rotate(s1 &* 5, 7) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = rotate(s3, 45)
        return result
    }

    /// A uniform integer in `0..<bound` (`bound > 0`), by Lemire's unbiased multiply-shift.
    mutating func below(_ bound: Int) -> Int {
        precondition(bound > 0, "below(_:) needs a positive bound")
        let b = UInt64(bound)
        var product = b.multipliedFullWidth(by: next())
        if product.low < b {
            let threshold = (0 &- b) % b
            while product.low < threshold {
                product = b.multipliedFullWidth(by: next())
            }
        }
        return Int(product.high)
    }

    /// A uniform integer in `range`.
    mutating func between(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + below(range.upperBound - range.lowerBound + 1)
    }

    /// `true` with a probability of `percent` in 100.
    mutating func percent(_ percent: Int) -> Bool {
        below(100) < percent
    }

    private func rotate(_ x: UInt64, _ k: UInt64) -> UInt64 {
        (x << k) | (x >> (64 - k))
    }
}
