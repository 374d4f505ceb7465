import Foundation

@testable import EventLog

/// An open file of ``FaultyFileSystem``: every call is counted and may fail
/// as the file system's faults say; writes, truncations and syncs are recorded
/// in the file's ``FileHistory``.
final class FaultyFile: LogFile {
    let inner: any LogFile
    let fs: FaultyFileSystem
    init(inner: any LogFile, fs: FaultyFileSystem) {
        self.inner = inner
        self.fs = fs
    }

    var path: String { inner.path }

    func size() throws(EventLogError) -> Int64 {
        if fs.hasCrashed { throw EventLogError(.ioError, "injected: the process has crashed", path: path, errno: EIO) }
        return try inner.size()
    }

    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(EventLogError) -> Int {
        if let fault = try fs.enter(.read, path: path) { throw fs.error(fault, "cannot read", path: path) }
        return try inner.read(at: offset, into: buffer)
    }

    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(EventLogError) {
        let kind: FaultyFileSystem.Op = FileHistory.isAllZero(bytes) ? .zeroWrite : .recordWrite
        if let fault = try fs.enter(.write, kind, path: path) {
            let landed = fault.afterWrite ? bytes.count : min(fault.partialBytes, bytes.count)
            if landed > 0 {
                let part = UnsafeRawBufferPointer(rebasing: bytes[0..<landed])
                try inner.write(part, at: offset)
                fs.recordChange(path: path, .write(offset: Int(offset), bytes: Array(part)))
            }
            if fault.crashes { fs.crashNow() }
            throw fs.error(fault, "cannot write", path: path)
        }
        try inner.write(bytes, at: offset)
        fs.recordChange(path: path, .write(offset: Int(offset), bytes: Array(bytes)))
    }

    func syncData() throws(EventLogError) { try sync(.syncData) }
    func syncAll() throws(EventLogError) { try sync(.syncAll) }

    /// A sync under the fsyncgate model: it covers the changes made before it
    /// began; a failure drops them (and, when the file system evicts, reverts
    /// the real file's bytes so reads see what is durable).
    private func sync(_ op: FaultyFileSystem.Op) throws(EventLogError) {
        let site = fs.syncSite(op, path: path)
        let fault = try fs.enter(op, site, path: path)
        let coverage = fs.beginSync(path: path)
        if let fault {
            for (offset, bytes) in fs.syncFailed(path: path, op: op, site: site, coverage) {
                try? bytes.withBytes { (raw) throws(EventLogError) in try inner.write(raw, at: Int64(offset)) }
            }
            throw fs.error(fault, "cannot sync", path: path)
        }
        if fs.performsRealSyncs {
            if op == .syncData { try inner.syncData() } else { try inner.syncAll() }
        }
        guard fs.syncSucceeded(path: path, coverage) else {
            throw EventLogError(.ioError, "injected: the process crashed during the sync", path: path, errno: EIO)
        }
    }

    func truncate(to length: Int64) throws(EventLogError) {
        if let fault = try fs.enter(.truncate, path: path) { throw fs.error(fault, "cannot truncate", path: path) }
        try inner.truncate(to: length)
        fs.recordChange(path: path, .truncate(length: Int(length)))
    }

    func tryLockExclusive() throws(EventLogError) -> Bool { try inner.tryLockExclusive() }
    func close() { inner.close() }
}
