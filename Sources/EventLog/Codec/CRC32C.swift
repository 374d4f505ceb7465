import CCRC32C

/// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum of
/// the log header and of every record.
///
/// Uses the CPU's CRC-32C instructions where it has them (SSE 4.2 on
/// x86-64, the CRC extension on AArch64) and a portable slicing-by-8
/// implementation elsewhere; both give the standard results
/// (`CRC32C.checksum("123456789") == 0xE3069283`).
package enum CRC32C {
    /// Whether checksums use the CPU's CRC-32C instructions.
    package static let usesHardware: Bool = ccrc32c_hardware_available() != 0
    static let tables: [[UInt32]] = {
        var tables = Array(repeating: Array(repeating: UInt32(0), count: 256), count: 8)
        for n in 0..<256 {
            var c = UInt32(n)
            for _ in 0..<8 { c = c & 1 != 0 ? (c >> 1) ^ 0x82F6_3B78 : c >> 1 }
            tables[0][n] = c
        }
        for n in 0..<256 {
            var c = tables[0][n]
            for k in 1..<8 {
                c = tables[0][Int(c & 0xff)] ^ (c >> 8)
                tables[k][n] = c
            }
        }
        return tables
    }()

    /// Flat copy of ``tables`` for the hot loop.
    static let flat: [UInt32] = tables.flatMap { $0 }

    /// Continues a checksum over more bytes. Start with `crc = 0`.
    @inline(__always)
    package static func update(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        if usesHardware, let base = bytes.baseAddress {
            return ~ccrc32c_hardware_update(~crc, base, bytes.count)
        }
        return portableUpdate(crc, bytes)
    }

    /// Continues a checksum over `first`, then `second` (e.g. a frame's length
    /// word and its payload, which are not adjacent): the same as two
    /// ``update(_:_:)`` calls, in one call into the hardware implementation.
    @inline(__always)
    static func update(_ crc: UInt32, _ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer) -> UInt32 {
        if usesHardware, let a = first.baseAddress, let b = second.baseAddress {
            return ~ccrc32c_hardware_update2(~crc, a, first.count, b, second.count)
        }
        return update(update(crc, first), second)
    }

    /// The portable slicing-by-8 implementation (used when the CPU lacks CRC
    /// instructions; public so tests can check both give the same results).
    package static func portableUpdate(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var c = ~crc
        flat.withUnsafeBufferPointer { t in
            var i = 0
            let n = bytes.count
            while n - i >= 8 {
                let lo = bytes.loadUnaligned(fromByteOffset: i, as: UInt32.self).littleEndian ^ c
                let hi = bytes.loadUnaligned(fromByteOffset: i + 4, as: UInt32.self).littleEndian
                c =
                    t[7 * 256 + Int(lo & 0xff)] ^ t[6 * 256 + Int((lo >> 8) & 0xff)]
                    ^ t[5 * 256 + Int((lo >> 16) & 0xff)] ^ t[4 * 256 + Int(lo >> 24)]
                    ^ t[3 * 256 + Int(hi & 0xff)] ^ t[2 * 256 + Int((hi >> 8) & 0xff)]
                    ^ t[1 * 256 + Int((hi >> 16) & 0xff)] ^ t[Int(hi >> 24)]
                i += 8
            }
            while i < n {
                c = t[Int((c ^ UInt32(bytes[i])) & 0xff)] ^ (c >> 8)
                i += 1
            }
        }
        return ~c
    }

    /// The checksum of `bytes`.
    package static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 { update(0, bytes) }

    /// The checksum of a byte collection.
    package static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        let array = Array(bytes)
        return array.withUnsafeBytes { update(0, $0) }
    }

    /// The checksum of a string's UTF-8 bytes.
    package static func checksum(_ text: String) -> UInt32 { checksum(Array(text.utf8)) }
}
