import EventLog

/// Where one title's UTF-8 bytes are in a ``TitleArena``: a 40-bit offset and
/// a 24-bit length packed in one word (titles are at most
/// ``LogLimits/maxTitleBytes``, far below 2^24). The empty title is `0`.
struct TitleRef: Sendable, Hashable {
    var raw: UInt64

    static let empty = TitleRef(raw: 0)

    init(offset: Int, length: Int) {
        assert(offset >= 0 && offset < 1 << 40 && length >= 0 && length < 1 << 24)
        raw = UInt64(offset) << 24 | UInt64(length)
    }

    private init(raw: UInt64) { self.raw = raw }

    var offset: Int { Int(raw >> 24) }
    var length: Int { Int(raw & 0xFF_FFFF) }
}

/// The titles of a ``LabelList``, stored as UTF-8 bytes back to back in one
/// growable buffer, so a label costs its title's bytes and an 8-byte
/// ``TitleRef`` instead of a `String` (a 16-byte value plus, beyond 15
/// bytes, a heap object with its own header). Folding and loading a
/// snapshot copy bytes instead of allocating a string per title; a `String`
/// is made only when a ``Label`` is read.
///
/// The arena only grows: a renamed or removed label's old bytes become
/// ``garbage``, which ``LabelList`` reclaims by compacting when it exceeds
/// the live bytes (amortized O(1) per byte written). A value type with
/// copy-on-write storage, like the rest of the list.
struct TitleArena: Sendable {
    private(set) var bytes: [UInt8] = []
    /// Bytes that no slot refers to any more.
    private(set) var garbage = 0
    /// The least garbage worth a compaction (tests lower it to exercise compaction).
    var minimumGarbage = 64 << 10

    /// The bytes titles refer to (total minus garbage).
    var liveBytes: Int { bytes.count - garbage }

    /// Stores `title`'s UTF-8 bytes and returns where they are.
    mutating func append(_ title: some FoldText) -> TitleRef {
        title.withUTF8Bytes { append($0) }
    }

    /// Stores `utf8` (which must be valid UTF-8) and returns where it is.
    mutating func append(_ utf8: UnsafeRawBufferPointer) -> TitleRef {
        guard !utf8.isEmpty else { return .empty }
        let offset = bytes.count
        bytes.append(contentsOf: utf8)
        return TitleRef(offset: offset, length: utf8.count)
    }

    /// Marks a title's bytes as no longer referred to.
    mutating func release(_ ref: TitleRef) { garbage += ref.length }

    /// The title as a `String` (allocates for titles over 15 bytes).
    func string(_ ref: TitleRef) -> String {
        guard ref.length > 0 else { return "" }
        return withBytes(ref) { String(decoding: $0, as: UTF8.self) }
    }

    /// Whether the title's bytes are exactly `title`'s UTF-8 bytes (no
    /// Unicode normalization: the log records exact titles).
    func equals(_ ref: TitleRef, _ title: some FoldText) -> Bool {
        guard ref.length == title.utf8Count else { return false }
        return title.withUTF8Bytes { other in withBytes(ref) { Self.bytesEqual($0, other) } }
    }

    /// Whether two texts have the same UTF-8 bytes (no normalization).
    static func sameBytes(_ a: some FoldText, _ b: some FoldText) -> Bool {
        guard a.utf8Count == b.utf8Count else { return false }
        return a.withUTF8Bytes { x in b.withUTF8Bytes { y in bytesEqual(x, y) } }
    }

    /// Whether two byte ranges are equal, compared eight bytes at a time.
    @inline(__always)
    static func bytesEqual(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        let n = a.count
        guard n == b.count else { return false }
        var i = 0
        while i + 8 <= n {
            if a.loadUnaligned(fromByteOffset: i, as: UInt64.self) != b.loadUnaligned(fromByteOffset: i, as: UInt64.self) { return false }
            i += 8
        }
        while i < n {
            if a[i] != b[i] { return false }
            i += 1
        }
        return true
    }

    /// Calls `body` with the title's bytes.
    func withBytes<R>(_ ref: TitleRef, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try bytes.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[ref.offset..<ref.offset + ref.length])) }
    }

    /// Saves the arena's extent, to restore it with ``restore(_:)`` (rollback).
    var mark: (count: Int, garbage: Int) { (bytes.count, garbage) }

    /// Drops bytes appended since `mark` was taken and its garbage count.
    mutating func restore(_ mark: (count: Int, garbage: Int)) {
        if bytes.count > mark.count { bytes.removeSubrange(mark.count...) }
        garbage = mark.garbage
    }

    /// Whether enough is garbage that compacting pays: more than the live
    /// bytes, and at least ``minimumGarbage`` (64 KiB).
    var wantsCompaction: Bool { garbage > minimumGarbage && garbage > liveBytes }

    /// Rebuilds the arena with only the titles still referred to: `rewrite`
    /// is called with a function that copies one live title into the new
    /// arena and returns its new ref; it must pass every live ref once.
    mutating func compact(_ rewrite: ((TitleRef) -> TitleRef) -> Void) {
        var fresh = TitleArena()
        fresh.minimumGarbage = minimumGarbage
        fresh.bytes.reserveCapacity(liveBytes)
        let old = bytes
        old.withUnsafeBytes { all in
            rewrite { ref in fresh.append(UnsafeRawBufferPointer(rebasing: all[ref.offset..<ref.offset + ref.length])) }
        }
        self = fresh
    }

    /// Reserves room for `count` more bytes (bulk loading).
    mutating func reserve(_ count: Int) { bytes.reserveCapacity(bytes.count + count) }

    /// Drops the last `count` bytes (titles just appended that did not check out).
    mutating func removeLast(_ count: Int) { bytes.removeLast(count) }

    /// Decompresses `block` (``TitleCompression``), which must decompress to
    /// exactly `count` bytes, onto the end of the arena and returns the offset
    /// of its first byte. The bytes are not checked here (see
    /// `LabelList.decodeCompressedTitles`); on failure the arena is unchanged.
    ///
    /// - Throws: ``TitleCompression/Failure`` for a block that is not one.
    mutating func appendDecompressed(count: Int, from block: UnsafeRawBufferPointer) throws(TitleCompression.Failure) -> Int {
        let offset = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: count))
        do throws(TitleCompression.Failure) {
            try bytes.withUnsafeMutableBytes { all in
                Result { () throws(TitleCompression.Failure) in
                    try TitleCompression.decompress(block, into: UnsafeMutableRawBufferPointer(rebasing: all[offset..<offset + count]))
                }
            }.get()
        } catch {
            bytes.removeLast(count)
            throw error
        }
        return offset
    }
}
