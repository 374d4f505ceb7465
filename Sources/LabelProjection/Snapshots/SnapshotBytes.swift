import EventLog

/// Snapshot files are written with the log codec's writer.
typealias SnapshotWriter = ByteWriter

/// Bounds-checked input for snapshot files: never traps, never reads past
/// the end, and never allocates for a count the remaining bytes cannot hold.
struct SnapshotReader {
    let base: UnsafeRawBufferPointer
    var position: Int

    init(_ base: UnsafeRawBufferPointer, position: Int = 0) {
        self.base = base
        self.position = position
    }

    var remaining: Int { base.count - position }

    private func truncated(_ what: () -> String) -> SnapshotError {
        SnapshotError(.invalidContent, "the snapshot ends inside \(what()) at byte \(position)")
    }

    mutating func u8(_ what: @autoclosure () -> String) throws(SnapshotError) -> UInt8 {
        guard remaining >= 1 else { throw truncated(what) }
        defer { position += 1 }
        return base[position]
    }

    mutating func u16(_ what: @autoclosure () -> String) throws(SnapshotError) -> UInt16 {
        guard remaining >= 2 else { throw truncated(what) }
        defer { position += 2 }
        return UInt16(littleEndian: base.loadUnaligned(fromByteOffset: position, as: UInt16.self))
    }

    mutating func u32(_ what: @autoclosure () -> String) throws(SnapshotError) -> UInt32 {
        guard remaining >= 4 else { throw truncated(what) }
        defer { position += 4 }
        return UInt32(littleEndian: base.loadUnaligned(fromByteOffset: position, as: UInt32.self))
    }

    mutating func u64(_ what: @autoclosure () -> String) throws(SnapshotError) -> UInt64 {
        guard remaining >= 8 else { throw truncated(what) }
        defer { position += 8 }
        return UInt64(littleEndian: base.loadUnaligned(fromByteOffset: position, as: UInt64.self))
    }

    /// A canonical LEB128 varint of at most 10 bytes.
    mutating func varint(_ what: @autoclosure () -> String) throws(SnapshotError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < base.count else { throw truncated(what) }
            let byte = base[position]
            position += 1
            if shift == 63 && byte > 1 { throw SnapshotError(.invalidContent, "\(what()) overflows 64 bits at byte \(position - 1)") }
            result |= UInt64(byte & 0x7f) << shift
            if byte & 0x80 == 0 {
                if byte == 0 && shift > 0 { throw SnapshotError(.invalidContent, "\(what()) is an overlong varint at byte \(position - 1)") }
                return result
            }
            shift += 7
        }
    }

    /// A count that must be at most `limit` (checked before anything is allocated for it).
    mutating func count(_ what: @autoclosure () -> String, limit: Int) throws(SnapshotError) -> Int {
        let start = position
        let v = try varint(what())
        guard v <= UInt64(limit) else {
            throw SnapshotError(.invalidContent, "\(what()) \(v) at byte \(start) is more than the \(limit) the rest of the file can hold")
        }
        return Int(v)
    }

    mutating func string(_ what: @autoclosure () -> String, maxBytes: Int) throws(SnapshotError) -> String {
        String(decoding: try utf8(what(), maxBytes: maxBytes), as: UTF8.self)
    }

    /// A string's bytes, checked to be valid UTF-8, borrowed from the input
    /// (no copy, no allocation).
    mutating func utf8(_ what: @autoclosure () -> String, maxBytes: Int) throws(SnapshotError) -> UnsafeRawBufferPointer {
        let start = position
        let length = try count("\(what()) length", limit: maxBytes)
        guard length <= remaining else {
            throw SnapshotError(.invalidContent, "\(what()) at byte \(start) is \(length) bytes long, past the end of the snapshot")
        }
        let slice = UnsafeRawBufferPointer(rebasing: base[position..<position + length])
        position += length
        guard UTF8Validation.isValid(slice) else {
            throw SnapshotError(.invalidContent, "\(what()) at byte \(start) is not valid UTF-8")
        }
        return slice
    }

    mutating func id(_ what: @autoclosure () -> String) throws(SnapshotError) -> LabelID {
        guard remaining >= 16 else { throw truncated(what) }
        let b = base, p = position
        position += 16
        return LabelID(bytes: (b[p], b[p + 1], b[p + 2], b[p + 3], b[p + 4], b[p + 5], b[p + 6], b[p + 7],
                               b[p + 8], b[p + 9], b[p + 10], b[p + 11], b[p + 12], b[p + 13], b[p + 14], b[p + 15]))
    }
}
