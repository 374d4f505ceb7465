/// Why a byte sequence could not be decoded; turned into an ``EventLogError``
/// with the path and offset by the caller.
struct DecodeFailure: Error, Sendable {
    var reason: String
    init(_ reason: String) { self.reason = reason }
}

/// Bounds-checked reading of little-endian and LEB128 values from a byte
/// buffer (the codec's input side). Never traps and never allocates more than
/// the bytes actually present.
struct ByteReader {
    let base: UnsafeRawBufferPointer
    var position: Int

    init(_ base: UnsafeRawBufferPointer, position: Int = 0) {
        self.base = base
        self.position = position
    }

    var remaining: Int { base.count - position }
    var isAtEnd: Bool { position >= base.count }

    mutating func u8() throws(DecodeFailure) -> UInt8 {
        guard position < base.count else { throw DecodeFailure("unexpected end of record") }
        defer { position += 1 }
        return base[position]
    }

    mutating func u16() throws(DecodeFailure) -> UInt16 {
        guard remaining >= 2 else { throw DecodeFailure("unexpected end of record") }
        defer { position += 2 }
        return UInt16(base[position]) | UInt16(base[position + 1]) << 8
    }

    mutating func u32() throws(DecodeFailure) -> UInt32 {
        guard remaining >= 4 else { throw DecodeFailure("unexpected end of record") }
        defer { position += 4 }
        return base.loadUnaligned(fromByteOffset: position, as: UInt32.self).littleEndian
    }

    mutating func u64() throws(DecodeFailure) -> UInt64 {
        guard remaining >= 8 else { throw DecodeFailure("unexpected end of record") }
        defer { position += 8 }
        return base.loadUnaligned(fromByteOffset: position, as: UInt64.self).littleEndian
    }

    @inline(__always)
    mutating func varint() throws(DecodeFailure) -> UInt64 {
        // Fast path: most varints (kinds, small indices, short lengths) are one byte.
        if position < base.count, base[position] < 0x80 {
            defer { position += 1 }
            return UInt64(base[position])
        }
        return try longVarint()
    }

    private mutating func longVarint() throws(DecodeFailure) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < base.count else { throw DecodeFailure("unexpected end of record in a varint") }
            let byte = base[position]
            position += 1
            if shift == 63 && byte > 1 { throw DecodeFailure("varint overflows 64 bits") }
            result |= UInt64(byte & 0x7f) << shift
            if byte & 0x80 == 0 {
                // The encoding is canonical: a zero final byte after others is an overlong varint.
                if byte == 0 && shift > 0 { throw DecodeFailure("overlong varint") }
                return result
            }
            shift += 7
            if shift > 63 { throw DecodeFailure("varint longer than 10 bytes") }
        }
    }

    mutating func zigzag() throws(DecodeFailure) -> Int64 {
        let v = try varint()
        return Int64(bitPattern: v >> 1) ^ -Int64(bitPattern: v & 1)
    }

    mutating func count(max: Int, what: StaticString) throws(DecodeFailure) -> Int {
        let v = try varint()
        guard v <= UInt64(max) else { throw DecodeFailure("\(what) \(v) exceeds the limit \(max)") }
        return Int(v)
    }

    mutating func bool(_ what: StaticString) throws(DecodeFailure) -> Bool {
        switch try u8() {
        case 0: return false
        case 1: return true
        case let other: throw DecodeFailure("\(what) byte is \(other), expected 0 or 1")
        }
    }

    mutating func string(maxBytes: Int, what: StaticString) throws(DecodeFailure) -> String {
        let declared = try varint()
        guard declared <= UInt64(maxBytes) else { throw DecodeFailure("\(what) length \(declared) exceeds the limit \(maxBytes)") }
        let length = Int(declared)
        guard length <= remaining else { throw DecodeFailure("\(what) length \(length) runs past the end of the record") }
        let slice = UnsafeRawBufferPointer(rebasing: base[position..<position + length])
        position += length
        guard let s = Self.validatedString(slice) else {
            throw DecodeFailure("\(what) is not valid UTF-8")
        }
        return s
    }

    /// The string of `bytes` if they are valid UTF-8 (well-formed per Unicode
    /// Table 3-7: no overlongs, no surrogates, nothing above U+10FFFF).
    @inline(__always)
    static func validatedString(_ bytes: UnsafeRawBufferPointer) -> String? {
        guard isValidUTF8(bytes) else { return nil }
        return String(decoding: bytes.assumingMemoryBound(to: UInt8.self), as: UTF8.self)
    }

    /// Whether `bytes` are well-formed UTF-8. ASCII runs are checked eight bytes at a time.
    static func isValidUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let n = bytes.count
        var i = 0
        while i < n {
            if i + 8 <= n, bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                i += 8
                continue
            }
            let b = bytes[i]
            if b < 0x80 {
                i += 1
                continue
            }
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

    mutating func id() throws(DecodeFailure) -> LabelID {
        guard remaining >= 16 else { throw DecodeFailure("unexpected end of record in a label id") }
        let b = base
        let p = position
        position += 16
        return LabelID(bytes: (b[p], b[p + 1], b[p + 2], b[p + 3], b[p + 4], b[p + 5], b[p + 6], b[p + 7],
                               b[p + 8], b[p + 9], b[p + 10], b[p + 11], b[p + 12], b[p + 13], b[p + 14], b[p + 15]))
    }

    mutating func bytes(_ n: Int) throws(DecodeFailure) -> UnsafeRawBufferPointer {
        guard n <= remaining else { throw DecodeFailure("unexpected end of data") }
        defer { position += n }
        return UnsafeRawBufferPointer(rebasing: base[position..<position + n])
    }
}
