/// The compression of the titles in `LOG.checkpoints` (format 5): an LZ77
/// block codec in the manner of the LZ4 block format — literal runs and
/// back-references, no entropy coding — chosen because it decodes at memory
/// speed, and a checkpoint read decodes the titles of up to 16 images.
///
/// ## Format (docs/SNAPSHOTS.md, "Compressed titles")
/// A compressed block is a series of *sequences*. Each starts with a token
/// byte: its high 4 bits *L* give the literal count, its low 4 bits *M* the
/// match length minus 4. When *L* is 15, bytes follow that are added to it,
/// each 0–255, the last one below 255; then come the *L* literal bytes. Unless
/// the block ends right there, a match follows: a 2-byte little-endian offset
/// (1–65,535: how far back in the output the copy starts; it may be shorter
/// than the length, which repeats the bytes) and, when *M* is 15, bytes added
/// to the length as for the literals. The block ends after the literals of
/// its last sequence, exactly where the output is full; an empty input is
/// the single token `0x00`.
///
/// Incompressible input grows by at most `n / 255 + 16` bytes.
///
/// Decoding never reads or writes out of bounds, whatever the bytes: a
/// truncated sequence, an offset of 0 or before the output's start, a length
/// that overruns the output, a block that ends early or goes on after the
/// output is full each throw a ``Failure`` naming the byte offset.
enum TitleCompression {
    /// Why a block does not decode: ``message`` names the byte offset in the
    /// compressed block and what was wrong there.
    struct Failure: Error, Sendable, Equatable {
        let message: String
    }

    /// The shortest match encoded (shorter repeats are left as literals).
    static let minimumMatch = 4
    /// The farthest back a match may start.
    static let maximumOffset = 65_535
    /// log2 of the compressor's hash table size (4-byte sequences → last position).
    private static let hashBits = 14

    /// The worst-case size of the compressed form of `count` bytes.
    static func maximumCompressedCount(_ count: Int) -> Int { count + count / 255 + 16 }

    /// Appends the compressed form of `input` to `output`. Deterministic: the
    /// same input gives the same bytes. Greedy matching over a hash table of
    /// the last position of each 4-byte sequence.
    ///
    /// - Complexity: O(n) for n input bytes.
    static func compress(_ input: UnsafeRawBufferPointer, appendingTo output: inout [UInt8]) {
        let n = input.count
        let start = output.count
        output.append(contentsOf: repeatElement(0, count: maximumCompressedCount(n)))
        let written = output.withUnsafeMutableBytes { all -> Int in
            let out = all.baseAddress! + start
            guard n > 0, let src = input.baseAddress else {
                out.storeBytes(of: 0, as: UInt8.self)
                return 1
            }
            var o = 0
            var table = [Int32](repeating: -1, count: 1 << hashBits)
            var anchor = 0
            var position = 0
            table.withUnsafeMutableBufferPointer { table in
                while position + minimumMatch <= n {
                    let word = src.loadUnaligned(fromByteOffset: position, as: UInt32.self)
                    let h = Int((word &* 2_654_435_761) >> UInt32(32 - hashBits))
                    let candidate = Int(table[h])
                    table[h] = Int32(truncatingIfNeeded: position)
                    guard candidate >= 0, position - candidate <= maximumOffset,
                        src.loadUnaligned(fromByteOffset: candidate, as: UInt32.self) == word
                    else {
                        position += 1
                        continue
                    }
                    var length = minimumMatch
                    while position + length < n,
                        src.load(fromByteOffset: position + length, as: UInt8.self)
                            == src.load(fromByteOffset: candidate + length, as: UInt8.self)
                    {
                        length += 1
                    }
                    o = writeSequence(
                        out, at: o, literals: src + anchor, literalCount: position - anchor,
                        match: (offset: position - candidate, length: length))
                    position += length
                    anchor = position
                }
            }
            return writeSequence(out, at: o, literals: src + anchor, literalCount: n - anchor, match: nil)
        }
        output.removeLast(output.count - start - written)
    }

    /// Writes one sequence at `o` and returns where the next one starts.
    private static func writeSequence(
        _ out: UnsafeMutableRawPointer, at o: Int, literals: UnsafeRawPointer, literalCount: Int, match: (offset: Int, length: Int)?
    ) -> Int {
        var o = o
        let token = o
        o += 1
        let matchCode = match.map { $0.length - minimumMatch } ?? 0
        out.storeBytes(of: UInt8(min(literalCount, 15) << 4 | min(matchCode, 15)), toByteOffset: token, as: UInt8.self)
        o = writeLength(out, at: o, literalCount)
        (out + o).copyMemory(from: literals, byteCount: literalCount)
        o += literalCount
        if let match {
            out.storeBytes(of: UInt8(match.offset & 0xFF), toByteOffset: o, as: UInt8.self)
            out.storeBytes(of: UInt8(match.offset >> 8), toByteOffset: o + 1, as: UInt8.self)
            o = writeLength(out, at: o + 2, matchCode)
        }
        return o
    }

