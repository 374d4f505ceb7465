/// The real file system: the operating system's (`open`, `link`, `unlink`,
/// `fsync` of the directory), through the package's one wrapper of OS calls.
/// Safe to use from any thread.
public struct SystemFileSystem: LogFileSystem {
    /// Creates the real file system.
    public init() {}
    /// Opens `path` (see ``LogFileSystem/open(_:_:)``), never blocking on a FIFO.
    ///
    /// - Throws: ``EventLogError``: ``EventLogError/Code/fileNotFound``,
    ///   ``EventLogError/Code/fileExists``, ``EventLogError/Code/notARegularFile``,
    ///   ``EventLogError/Code/ioError``.
    public func open(_ path: String, _ mode: LogFileMode) throws(EventLogError) -> any LogFile { try SystemFile.open(path, mode) }
    /// Whether something exists at `path`.
    public func exists(_ path: String) -> Bool { SystemFile.exists(path) }
    /// Hard-links `from` to `to`, never replacing `to`.
    ///
    /// - Throws: ``EventLogError``: ``EventLogError/Code/fileExists`` when `to` exists; ``EventLogError/Code/ioError`` otherwise.
    public func link(_ from: String, to: String) throws(EventLogError) { try SystemFile.link(from, to: to) }
    /// Removes the file at `path` (a missing one is not an error).
    public func unlink(_ path: String) { SystemFile.unlink(path) }
    /// Renames `from` to `to`, replacing `to` atomically (`rename`).
    ///
    /// - Throws: ``EventLogError`` with code ``EventLogError/Code/ioError`` when the OS call fails.
    public func rename(_ from: String, to: String) throws(EventLogError) { try SystemFile.rename(from, to: to) }
    /// Makes a create, link or rename in the directory of `path` durable (`fsync` of the directory).
    ///
    /// - Throws: ``EventLogError`` with code ``EventLogError/Code/ioError`` when the directory cannot be opened or synced.
    public func syncDirectory(containing path: String) throws(EventLogError) { try SystemFile.syncDirectory(containing: path) }
}

/// The real file system's old name.
@available(*, deprecated, renamed: "SystemFileSystem")
public typealias PosixFileSystem = SystemFileSystem
