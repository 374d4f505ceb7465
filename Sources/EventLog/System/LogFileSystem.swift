/// The file-system operations the log needs beyond an open file (``LogFile``).
/// ``SystemFileSystem`` is the real one; tests wrap it to inject faults.
public protocol LogFileSystem: Sendable {
    /// Opens a file; `fileNotFound` / `fileExists` as ``SystemFile/open(_:_:)``.
    func open(_ path: String, _ mode: SystemFile.Mode) throws(EventLogError) -> any LogFile
    /// Whether something exists at `path`.
    func exists(_ path: String) -> Bool
    /// Hard-links `from` to `to`, never replacing `to`.
    func link(_ from: String, to: String) throws(EventLogError)
    /// Removes a file (a missing one is not an error).
    func unlink(_ path: String)
    /// Makes a create, link or rename in the directory of `path` durable.
    func syncDirectory(containing path: String) throws(EventLogError)
}
