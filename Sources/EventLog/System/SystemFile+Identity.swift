#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Which bytes a path holds now, as far as the file system can say without
/// reading them: the file (device, inode), its size, and when its contents
/// and its metadata last changed. Editing a file in place changes its
/// modification and change times (the change time cannot be set back by a
/// user's tools), so an equal identity means the bytes a check read are
/// still there unless the clock itself was turned back.
package struct FileIdentity: Sendable, Hashable {
    /// The device and inode.
    package var device: UInt64
    package var inode: UInt64
    /// The size in bytes.
    package var size: Int64
    /// The modification and status-change times, in nanoseconds since 1970.
    package var modified: Int64
    package var changed: Int64
}

extension SystemFile {
    /// The identity of the file at `path` now (following symbolic links), or `nil` when nothing is there.
    package static func identity(of path: String) -> FileIdentity? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        #if canImport(Darwin)
        let modified = Int64(st.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(st.st_mtimespec.tv_nsec)
        let changed = Int64(st.st_ctimespec.tv_sec) * 1_000_000_000 + Int64(st.st_ctimespec.tv_nsec)
        #else
        let modified = Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
        let changed = Int64(st.st_ctim.tv_sec) * 1_000_000_000 + Int64(st.st_ctim.tv_nsec)
        #endif
        return FileIdentity(
            device: UInt64(st.st_dev), inode: UInt64(st.st_ino), size: Int64(st.st_size), modified: modified, changed: changed)
    }
}
