/// The bytes of a history index file or of one segment of it, read in place:
/// a read-only mapping of the file (an index file is only ever replaced by a
/// rename, and a delta file is only appended to past its complete segments,
/// so the bytes a reader uses never change under it) or a copy of bytes built
/// in memory.
///
/// Immutable once made, hence `@unchecked Sendable`: it holds a raw pointer
/// (and the ``MappedFile`` or buffer that owns it) that nothing writes through.
final class HistoryIndexBytes: @unchecked Sendable {
    /// The bytes, header included.
    let raw: UnsafeRawBufferPointer
    /// What owns them: a ``MappedFile``, an ``OwnedBuffer``, or the bytes this is a slice of.
    private let owner: AnyObject?

    /// A buffer allocated for a copy, freed with it.
    private final class OwnedBuffer {
        let buffer: UnsafeMutableRawBufferPointer
        init(_ count: Int) { buffer = .allocate(byteCount: max(count, 1), alignment: 16) }
        deinit { buffer.deallocate() }
    }

    /// The file at `path`, mapped.
    init(mapping path: String) throws(EventLogError) {
        let file = try MappedFile(path: path)
        owner = file
        raw = file.bytes
    }

    /// A copy of `bytes`.
    init(copying bytes: [UInt8]) {
        let owned = OwnedBuffer(bytes.count)
        bytes.withUnsafeBytes { owned.buffer.copyMemory(from: $0) }
        owner = owned
        raw = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(owned.buffer)[0..<bytes.count])
    }

    /// Bytes `range` of `whole`, kept alive with it.
    init(slicing whole: HistoryIndexBytes, _ range: Range<Int>) {
        owner = whole
        raw = whole[range]
    }

    /// The record offsets of the pieces read last, checked, by where they
    /// start in ``raw`` (``HistoryIndexPart/pieceOffsets(_:)``): a pure
    /// function of these immutable bytes, kept so that reads of records near
    /// one another check and decode a piece once. At most
    /// ``checkedOffsetsLimit`` pieces; behind a lock, as readers on several
    /// threads may share the bytes.
    let checkedOffsets = Locked<[Int: [UInt32]]>([:])

    /// How many pieces' offsets ``checkedOffsets`` keeps (each 4 KiB at most).
    static let checkedOffsetsLimit = 64

    /// Bytes `range`.
    subscript(range: Range<Int>) -> UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: raw[range]) }

    /// Whether both hold the same bytes.
    func sameBytes(as other: HistoryIndexBytes) -> Bool {
        raw.count == other.raw.count && (raw.count == 0 || memcmp(raw.baseAddress!, other.raw.baseAddress!, raw.count) == 0)
    }
}

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
