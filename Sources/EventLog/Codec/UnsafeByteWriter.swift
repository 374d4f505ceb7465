import Foundation

/// Writes the log codec's values into memory that the caller has already
/// sized (the encoder's fast path: no capacity or uniqueness checks per byte).
///
/// The caller guarantees that the memory from the start pointer on holds
/// every byte written; sizes are computed beforehand with ``varintLength(_:)``
/// and ``stringLength(utf8Count:)``, which describe exactly what the `write`
/// methods produce (the same bytes as ``ByteWriter``).
struct UnsafeByteWriter {
    /// Where the next byte goes.
    private(set) var position: UnsafeMutableRawPointer
    /// One past the last byte the caller sized (checked before every write in debug builds,
    /// so an encoder whose computed length falls short traps before it overruns).
    private let end: UnsafeMutableRawPointer

    init(_ start: UnsafeMutableRawPointer, end: UnsafeMutableRawPointer) {
        position = start
        self.end = end
    }

    /// Debug builds: traps unless `count` more bytes fit.
    @inline(__always)
    private func checkRoom(_ count: Int) {
        assert(position + count <= end, "the encoder writes past the length it computed")
    }

    /// The encoded length of an unsigned LEB128 varint (1–10 bytes).
    @inline(__always)
    static func varintLength(_ v: UInt64) -> Int {
        v < 0x80 ? 1 : (64 - v.leadingZeroBitCount + 6) / 7
    }

    /// The encoded length of a string of `utf8Count` UTF-8 bytes (count prefix included).
    @inline(__always)
    static func stringLength(utf8Count: Int) -> Int { varintLength(UInt64(utf8Count)) + utf8Count }

    /// The zigzag mapping of a signed value to an unsigned varint.
    @inline(__always)
    static func zigzag(_ v: Int64) -> UInt64 { UInt64(bitPattern: (v << 1) ^ (v >> 63)) }

    /// Leaves `count` bytes to be filled in later (a frame header).
    @inline(__always)
    mutating func skip(_ count: Int) {
        checkRoom(count)
        position += count
    }

    @inline(__always)
    mutating func u8(_ v: UInt8) {
        checkRoom(1)
        position.storeBytes(of: v, as: UInt8.self)
        position += 1
    }

    @inline(__always)
    mutating func u32(_ v: UInt32) {
        checkRoom(4)
        position.storeBytes(of: v.littleEndian, as: UInt32.self)
        position += 4
    }

    /// An unsigned LEB128 varint, canonical (the shortest form).
    @inline(__always)
    mutating func varint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            u8(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        u8(UInt8(truncatingIfNeeded: v))
    }

    /// A label id's 16 raw bytes.
    @inline(__always)
    mutating func id(_ id: LabelID) {
        checkRoom(16)
        position.storeBytes(of: id.uuid.uuid, as: uuid_t.self)
        position += 16
    }

    /// Raw bytes, as they are.
    @inline(__always)
    mutating func raw(_ bytes: UnsafeRawBufferPointer) {
        checkRoom(bytes.count)
        if let base = bytes.baseAddress, !bytes.isEmpty { position.copyMemory(from: base, byteCount: bytes.count) }
        position += bytes.count
    }

    /// A string: its UTF-8 byte count as a varint, then the bytes. Native
    /// strings are copied straight from their storage.
    @inline(__always)
    mutating func string(_ s: borrowing String) {
        let done: Void? = s.utf8.withContiguousStorageIfAvailable { utf8 in
            varint(UInt64(utf8.count))
            raw(UnsafeRawBufferPointer(utf8))
        }
        if done == nil { slowString(s) }
    }

    /// A string whose UTF-8 is not contiguous in memory (e.g. a bridged one).
    private mutating func slowString(_ s: String) {
        var copy = s
        copy.withUTF8 { utf8 in
            varint(UInt64(utf8.count))
            raw(UnsafeRawBufferPointer(utf8))
        }
    }
}
