#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension Platform {
    /// Which file a path names: its device and inode. A file moved or copied
    /// over the path has another identity; one cut or appended to keeps its own.
    struct FileIdentity: Equatable, Sendable {
        let device: UInt64
        let inode: UInt64
    }

    /// The identity of the file at `path` now (following symbolic links), or `nil` if there is none.
    static func identity(of path: String) -> FileIdentity? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return FileIdentity(device: UInt64(st.st_dev), inode: UInt64(st.st_ino))
    }

    /// The kind of what is at `path`, when it is not something to read as a file
    /// (`"a directory"`), or `nil` for a regular file, a pipe, or nothing.
    static func unreadableKind(_ path: String) -> String? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return st.st_mode & S_IFMT == S_IFDIR ? "a directory" : nil
    }

    /// What an output path names now, following symbolic links.
    enum OutputTarget: Equatable, Sendable {
        /// Nothing, or a regular file: written aside and renamed over it.
        case replaceable
        /// A directory: nothing can be written there.
        case directory
        /// A device, a FIFO or a socket (`/dev/null`, `/dev/stdout`, a pipe):
        /// written into as it is; renaming over it would replace the node.
        case special
    }

    /// What `path` names now, for writing an output there (``OutputTarget``).
    static func outputTarget(_ path: String) -> OutputTarget {
        var st = stat()
        guard stat(path, &st) == 0 else { return .replaceable }
        switch st.st_mode & S_IFMT {
        case S_IFREG: return .replaceable
        case S_IFDIR: return .directory
        default: return .special
        }
    }

    /// Opens `path` for reading; standard input is descriptor 0 and needs no opening.
    static func openForReading(_ path: String) throws(SystemError) -> Int32 {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw SystemError(code: errno, what: "cannot open the file") }
        return descriptor
    }

    /// Closes a descriptor ``openForReading(_:)`` returned.
    static func closeFile(_ descriptor: Int32) { _ = close(descriptor) }

    /// The size of the open file `descriptor` if it is a regular file (for progress), else `nil`.
    static func regularFileSize(_ descriptor: Int32) -> Int64? {
        var st = stat()
        guard fstat(descriptor, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }
        return Int64(st.st_size)
    }

    /// Reads what is available from `descriptor` into `buffer` (0 at the end). While
    /// nothing is available it waits in steps of 100 ms, and throws ``Interrupted``
    /// once a deferred interrupt arrived, or ``Stopped`` once `stop` returns true — so a
    /// thread waiting for input (a pipe, a terminal) never outlives the command.
    static func readSome(
        _ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, what: String, stop: () -> Bool = { false }
    ) throws -> Int {
        while true {
            try checkInterrupt()
            if stop() { throw Stopped() }
            var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&waiting, 1, 100)
            if ready == 0 { continue }
            if ready < 0 {
                let code = errno
                if code == EINTR { continue }
                throw SystemError(code: code, what: what)
            }
            let count = read(descriptor, buffer.baseAddress, buffer.count)
            if count >= 0 { return count }
            let code = errno
            if code == EINTR || code == EAGAIN { continue }
            throw SystemError(code: code, what: what)
        }
    }

    /// What ``readSome(_:into:what:stop:)`` throws when asked to stop.
    struct Stopped: Error {}
}
