/// Writing at the end of a ``ReadBuffer``: the arena a ``BatchFrameDecoder``
/// assembles titles and reorders' ids into, and the canonical payloads a
/// ``BatchFrameRecords`` writes when they are asked for (no zero fill before
/// a write). The buffer grows by doubling; callers ask for room
/// (``ensureRoom(_:)``) before a run of unchecked writes.
extension ReadBuffer {
    /// Makes room for `extra` more bytes after ``count`` (at least doubling a
    /// buffer that grows), keeping the data.
    @inline(__always)
    func ensureRoom(_ extra: Int) {
        let needed = count &+ extra
        if needed > capacity { reserve(Swift.max(needed, capacity &* 2)) }
    }

    /// Appends one byte.
    @inline(__always)
    func append(_ byte: UInt8) {
        ensureRoom(1)
        base.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
        count &+= 1
    }

    /// Appends an unsigned LEB128 varint (canonical, 1–10 bytes).
    @inline(__always)
    func appendVarint(_ value: UInt64) {
        ensureRoom(10)
        var v = value
        var at = base + count
        while v >= 0x80 {
            at.storeBytes(of: UInt8(truncatingIfNeeded: v) | 0x80, as: UInt8.self)
            at += 1
            v &>>= 7
        }
        at.storeBytes(of: UInt8(truncatingIfNeeded: v), as: UInt8.self)
        count = at + 1 - base
    }

    /// Appends a zigzag-encoded signed varint.
    @inline(__always)
    func appendZigzag(_ v: Int64) { appendVarint(UInt64(bitPattern: (v &<< 1) ^ (v >> 63))) }

    /// Appends `bytes`, which must not point into this buffer (it may move).
    @inline(__always)
    func append(_ bytes: UnsafeRawBufferPointer) {
        let n = bytes.count
        guard n > 0 else { return }
        ensureRoom(n)
        (base + count).copyMemory(from: bytes.baseAddress!, byteCount: n)
        count &+= n
    }

    /// Appends the 16 bytes of a label id at `source` (outside this buffer).
    @inline(__always)
    func appendID(from source: UnsafeRawPointer) {
        ensureRoom(16)
        let to = base + count
        to.storeBytes(of: source.loadUnaligned(as: UInt64.self), as: UInt64.self)
        (to + 8).storeBytes(of: source.loadUnaligned(fromByteOffset: 8, as: UInt64.self), as: UInt64.self)
        count &+= 16
    }

    /// Appends a copy of the buffer's own `length` bytes at `start`.
    @inline(__always)
    func appendCopy(from start: Int, length: Int) {
        guard length > 0 else { return }
        ensureRoom(length)
        (base + count).copyMemory(from: base + start, byteCount: length)
        count &+= length
    }

    /// The bytes written, valid until the next write.
    var written: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }
}
