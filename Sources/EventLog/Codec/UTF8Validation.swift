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
}