    /// Writes the extension bytes of a 4-bit length field holding `value` (none below 15).
    private static func writeLength(_ out: UnsafeMutableRawPointer, at o: Int, _ value: Int) -> Int {
        guard value >= 15 else { return o }
        var o = o
        var rest = value - 15
        while rest >= 255 {
            out.storeBytes(of: 255, toByteOffset: o, as: UInt8.self)
            o += 1
            rest -= 255
        }
        out.storeBytes(of: UInt8(rest), toByteOffset: o, as: UInt8.self)
        return o + 1
    }

    /// Copies `count` bytes, which `source` and `target` both have, 16 at a
    /// time while 16 more are there to read and to write (the last step may
    /// copy bytes past `count`, which the next sequence writes again), else
    /// with `copyMemory` (or 8 bytes at a time when the two overlap): a
    /// title's few bytes cost two loads and two stores, not a call. `source`
    /// must not overlap the 16 bytes after `target` unless it is at least 8
    /// bytes before it (a match: each step then reads bytes already written).
    @inline(__always)
    private static func copy(
        _ count: Int, from source: UnsafeRawPointer, to target: UnsafeMutableRawPointer, sourceLeft: Int, targetLeft: Int
    ) {
        guard count <= 16, sourceLeft >= 16, targetLeft >= 16 else {
            if source + count <= target || target + count <= source {
                target.copyMemory(from: source, byteCount: count)
            } else {
                var k = 0
                while k < count {
                    let step = min(8, count - k)
                    (target + k).copyMemory(from: source + k, byteCount: step)
                    k += step
                }
            }
            return
        }
        target.storeBytes(of: source.loadUnaligned(as: UInt64.self), as: UInt64.self)
        (target + 8).storeBytes(of: (source + 8).loadUnaligned(as: UInt64.self), as: UInt64.self)
    }

    /// Decompresses `input`, which must decompress to exactly `output.count`
    /// bytes, into `output`.
    ///
    /// - Throws: ``Failure`` for a block that is not one, naming its byte offset.
    /// - Complexity: O(n + m) for n input and m output bytes.
    static func decompress(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws(Failure) {
        let n = input.count, m = output.count
        guard n > 0, let src = input.baseAddress else { throw Failure(message: "the block is empty (at byte 0)") }
        let dst = output.baseAddress
        var i = 0, o = 0
        func length(_ field: Int, at place: String) throws(Failure) -> Int {
            var total = field
            guard field == 15 else { return total }
            while true {
                guard i < n else { throw Failure(message: "the \(place) length runs past the end of the block (at byte \(i))") }
                let more = Int(src.load(fromByteOffset: i, as: UInt8.self))
                i += 1
                total += more
                if more < 255 { return total }
                // A length beyond the output is refused below; stop before it can overflow.
                guard total <= m + 15 else { throw Failure(message: "the \(place) length at byte \(i - 1) is longer than the output") }
            }
        }
        while true {
            guard i < n else { throw Failure(message: "the block ends at byte \(i) in the middle of a sequence") }
            let tokenAt = i
            let token = Int(src.load(fromByteOffset: i, as: UInt8.self))
            i += 1
            let literals = try length(token >> 4, at: "literal")
            guard literals <= n - i else {
                throw Failure(message: "the \(literals) literals of the sequence at byte \(tokenAt) run past the end of the block")
            }
            guard literals <= m - o else {
                throw Failure(message: "the \(literals) literals of the sequence at byte \(tokenAt) run past the output's \(m) bytes")
            }
            if literals > 0 { copy(literals, from: src + i, to: dst! + o, sourceLeft: n - i, targetLeft: m - o) }
            i += literals
            o += literals
            if i == n {
                guard o == m else { throw Failure(message: "the block ends at byte \(i) with \(o) of the output's \(m) bytes") }
                return
            }
            guard n - i >= 2 else { throw Failure(message: "the match offset at byte \(i) runs past the end of the block") }
            let offset = Int(src.load(fromByteOffset: i, as: UInt8.self)) | Int(src.load(fromByteOffset: i + 1, as: UInt8.self)) << 8
            guard offset >= 1, offset <= o else {
                throw Failure(message: "the match offset \(offset) at byte \(i) reaches before the output's start (\(o) bytes written)")
            }
            i += 2
            let matchLength = try length(token & 15, at: "match") + minimumMatch
            guard matchLength <= m - o else {
                throw Failure(message: "the \(matchLength)-byte match of the sequence at byte \(tokenAt) runs past the output's \(m) bytes")
            }
            let to = dst! + o
            let from = UnsafeRawPointer(to - offset)
            if offset >= 8 {
                // Each 8-byte step reads bytes already written (the copy starts at least 8 back).
                copy(matchLength, from: from, to: to, sourceLeft: .max, targetLeft: m - o)
            } else {
                // Overlapping: the copy repeats the last `offset` bytes, byte by byte.
                for k in 0..<matchLength {
                    to.storeBytes(of: from.load(fromByteOffset: k, as: UInt8.self), toByteOffset: k, as: UInt8.self)
                }
            }
            o += matchLength
        }
    }
}
