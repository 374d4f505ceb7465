/// The real file system: the operating system's, whose open files are
/// ``SystemFile``s. Every method is the `SystemFile` call of the same name.
public struct SystemFileSystem: LogFileSystem {
    /// Creates the real file system.
    public init() {}
    /// Opens `path` with ``SystemFile/open(_:_:)``.
    public func open(_ path: String, _ mode: SystemFile.Mode) throws(EventLogError) -> any LogFile { try SystemFile.open(path, mode) }
    /// ``SystemFile/exists(_:)``.
    public func exists(_ path: String) -> Bool { SystemFile.exists(path) }
    /// ``SystemFile/link(_:to:)``.
    public func link(_ from: String, to: String) throws(EventLogError) { try SystemFile.link(from, to: to) }
    /// ``SystemFile/unlink(_:)``.
    public func unlink(_ path: String) { SystemFile.unlink(path) }
    /// ``SystemFile/syncDirectory(containing:)``.
    public func syncDirectory(containing path: String) throws(EventLogError) { try SystemFile.syncDirectory(containing: path) }
}

/// The real file system's old name.
@available(*, deprecated, renamed: "SystemFileSystem")
public typealias PosixFileSystem = SystemFileSystem
