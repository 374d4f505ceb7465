import Foundation
import Synchronization

@testable import EventLog

/// The real file system, with a hook called before every read of a file it
/// opened (given the read's offset: a test's gate or watch), and a count of
/// the files closed.
final class ReadHookedFileSystem: LogFileSystem {
    let real = SystemFileSystem()
    let beforeRead: @Sendable (Int64) -> Void
    let closes = Atomic<Int>(0)

    init(beforeRead: @escaping @Sendable (Int64) -> Void) {
        self.beforeRead = beforeRead
    }

    func open(_ path: String, _ mode: SystemFile.Mode) throws(EventLogError) -> any LogFile {
        ReadHookedFile(inner: try real.open(path, mode), owner: self)
    }
    func exists(_ path: String) -> Bool { real.exists(path) }
    func link(_ from: String, to: String) throws(EventLogError) { try real.link(from, to: to) }
    func unlink(_ path: String) { real.unlink(path) }
    func syncDirectory(containing path: String) throws(EventLogError) { try real.syncDirectory(containing: path) }
}

/// A file of ``ReadHookedFileSystem``: the real one, its reads hooked.
final class ReadHookedFile: LogFile {
    let inner: any LogFile
    let owner: ReadHookedFileSystem

    init(inner: any LogFile, owner: ReadHookedFileSystem) {
        self.inner = inner
        self.owner = owner
    }

    var path: String { inner.path }
    func size() throws(EventLogError) -> Int64 { try inner.size() }
    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(EventLogError) -> Int {
        owner.beforeRead(offset)
        return try inner.read(at: offset, into: buffer)
    }
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(EventLogError) { try inner.write(bytes, at: offset) }
    func syncData() throws(EventLogError) { try inner.syncData() }
    func syncAll() throws(EventLogError) { try inner.syncAll() }
    func truncate(to length: Int64) throws(EventLogError) { try inner.truncate(to: length) }
    func tryLockExclusive() throws(EventLogError) -> Bool { try inner.tryLockExclusive() }
    func close() {
        owner.closes.add(1, ordering: .relaxed)
        inner.close()
    }
}
