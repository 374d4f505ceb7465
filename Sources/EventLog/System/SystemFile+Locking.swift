#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A file that several processes update in place (`LOG.checkpoints`,
/// `LOG.index-delta`): opened or created, and locked exclusively for the
/// duration of an update.
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

    /// Opens (creating it when missing) and locks `path` exclusively, for a
    /// file that updaters also replace by renaming a new one over it: once the
    /// lock is taken, the descriptor must still be the file at `path` (an
    /// updater that held the lock may have replaced it meanwhile); if it is
    /// not, the lock is released and taken again on the file now there. So
    /// every updater of the file, including those that replace it, runs one at
    /// a time.
    ///
    /// - Throws: ``EventLogError`` as ``open(_:_:)`` and ``lockExclusive()`` do.
    package static func openLockedReplaceable(_ path: String) throws(EventLogError) -> SystemFile {
        while true {
            let (file, _) = try openCreating(path)
            do throws(EventLogError) {
                try file.lockExclusive()
            } catch {
                file.close()
                throw error
            }
            var held = stat()
            var named = stat()
            guard fstat(file.descriptor, &held) == 0 else {
                let e = errno
                file.close()
                throw EventLogError(.ioError, "cannot stat the file", path: path, errno: e)
            }
            if stat(path, &named) == 0, held.st_ino == named.st_ino, held.st_dev == named.st_dev { return file }
            file.close()
        }
    }
}
