/// An open file, as the log uses it. ``SystemFileSystem`` opens the real ones; tests
/// wrap it to inject I/O errors and simulate power loss (the idea of
/// LevelDB's `Env` and SQLite's VFS).
///
/// Implementations must be safe to call from several threads at once for
/// positional reads; the writer serializes everything else.
public protocol LogFile: Sendable {
    /// The path it was opened with (for messages).
    var path: String { get }
    /// The file's size in bytes.
    ///
    /// - Throws: ``EventLogError`` with code ``EventLogError/Code/ioError`` (naming the path and errno) when the OS call fails.
    func size() throws(EventLogError) -> Int64
    /// Reads into `buffer` at `offset` until it is full or the file ends; returns the bytes read.
    ///
    /// - Throws: ``EventLogError`` with code ``EventLogError/Code/ioError`` (naming the path and errno) when the OS call fails.
    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(EventLogError) -> Int
    /// Writes all of `bytes` at `offset`.
    ///
    /// - Throws: ``EventLogError`` with code ``EventLogError/Code/ioError`` (naming the path and errno) when the OS call fails.
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(EventLogError)
    /// Makes written data durable.
    ///
    /// - Throws: ``EventLogError`` with code ``EventLogError/Code/ioError`` (naming the path and errno) when the OS call fails.
    func syncData() throws(EventLogError)
    /// Makes data and metadata (size) durable.
    ///
    /// - Throws: ``EventLogError`` with code ``EventLogError/Code/ioError`` (naming the path and errno) when the OS call fails.
    func syncAll() throws(EventLogError)
    /// Cuts or extends the file to `length` bytes.
    ///
    /// - Throws: ``EventLogError`` with code ``EventLogError/Code/ioError`` (naming the path and errno) when the OS call fails.
    func truncate(to length: Int64) throws(EventLogError)
    /// Takes the exclusive lock without waiting; `false` if another holder has it.
    ///
    /// - Throws: ``EventLogError`` with code ``EventLogError/Code/ioError`` (naming the path and errno) when the OS call fails.
    func tryLockExclusive() throws(EventLogError) -> Bool
    /// Releases the file (and its lock).
    func close()
}

extension LogFile {
    /// Whether this open file is still the one at `path`: not replaced since
    /// it was opened (a log's earlier records cut off to an archive replace
    /// it with a rename). A writer that took the lock of a replaced file
    /// opens the file now at the path instead. Only a real file can be
    /// replaced; any other (a test's) is always still there.
    func isStill(at path: String) -> Bool { (self as? SystemFile)?.isStill(at: path) ?? true }

    /// Reads up to `count` bytes at `offset`; fewer only at end of file.
    ///
    /// - Throws: What ``read(at:into:)`` throws (``EventLogError/Code/ioError``).
    public func read(at offset: Int64, count: Int) throws(EventLogError) -> [UInt8] {
        // No zero-capacity uninitialized array: the standard library would store its count (0) into
        // the storage every empty array shares, a write ThreadSanitizer sees race with any empty array's read.
        guard count > 0 else { return [] }
        var failure: EventLogError?
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { raw, initialized in
            do throws(EventLogError) {
                initialized = try read(at: offset, into: UnsafeMutableRawBufferPointer(raw))
            } catch {
                failure = error
                initialized = 0
            }
        }
        if let failure { throw failure }
        return bytes
    }
}
