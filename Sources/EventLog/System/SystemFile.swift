#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("SystemFile needs Darwin, Glibc or Musl")
#endif

/// Every operating-system call the log makes, in one place.
///
/// An open file of the real file system (``SystemFileSystem`` opens these),
/// a file descriptor with the few operations a log needs. Errors are
/// ``EventLogError`` values with code `ioError`, the path, and the `errno`.
/// `SystemFile` is a plain value; whoever opens one closes it.
package struct SystemFile: LogFile {
    /// The file descriptor.
    package let descriptor: Int32
    /// The path it was opened with (for messages).
    package let path: String

    /// How to open a file (``LogFileMode``).
    package typealias Mode = LogFileMode

    /// Opens `path`. A missing file gives code `fileNotFound`; an existing
    /// one under `.createExclusive` gives `fileExists`. Anything but a regular
    /// file — a directory, a FIFO, a socket, a device — gives `notARegularFile`,
    /// naming what it is, and never blocks: the file is opened with
    /// `O_NONBLOCK` (an `open` of a FIFO without a writer would otherwise wait
    /// for one forever), its type checked with `fstat` on the descriptor
    /// itself (so a file swapped in after a path check cannot slip through),
    /// and only then is `O_NONBLOCK` cleared. The path is also checked before
    /// opening, so that a device is not opened at all in the usual case
    /// (opening some devices has effects).
    package static func open(_ path: String, _ mode: Mode) throws(EventLogError) -> SystemFile {
        var flags: Int32
        switch mode {
        case .readOnly: flags = O_RDONLY
        case .readWrite: flags = O_RDWR
        case .createExclusive: flags = O_RDWR | O_CREAT | O_EXCL
        }
        if mode != .createExclusive {
            var st = stat()
            if stat(path, &st) == 0, let kind = specialKind(st.st_mode) { throw notRegular(path, kind) }
        }
        flags |= O_CLOEXEC | O_NOCTTY | O_NONBLOCK
        let fd = retryingInterrupts { path.withCString { Glue.open($0, flags, 0o644) } }
        if fd < 0 {
            let e = currentErrno()
            if e == ENOENT { throw EventLogError(.fileNotFound, "no such file", path: path, errno: e) }
            if e == EEXIST { throw EventLogError(.fileExists, "a file already exists", path: path, errno: e) }
            if e == EISDIR { throw notRegular(path, "a directory") }
            throw EventLogError(.ioError, "cannot open the file", path: path, errno: e)
        }
        var st = stat()
        if fstat(fd, &st) != 0 {
            let e = currentErrno()
            _ = Glue.close(fd)
            throw EventLogError(.ioError, "cannot stat the file", path: path, errno: e)
        }
        if let kind = specialKind(st.st_mode) {
            _ = Glue.close(fd)
            throw notRegular(path, kind)
        }
        let status = fcntl(fd, F_GETFL)
        if status < 0 || fcntl(fd, F_SETFL, status & ~O_NONBLOCK) != 0 {
            let e = currentErrno()
            _ = Glue.close(fd)
            throw EventLogError(.ioError, "cannot clear O_NONBLOCK", path: path, errno: e)
        }
        return SystemFile(descriptor: fd, path: path)
    }

    /// What a file of this mode is, with its article ("a FIFO (named pipe)"), or `nil` for a regular file.
    static func specialKind(_ mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: nil
        case S_IFDIR: "a directory"
        case S_IFIFO: "a FIFO (named pipe)"
        case S_IFSOCK: "a socket"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        default: "a special file (type \(String(mode & S_IFMT, radix: 8)))"
        }
    }

    private static func notRegular(_ path: String, _ kind: String) -> EventLogError {
        EventLogError(.notARegularFile, "not a regular file: this is \(kind); a log or snapshot must be a regular file", path: path)
    }

    /// Whether the descriptor is still the file at `path` (same device and inode); `false` when nothing is there.
    package func isStill(at path: String) -> Bool {
        var held = stat()
        var named = stat()
        guard fstat(descriptor, &held) == 0, stat(path, &named) == 0 else { return false }
        return held.st_ino == named.st_ino && held.st_dev == named.st_dev
    }

    /// Closes the descriptor (errors are ignored: nothing can be done about them).
    package func close() { _ = Glue.close(descriptor) }

    /// The file's size in bytes.
    package func size() throws(EventLogError) -> Int64 {
        var st = stat()
        guard fstat(descriptor, &st) == 0 else { throw failure("cannot stat the file") }
        return Int64(st.st_size)
    }

    /// Reads into `buffer` at `offset` until it is full or the file ends; returns the bytes read.
    package func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(EventLogError) -> Int {
        var done = 0
        while done < buffer.count {
            let n = retryingInterrupts {
                pread(descriptor, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
            }
            if n < 0 { throw failure("cannot read", offset: offset + Int64(done)) }
            if n == 0 { break }
            done += n
        }
        return done
    }

    /// Writes all of `bytes` at `offset`.
    package func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(EventLogError) {
        var done = 0
        while done < bytes.count {
            let n = retryingInterrupts {
                pwrite(descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
            }
            if n < 0 { throw failure("cannot write", offset: offset + Int64(done)) }
            done += n
        }
    }

    /// Makes written data durable: `fdatasync` on Linux, `F_FULLFSYNC` on
    /// Apple platforms (plain `fsync` there does not flush the drive cache).
    package func syncData() throws(EventLogError) {
        #if canImport(Darwin)
        if fcntl(descriptor, F_FULLFSYNC) == 0 { return }
        guard fsync(descriptor) == 0 else { throw failure("cannot sync the file") }
        #else
        guard retryingInterrupts({ fdatasync(descriptor) }) == 0 else { throw failure("cannot sync the file") }
        #endif
    }

    /// Makes data and metadata durable (`fsync`, or `F_FULLFSYNC` on Apple platforms).
    package func syncAll() throws(EventLogError) {
        #if canImport(Darwin)
        if fcntl(descriptor, F_FULLFSYNC) == 0 { return }
        #endif
        guard retryingInterrupts({ fsync(descriptor) }) == 0 else { throw failure("cannot sync the file") }
    }

    /// Cuts or extends the file to `length` bytes.
    package func truncate(to length: Int64) throws(EventLogError) {
        guard retryingInterrupts({ ftruncate(descriptor, off_t(length)) }) == 0 else {
            throw failure("cannot truncate the file", offset: length)
        }
    }

    /// Takes the exclusive advisory lock without waiting (`flock`). Returns
    /// `false` when another open file description holds it.
    package func tryLockExclusive() throws(EventLogError) -> Bool {
        if retryingInterrupts({ flock(descriptor, LOCK_EX | LOCK_NB) }) == 0 { return true }
        let e = currentErrno()
        if e == EWOULDBLOCK || e == EAGAIN { return false }
        throw EventLogError(.ioError, "cannot lock the file", path: path, errno: e)
    }

    /// Syncs the directory that holds `path`, so that a create or rename in it is durable.
    package static func syncDirectory(containing path: String) throws(EventLogError) {
        let dir = directoryName(of: path)
        let fd = retryingInterrupts { dir.withCString { Glue.open($0, O_RDONLY | O_CLOEXEC, 0) } }
        guard fd >= 0 else { throw EventLogError(.ioError, "cannot open the directory to sync it", path: dir, errno: currentErrno()) }
        defer { _ = Glue.close(fd) }
        if fsync(fd) != 0 {
            let e = currentErrno()
            // Some file systems refuse fsync on directories; that is not data loss.
            if e != EINVAL && e != EBADF { throw EventLogError(.ioError, "cannot sync the directory", path: dir, errno: e) }
        }
    }

    /// Creates a hard link `to` for `from`; fails with `fileExists` if `to` exists (never overwrites).
    package static func link(_ from: String, to: String) throws(EventLogError) {
        guard Glue.link(from, to) == 0 else {
            let e = currentErrno()
            if e == EEXIST { throw EventLogError(.fileExists, "a file already exists", path: to, errno: e) }
            throw EventLogError(.ioError, "cannot link \(from)", path: to, errno: e)
        }
    }

    /// Renames `from` to `to`, replacing `to` atomically.
    package static func rename(_ from: String, to: String) throws(EventLogError) {
        guard Glue.rename(from, to) == 0 else {
            throw EventLogError(.ioError, "cannot rename \(from)", path: to, errno: currentErrno())
        }
    }

    /// Removes a file; a missing file is not an error.
    package static func unlink(_ path: String) {
        _ = Glue.unlink(path)
    }

    /// Whether something exists at `path`.
    package static func exists(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0
    }

    /// The current process id (used to name temporary files).
    package static var processID: Int32 { getpid() }

    /// Whether a process with this id exists (`kill(pid, 0)`; a process we
    /// may not signal still counts as existing). Used to tell a temporary
    /// file of a crashed creator from one being written right now.
    package static func processExists(_ pid: Int32) -> Bool {
        guard pid > 0 else { return false }
        return kill(pid, 0) == 0 || errno != ESRCH
    }

    /// The names of the entries of a directory (empty if it cannot be read).
    package static func directoryEntries(_ directory: String) -> [String] {
        (try? listDirectory(directory)) ?? []
    }

    /// The names of the entries of a directory (`opendir`/`readdir`: no entry
    /// is `stat`ed, so files that come and go meanwhile do not fail it).
    ///
    /// - Throws: ``EventLogError`` (`ioError`, or `fileNotFound`) naming the
    ///   directory and the `errno` when it cannot be opened or read.
    package static func listDirectory(_ directory: String) throws(EventLogError) -> [String] {
        guard let dir = opendir(directory) else {
            let e = errno
            throw EventLogError(e == ENOENT ? .fileNotFound : .ioError, "cannot list the directory: \(describe(errno: e))", path: directory)
        }
        defer { closedir(dir) }
        var names: [String] = []
        while true {
            errno = 0
            guard let entry = readdir(dir) else {
                let e = errno
                if e != 0 { throw EventLogError(.ioError, "cannot read the directory: \(describe(errno: e))", path: directory) }
                return names
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
    }

    /// A readable name for an `errno` value, e.g. `ENOSPC (No space left on device)`.
    package static func describe(errno e: Int32) -> String {
        let text = strerror(e).map { String(cString: $0) } ?? "unknown error"
        return "errno \(e) (\(text))"
    }

    /// The directory part of a path (`.` when there is none).
    package static func directoryName(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let dir = String(path[..<slash])
        return dir.isEmpty ? "/" : dir
    }

    private func failure(_ what: String, offset: Int64? = nil) -> EventLogError {
        EventLogError(.ioError, what, path: path, offset: offset, errno: currentErrno())
    }
}

@inline(__always)
private func currentErrno() -> Int32 { errno }

private func retryingInterrupts<T: FixedWidthInteger>(_ call: () -> T) -> T {
    while true {
        let result = call()
        if result < 0 && errno == EINTR { continue }
        return result
    }
}

/// Disambiguates the C functions from `SystemFile`'s own method names.
private enum Glue {
    static func open(_ path: UnsafePointer<CChar>, _ flags: Int32, _ mode: mode_t) -> Int32 {
        #if canImport(Darwin)
        Darwin.open(path, flags, mode)
        #elseif canImport(Glibc)
        Glibc.open(path, flags, mode)
        #else
        Musl.open(path, flags, mode)
        #endif
    }
    static func close(_ fd: Int32) -> Int32 {
        #if canImport(Darwin)
        Darwin.close(fd)
        #elseif canImport(Glibc)
        Glibc.close(fd)
        #else
        Musl.close(fd)
        #endif
    }
    static func link(_ a: String, _ b: String) -> Int32 {
        #if canImport(Darwin)
        Darwin.link(a, b)
        #elseif canImport(Glibc)
        Glibc.link(a, b)
        #else
        Musl.link(a, b)
        #endif
    }
    static func rename(_ a: String, _ b: String) -> Int32 {
        #if canImport(Darwin)
        Darwin.rename(a, b)
        #elseif canImport(Glibc)
        Glibc.rename(a, b)
        #else
        Musl.rename(a, b)
        #endif
    }
    static func unlink(_ a: String) -> Int32 {
        #if canImport(Darwin)
        Darwin.unlink(a)
        #elseif canImport(Glibc)
        Glibc.unlink(a)
        #else
        Musl.unlink(a)
        #endif
    }
}
