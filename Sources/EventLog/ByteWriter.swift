/// Little-endian and LEB128 (varint) writing into a growable byte array:
/// the output side of the log's codec, also used for snapshot files.
/// Strings are written as a varint byte count followed by their UTF-8 bytes;
/// ids as their 16 raw UUID bytes.
public struct ByteWriter: Sendable {
    /// The bytes written so far.
    public var bytes: [UInt8]

    /// Creates an empty writer with room for `capacity` bytes.
    public init(capacity: Int = 64) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Appends one byte.
    public mutating func u8(_ v: UInt8) { bytes.append(v) }

    /// Appends two bytes, little-endian.
    public mutating func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }

    /// Appends four bytes, little-endian.
    public mutating func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }

    /// Appends eight bytes, little-endian.
    public mutating func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }

    /// Appends an unsigned LEB128 varint (1–10 bytes, canonical).
    public mutating func varint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    /// Appends a zigzag-encoded signed varint.
    public mutating func zigzag(_ v: Int64) {
        varint(UInt64(bitPattern: (v << 1) ^ (v >> 63)))
    }

    /// Appends a varint byte count and the string's UTF-8 bytes.
    public mutating func string(_ s: String) {
        var copy = s
        copy.withUTF8 { utf8 in
            varint(UInt64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    /// Appends the id's 16 raw bytes.
    public mutating func id(_ id: LabelID) {
        withUnsafeBytes(of: id.uuid.uuid) { bytes.append(contentsOf: $0) }
    }
}

extension Array where Element == UInt8 {
    /// `withUnsafeBytes` for bodies that throw ``EventLogError`` (keeps the typed throw).
    func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws(EventLogError) -> R) throws(EventLogError) -> R {
        try withUnsafeBytes { raw in Result { () throws(EventLogError) -> R in try body(raw) } }.get()
    }
}
