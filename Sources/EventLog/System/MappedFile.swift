#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A whole file mapped read-only into memory (`mmap`, `MAP_PRIVATE`), for
/// reading a large file that is never modified in place — a snapshot, which
/// is only ever replaced by a rename — without copying it first.
///
/// The mapping lives as long as the value; ``bytes`` must not be used after
/// it is released. Thread safety: immutable (not `Sendable`: it holds a raw
/// pointer; use it from one place). A file truncated by
/// someone else while mapped would make reads fault, so map only files that
/// are replaced atomically, never rewritten.
package final class MappedFile {
    private let base: UnsafeRawPointer?
    private let count: Int

    /// The file's bytes (empty for an empty file).
    package var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    /// Maps the file at `path`. Throws `fileNotFound` or `ioError` with the errno.
    package init(path: String) throws(EventLogError) {
        let file = try SystemFile.open(path, .readOnly)
        defer { file.close() }
        let size = try file.size()
        guard size > 0 else {
            base = nil
            count = 0
            return
        }
        guard size <= Int64(Int.max) else { throw EventLogError(.ioError, "the file is too large to map (\(size) bytes)", path: path) }
        let address = mmap(nil, Int(size), PROT_READ, MAP_PRIVATE, file.descriptor, 0)
        guard let address, address != MAP_FAILED else {
            throw EventLogError(.ioError, "cannot map the file", path: path, errno: errno)
        }
        base = UnsafeRawPointer(address)
        count = Int(size)
    }

    deinit {
        if let base { munmap(UnsafeMutableRawPointer(mutating: base), count) }
    }
}
