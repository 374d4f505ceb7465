/// The UTF-8 check the log's decoder uses, for other decoders of the same
/// conventions (snapshots) that keep text as bytes.
package enum UTF8Validation {
    /// Whether `bytes` are well-formed UTF-8 (Unicode Table 3-7: no overlong
    /// forms, no surrogates, nothing above U+10FFFF). ASCII runs are checked
    /// eight bytes at a time. O(n), no allocation.
    @inlinable
    package static func isValid(_ bytes: UnsafeRawBufferPointer) -> Bool { _isValid(bytes) }

    @usableFromInline
    static func _isValid(_ bytes: UnsafeRawBufferPointer) -> Bool { ByteReader.isValidUTF8(bytes) }

    /// Whether `text` may hold a zero byte (U+0000): `false` is certain. A
    /// native string's UTF-8 is scanned eight bytes at a time (a byte is
    /// zero in a word `w` exactly when `(w - 0x01…01) & ~w & 0x80…80` has
    /// its bit set); a string without contiguous UTF-8 (bridged) says `true`,
    /// and the caller looks byte by byte.
    static func mayHoldNUL(_ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { bytes in containsZero(UnsafeRawBufferPointer(bytes)) } ?? true
    }

    /// Whether any byte of `bytes` is zero, eight bytes at a time.
    static func containsZero(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        var i = 0
        while i + 8 <= bytes.count {
            let word = bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            if (word &- ones) & ~word & highs != 0 { return true }
            i += 8
        }
        while i < bytes.count {
            if bytes[i] == 0 { return true }
            i += 1
        }
        return false
    }
}
