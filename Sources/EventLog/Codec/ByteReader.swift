import Foundation

/// Why a byte sequence could not be decoded; turned into an ``EventLogError``
/// with the path and offset by the caller (the log), or into a
/// ``SnapshotError`` worded from ``fault`` and ``offset`` (snapshots).
package struct DecodeFailure: Error, Sendable {
    /// The kinds of failure a caller may word itself.
    package enum Fault: Sendable {
        /// The input ends inside the value.
        case truncated
        /// A varint overflows 64 bits.
        case varintOverflow
        /// A varint is not canonical: its last byte is zero.
        case overlongVarint
        /// Anything else: ``DecodeFailure/reason`` says what.
        case invalid
    }

    /// What is wrong, in words.
    package var reason: String
    /// The kind of failure.
    package var fault: Fault
    /// For ``Fault/truncated``, where reading stopped: the first byte of a
    /// fixed-width value, the end of the input for a varint; for the other
    /// varint faults, the byte at fault. `nil` for ``Fault/invalid``.
    package var offset: Int?

    package init(_ reason: String, _ fault: Fault = .invalid, at offset: Int? = nil) {
        self.reason = reason
        self.fault = fault
        self.offset = offset
    }
}

/// Bounds-checked reading of little-endian and LEB128 values from a byte
/// buffer: the input side of the log's codec, also used for snapshot files.
/// Never traps and never allocates more than the bytes actually present.
package struct ByteReader {
    /// The input.
    package let base: UnsafeRawBufferPointer
    /// The offset of the next byte to read.
    package var position: Int

    /// A reader of `base` from `position`.
    package init(_ base: UnsafeRawBufferPointer, position: Int = 0) {
        self.base = base
        self.position = position
    }

    /// The bytes after ``position``.
    package var remaining: Int { base.count - position }
    package var isAtEnd: Bool { position >= base.count }

    /// One byte.
    @inline(__always)
    package mutating func u8() throws(DecodeFailure) -> UInt8 {
        guard position < base.count else { throw DecodeFailure("unexpected end of record", .truncated, at: position) }
        defer { position += 1 }
        return base[position]
    }

    /// 2 bytes, little-endian.
    package mutating func u16() throws(DecodeFailure) -> UInt16 {
        guard remaining >= 2 else { throw DecodeFailure("unexpected end of record", .truncated, at: position) }
        defer { position += 2 }
        return UInt16(base[position]) | UInt16(base[position + 1]) << 8
    }

    /// 4 bytes, little-endian.
    package mutating func u32() throws(DecodeFailure) -> UInt32 {
        guard remaining >= 4 else { throw DecodeFailure("unexpected end of record", .truncated, at: position) }
        defer { position += 4 }
        return base.loadUnaligned(fromByteOffset: position, as: UInt32.self).littleEndian
    }

    /// 8 bytes, little-endian.
    package mutating func u64() throws(DecodeFailure) -> UInt64 {
        guard remaining >= 8 else { throw DecodeFailure("unexpected end of record", .truncated, at: position) }
        defer { position += 8 }
        return base.loadUnaligned(fromByteOffset: position, as: UInt64.self).littleEndian
    }

    /// A canonical unsigned LEB128 varint of at most 10 bytes.
    @inline(__always)
    package mutating func varint() throws(DecodeFailure) -> UInt64 {
        // Fast path: most varints (kinds, small indices, short lengths) are one byte.
        if position < base.count, base[position] < 0x80 {
            defer { position += 1 }
            return UInt64(base[position])
        }
        // Fast path: a varint of at most 8 bytes with 8 bytes to read (timestamps, most seqs).
        if remaining >= 8 {
            let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: position, as: UInt64.self))
            let ends = ~word & 0x8080_8080_8080_8080
            if ends != 0 {
                let bits = ends.trailingZeroBitCount &+ 1  // 8 × the varint's length (1...8 bytes)
                let x = word & (~UInt64(0) &>> (64 &- bits))
                // The encoding is canonical: a zero final byte after others is an overlong varint.
                if bits > 8 && x &>> (bits &- 8) == 0 {
                    throw DecodeFailure("overlong varint", .overlongVarint, at: position &+ bits &>> 3 &- 1)
                }
                // Gather the 7-bit groups (byte k's low 7 bits go to bits 7k...7k+6): pairs, then quads, then halves.
                var result = x & 0x7f7f_7f7f_7f7f_7f7f
                result = (result & 0x007f_007f_007f_007f) | ((result & 0x7f00_7f00_7f00_7f00) &>> 1)
                result = (result & 0x0000_3fff_0000_3fff) | ((result & 0x3fff_0000_3fff_0000) &>> 2)
                result = (result & 0x0000_0000_0fff_ffff) | ((result & 0x0fff_ffff_0000_0000) &>> 4)
                position &+= bits &>> 3
                return result
            }
        }
        return try longVarint()
    }

    private mutating func longVarint() throws(DecodeFailure) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < base.count else { throw DecodeFailure("unexpected end of record in a varint", .truncated, at: position) }
            let byte = base[position]
            position += 1
            if shift == 63 && byte > 1 { throw DecodeFailure("varint overflows 64 bits", .varintOverflow, at: position - 1) }
            result |= UInt64(byte & 0x7f) << shift
            if byte & 0x80 == 0 {
                // The encoding is canonical: a zero final byte after others is an overlong varint.
                if byte == 0 && shift > 0 { throw DecodeFailure("overlong varint", .overlongVarint, at: position - 1) }
                return result
            }
            shift += 7
            if shift > 63 { throw DecodeFailure("varint longer than 10 bytes") }
        }
    }

    @inline(__always)
    package mutating func zigzag() throws(DecodeFailure) -> Int64 {
        let v = try varint()
        return Int64(bitPattern: v >> 1) ^ -Int64(bitPattern: v & 1)
    }

    @inline(__always)
    package mutating func count(max: Int, what: StaticString) throws(DecodeFailure) -> Int {
        let v = try varint()
        guard v <= UInt64(max) else { throw DecodeFailure("\(what) \(v) exceeds the limit \(max)") }
        return Int(v)
    }

    @inline(__always)
    package mutating func bool(_ what: StaticString) throws(DecodeFailure) -> Bool {
        switch try u8() {
        case 0: return false
        case 1: return true
        case let other: throw DecodeFailure("\(what) byte is \(other), expected 0 or 1")
        }
    }

    /// A string field, borrowed: a varint length within `maxBytes` and the
    /// remaining bytes, then that many bytes of well-formed UTF-8.
    /// With `validating` false the bytes are taken as UTF-8 unchecked: only
    /// for bytes this process wrote from text it checked (a batch frame's
    /// canonical payloads, made by its decoder).
    @inline(__always)
    package mutating func text(maxBytes: Int, what: StaticString, validating: Bool = true) throws(DecodeFailure) -> UTF8Text {
        let declared = try varint()
        guard declared <= UInt64(maxBytes) else { throw DecodeFailure("\(what) length \(declared) exceeds the limit \(maxBytes)") }
        let length = Int(declared)
        guard length <= remaining else { throw DecodeFailure("\(what) length \(length) runs past the end of the record") }
        let slice = UnsafeRawBufferPointer(rebasing: base[position..<position + length])
        let shortASCII = !validating || isShortASCII(at: position, count: length)
        position += length
        guard shortASCII || Self.isValidUTF8(slice) else {
            throw DecodeFailure("\(what) is not valid UTF-8")
        }
        return UTF8Text(validated: slice)
    }

    /// Whether the `count` (at most 16) bytes at `start` are all ASCII, checked
    /// with one or two word loads (a short text needs no call into the full
    /// validator). `false` means "not known to be", not "invalid".
    @inline(__always)
    private func isShortASCII(at start: Int, count n: Int) -> Bool {
        let high: UInt64 = 0x8080_8080_8080_8080
        @inline(__always) func word(_ offset: Int) -> UInt64 {
            UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        }
        if n == 0 { return true }
        if n > 16 { return false }
        if n >= 8 { return (word(start) | word(start &+ n &- 8)) & high == 0 }
        // Fewer than eight bytes: read a word if the buffer has one there, keep the text's bytes.
        guard start &+ 8 <= base.count else { return false }
        return word(start) & high & (~UInt64(0) &>> (64 &- 8 &* n)) == 0
    }

    /// Whether `bytes` are well-formed UTF-8. ASCII is skipped eight bytes at
    /// a time (the last, partial word read overlapping the one before it),
    /// straight to the next non-ASCII byte; multi-byte sequences are checked
    /// byte by byte.
    static func isValidUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let n = bytes.count
        let high: UInt64 = 0x8080_8080_8080_8080
        @inline(__always) func highBits(at offset: Int) -> UInt64 {
            UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) & high
        }
        var i = 0
        while i < n {
            if i + 8 <= n {
                let word = highBits(at: i)
                if word == 0 {
                    i += 8
                    continue
                }
                i += word.trailingZeroBitCount >> 3
            } else if n >= 8 {
                // Fewer than eight bytes left: the last word, without the bytes already checked.
                let word = highBits(at: n - 8) >> UInt64((i - (n - 8)) * 8)
                if word == 0 { return true }
                i += word.trailingZeroBitCount >> 3
            } else if bytes[i] < 0x80 {
                i += 1
                continue
            }
            let b = bytes[i]
            @inline(__always) func continuation(_ k: Int) -> Bool { i + k < n && bytes[i + k] & 0xC0 == 0x80 }
            switch b {
            case 0xC2...0xDF:
                guard continuation(1) else { return false }
                i += 2
            case 0xE0...0xEF:
                guard continuation(1), continuation(2) else { return false }
                let b1 = bytes[i + 1]
                if b == 0xE0 && b1 < 0xA0 { return false }  // overlong
                if b == 0xED && b1 > 0x9F { return false }  // surrogates
                i += 3
            case 0xF0...0xF4:
                guard continuation(1), continuation(2), continuation(3) else { return false }
                let b1 = bytes[i + 1]
                if b == 0xF0 && b1 < 0x90 { return false }  // overlong
                if b == 0xF4 && b1 > 0x8F { return false }  // above U+10FFFF
                i += 4
            default:
                return false
            }
        }
        return true
    }

    /// A label id: its 16 raw UUID bytes.
    @inline(__always)
    package mutating func id() throws(DecodeFailure) -> LabelID {
        guard remaining >= 16 else { throw DecodeFailure("unexpected end of record in a label id", .truncated, at: position) }
        defer { position += 16 }
        return LabelID(UUID(uuid: base.loadUnaligned(fromByteOffset: position, as: uuid_t.self)))
    }

    /// The next `n` bytes, borrowed from the input.
    package mutating func bytes(_ n: Int) throws(DecodeFailure) -> UnsafeRawBufferPointer {
        guard n <= remaining else { throw DecodeFailure("unexpected end of data", .truncated, at: position) }
        defer { position += n }
        return UnsafeRawBufferPointer(rebasing: base[position..<position + n])
    }
}
