/// Text borrowed from a record's bytes: the UTF-8 of a title, actor, note,
/// command or reason inside the buffer a record was decoded from, without
/// a copy and without a `String`.
///
/// - Validity: the bytes belong to the buffer the ``EventRecordView`` it
///   came from points into; they are valid only as long as that view (see
///   ``EventRecordView`` for how long that is). Never keep one: call
///   ``string`` to keep the text.
/// - Content: the decoder has already checked the bytes are well-formed
///   UTF-8 (and within the format's length limit), so ``string`` never
///   repairs anything: it holds exactly these bytes.
/// - Equality compares bytes, so it is exact (no Unicode normalization):
///   equal to a `String` exactly when that string's UTF-8 is the same bytes,
///   as `String`'s own `==` would say for the decoded text.
public struct UTF8Text: Equatable, CustomStringConvertible {
    /// The UTF-8 bytes.
    public let bytes: UnsafeRawBufferPointer

    /// Wraps bytes the caller has checked are valid UTF-8.
    init(validated bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// The number of UTF-8 bytes (not characters). O(1).
    public var count: Int { bytes.count }

    /// Whether the text is empty.
    public var isEmpty: Bool { bytes.isEmpty }

    /// The text as a `String` (a copy that outlives the view; allocates for
    /// more than 15 bytes).
    public var string: String {
        guard !bytes.isEmpty else { return "" }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The same as ``string``.
    public var description: String { string }

    /// Whether both hold the same bytes.
    public static func == (lhs: UTF8Text, rhs: UTF8Text) -> Bool {
        lhs.bytes.count == rhs.bytes.count && Self.sameBytes(lhs.bytes, rhs.bytes)
    }

    /// Whether the text is exactly `string`'s UTF-8 bytes. Does not allocate
    /// for native strings.
    public static func == (lhs: UTF8Text, rhs: String) -> Bool {
        let utf8 = rhs.utf8
        guard utf8.count == lhs.bytes.count else { return false }
        if let equal = utf8.withContiguousStorageIfAvailable({ Self.sameBytes(lhs.bytes, UnsafeRawBufferPointer($0)) }) {
            return equal
        }
        return lhs.bytes.elementsEqual(utf8)
    }

    /// Whether `string`'s UTF-8 is exactly the text's bytes.
    public static func == (lhs: String, rhs: UTF8Text) -> Bool { rhs == lhs }

    /// Whether the text differs from `string`.
    public static func != (lhs: UTF8Text, rhs: String) -> Bool { !(lhs == rhs) }

    /// Whether `string` differs from the text.
    public static func != (lhs: String, rhs: UTF8Text) -> Bool { !(rhs == lhs) }

    /// Two buffers of the same length hold the same bytes.
    private static func sameBytes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        let n = a.count
        guard n > 0, let pa = a.baseAddress, let pb = b.baseAddress else { return true }
        var i = 0
        while i + 8 <= n {
            if pa.loadUnaligned(fromByteOffset: i, as: UInt64.self) != pb.loadUnaligned(fromByteOffset: i, as: UInt64.self) { return false }
            i += 8
        }
        while i < n {
            if pa.load(fromByteOffset: i, as: UInt8.self) != pb.load(fromByteOffset: i, as: UInt8.self) { return false }
            i += 1
        }
        return true
    }
}

/// A borrowed text must not cross threads: the buffer it points into belongs to its reader.
@available(*, unavailable)
extension UTF8Text: Sendable {}
