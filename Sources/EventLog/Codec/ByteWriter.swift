/// Little-endian and LEB128 (varint) writing into a growable byte array:
/// the output side of the log's codec, also used for snapshot files.
/// Strings are written as a varint byte count followed by their UTF-8 bytes;
/// ids as their 16 raw UUID bytes.
package struct ByteWriter: Sendable {
    /// The bytes written so far.
    package var bytes: [UInt8]

    /// Creates an empty writer with room for `capacity` bytes.
    package init(capacity: Int = 64) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Appends one byte.
    package mutating func u8(_ v: UInt8) { bytes.append(v) }

    /// Appends two bytes, little-endian.
    package mutating func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }

    /// Appends four bytes, little-endian.
    package mutating func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }

    /// Appends eight bytes, little-endian.
    package mutating func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }

    /// Appends an unsigned LEB128 varint (1–10 bytes, canonical).
    package mutating func varint(_ value: UInt64) {
        if value < 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value))
            return
        }
        appendUninitialized(count: UnsafeByteWriter.varintLength(value)) { $0.varint(value) }
    }

    /// Appends a zigzag-encoded signed varint.
    package mutating func zigzag(_ v: Int64) {
        varint(UInt64(bitPattern: (v << 1) ^ (v >> 63)))
    }

    /// Appends a varint byte count and the string's UTF-8 bytes.
    package mutating func string(_ s: String) {
        appendUninitialized(count: UnsafeByteWriter.stringLength(utf8Count: s.utf8.count)) { $0.string(s) }
    }

    /// Appends the id's 16 raw bytes.
    package mutating func id(_ id: LabelID) {
        withUnsafeBytes(of: id.uuid.uuid) { bytes.append(contentsOf: $0) }
    }

    /// Grows ``bytes`` by `count` and lets `body` write exactly that many
    /// bytes through an ``UnsafeByteWriter`` (the codec's fast path).
    @inline(__always)
    mutating func appendUninitialized(count: Int, _ body: (inout UnsafeByteWriter) -> Void) {
        guard count > 0 else { return }
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: count))
        bytes.withUnsafeMutableBytes { raw in
            let base = raw.baseAddress! + start
            var w = UnsafeByteWriter(base, end: base + count)
            body(&w)
            precondition(w.position == base + count, "the encoder wrote a different length than it computed")
        }
    }
}

extension Array where Element == UInt8 {
    /// `withUnsafeBytes` for bodies that throw ``EventLogError`` (keeps the typed throw).
    package func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws(EventLogError) -> R) throws(EventLogError) -> R {
        try withUnsafeBytes { raw in Result { () throws(EventLogError) -> R in try body(raw) } }.get()
    }
}
