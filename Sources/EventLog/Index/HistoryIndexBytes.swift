/// The bytes of a history index file, read in place: a read-only mapping of
/// the file (an index is only ever replaced by a rename, never rewritten, so
/// mapping it is safe) or a copy of bytes built in memory.
///
/// Immutable once made, hence `@unchecked Sendable`: it holds a raw pointer
/// (and the ``MappedFile`` that owns it) that nothing writes through.
final class HistoryIndexBytes: @unchecked Sendable {
    /// The file's bytes, header included.
    let raw: UnsafeRawBufferPointer
    private let mapping: MappedFile?
    private let owned: UnsafeMutableRawBufferPointer?

    /// The file at `path`, mapped.
    init(mapping path: String) throws(EventLogError) {
        let file = try MappedFile(path: path)
        mapping = file
        owned = nil
        raw = file.bytes
    }

    /// A copy of `bytes`.
    init(copying bytes: [UInt8]) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 16)
        bytes.withUnsafeBytes { buffer.copyMemory(from: $0) }
        owned = buffer
        mapping = nil
        raw = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[0..<bytes.count])
    }

    deinit { owned?.deallocate() }

    /// Bytes `range` of the file.
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
