/// The file-system operations the log needs beyond an open file (``LogFile``).
/// ``SystemFileSystem`` is the real one; tests wrap it to inject faults.
public protocol LogFileSystem: Sendable {
    /// Opens a file.
    ///
    /// - Throws: ``EventLogError``: ``EventLogError/Code/fileNotFound`` for a
    ///   missing file, ``EventLogError/Code/fileExists`` for an existing one
    ///   under ``LogFileMode/createExclusive``,
    ///   ``EventLogError/Code/notARegularFile`` (without blocking) for a
    ///   directory, FIFO, socket or device, ``EventLogError/Code/ioError``
    ///   when the OS call fails.
    func open(_ path: String, _ mode: LogFileMode) throws(EventLogError) -> any LogFile
    /// Whether something exists at `path`.
    func exists(_ path: String) -> Bool
    /// Hard-links `from` to `to`, never replacing `to`.
    ///
    /// - Throws: ``EventLogError`` with code ``EventLogError/Code/ioError`` (naming the path and errno) when the OS call fails.
    func link(_ from: String, to: String) throws(EventLogError)
    /// Removes a file (a missing one is not an error).
    func unlink(_ path: String)
    /// Renames `from` to `to`, replacing `to` atomically.
    ///
    /// - Throws: ``EventLogError`` with code ``EventLogError/Code/ioError`` (naming the path and errno) when the OS call fails.
    func rename(_ from: String, to: String) throws(EventLogError)
    /// Makes a create, link or rename in the directory of `path` durable.
    ///
    /// - Throws: ``EventLogError`` with code ``EventLogError/Code/ioError`` (naming the path and errno) when the OS call fails.
    func syncDirectory(containing path: String) throws(EventLogError)
}

extension LogFileSystem {
    /// Renames through the operating system: a file system that wraps the
    /// real one and does not model renames may rely on it.
    public func rename(_ from: String, to: String) throws(EventLogError) { try SystemFile.rename(from, to: to) }
}

/// How ``LogFileSystem/open(_:_:)`` opens a file.
public enum LogFileMode: Sendable, Hashable {
    /// Read only.
    case readOnly
    /// Read and write; the file must exist.
    case readWrite
    /// Read and write; create the file, failing if it exists.
    case createExclusive
}
