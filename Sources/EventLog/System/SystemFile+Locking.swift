#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A file that several processes update in place (`LOG.checkpoints`): opened
/// or created, and locked exclusively for the duration of an update.
extension SystemFile {
    /// Opens `path` for reading and writing, creating it (empty) when it is
    /// missing. Returns the file and whether this call created it (the caller
    /// then syncs the directory once it matters). Two processes that race to
    /// create it open the same file.
    ///
    /// - Throws: ``EventLogError`` as ``open(_:_:)`` does.
    package static func openCreating(_ path: String) throws(EventLogError) -> (file: SystemFile, created: Bool) {
        while true {
            do throws(EventLogError) {
                return (try open(path, .readWrite), false)
            } catch let error where error.code == .fileNotFound {}
            do throws(EventLogError) {
                return (try open(path, .createExclusive), true)
            } catch let error where error.code == .fileExists {}
        }
    }

    /// Takes the exclusive advisory lock (`flock`), waiting for another open
    /// file description — of this process or another — that holds it. The
    /// lock is released when the descriptor is closed (or the process ends).
    ///
    /// - Throws: ``EventLogError/Code/ioError`` when the OS call fails.
    package func lockExclusive() throws(EventLogError) {
        while flock(descriptor, LOCK_EX) != 0 {
            let e = errno
            if e == EINTR { continue }
            throw EventLogError(.ioError, "cannot lock the file", path: path, errno: e)
        }
    }
}
