/// The bytes a ``FrameCursor`` has read ahead: one allocation, reused for
/// the whole scan, so refilling costs a read and a move of the unread tail,
/// not a new buffer. A class so that the memory outlives any copy of the
/// cursor; the cursor copies it before changing it when it is shared.
final class ReadBuffer {
    /// The first byte; `capacity` bytes are allocated, `count` of them read.
    private(set) var base: UnsafeMutableRawPointer
    private(set) var capacity: Int
    /// How many bytes from ``base`` hold data.
    var count = 0

    init(capacity: Int = 0) {
        self.capacity = capacity
        base = .allocate(byteCount: max(capacity, 1), alignment: 16)
    }

    deinit { base.deallocate() }

    /// A buffer with the same bytes.
    func copy() -> ReadBuffer {
        let other = ReadBuffer(capacity: capacity)
        other.base.copyMemory(from: base, byteCount: count)
        other.count = count
        return other
    }

    /// Forgets the first `n` bytes, moving the rest to the front.
    func dropFirst(_ n: Int) {
        precondition(n >= 0 && n <= count, "cannot drop more bytes than are buffered")
        if n < count { base.copyMemory(from: base + n, byteCount: count - n) }
        count -= n
    }

    /// Makes room for at least `minimum` bytes in all, keeping the data.
    func reserve(_ minimum: Int) {
        guard minimum > capacity else { return }
        let grown = UnsafeMutableRawPointer.allocate(byteCount: minimum, alignment: 16)
        grown.copyMemory(from: base, byteCount: count)
        base.deallocate()
        base = grown
        capacity = minimum
    }
}
