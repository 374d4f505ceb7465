import Foundation
@testable import EventLog

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file system that wraps the real one, counts every call, fails chosen
/// calls with chosen errnos, and remembers what was written since the last
/// sync so a test can build the file a power loss could leave behind
/// (LevelDB's fault-injection `Env`, SQLite's crash-test VFS).
final class FaultyFileSystem: LogFileSystem {
    enum Op: String, CaseIterable, Sendable {
        case open, read, write, syncData, syncAll, truncate, link, syncDirectory
        /// Writes that carry records, i.e. are not all zero bytes (preallocation). Every
        /// such write counts as both `.write` and `.recordWrite`.
        case recordWrite
    }

    /// A rule: fail calls of `op` number `first...` (1-based, counted per op), `times` times.
    struct Fault: Sendable {
        var op: Op
        var first: Int
        var times: Int = 1
        var errno: Int32 = EIO
        /// For writes: how many bytes land before the failure.
        var partialBytes: Int = 0
        /// Perform the write fully, then fail: a process dying between write and sync.
        var afterWrite = false
    }

    struct Pending: Sendable {
        var offset: Int64
        var bytes: [UInt8]
    }

    struct State {
        var calls: [Op: Int] = [:]
        var faults: [Fault] = []
        var injected = 0
        /// The bytes each file had at its last successful sync (or when first opened).
        var durable: [String: [UInt8]] = [:]
        /// Writes since that sync, in order.
        var pending: [String: [Pending]] = [:]
    }

    let real = PosixFileSystem()
    let state = Locked(State())

    var injectedCount: Int { state.withLock { $0.injected } }

    func add(_ fault: Fault) { state.withLock { $0.faults.append(fault) } }
    func clearFaults() { state.withLock { $0.faults.removeAll() } }
    func calls(_ op: Op) -> Int { state.withLock { $0.calls[op, default: 0] } }

    /// Counts the call and returns the fault to inject, if any.
    func check(_ op: Op, path: String) -> Fault? {
        state.withLock { s in
            let n = s.calls[op, default: 0] + 1
            s.calls[op] = n
            guard let fault = s.faults.first(where: { $0.op == op && n >= $0.first && n < $0.first + $0.times }) else { return nil }
            s.injected += 1
            return fault
        }
    }

    func error(_ fault: Fault, _ what: String, path: String) -> EventLogError {
        EventLogError(.ioError, "injected: \(what)", path: path, errno: fault.errno)
    }

    func open(_ path: String, _ mode: SystemFile.Mode) throws(EventLogError) -> any LogFile {
        if let fault = check(.open, path: path) { throw error(fault, "cannot open the file", path: path) }
        let file = try real.open(path, mode)
        let size = try file.size()
        let current = try file.read(at: 0, count: Int(size))
        state.withLock { s in
            if s.durable[path] == nil || mode == .createExclusive {
                s.durable[path] = mode == .createExclusive ? [] : current
                s.pending[path] = []
            }
        }
        return FaultyFile(inner: file, fs: self)
    }

    func exists(_ path: String) -> Bool { real.exists(path) }
    func link(_ from: String, to: String) throws(EventLogError) {
        if let fault = check(.link, path: to) { throw error(fault, "cannot link", path: to) }
        try real.link(from, to: to)
        state.withLock { s in
            s.durable[to] = s.durable[from]
            s.pending[to] = s.pending[from]
        }
    }
    func unlink(_ path: String) { real.unlink(path) }
    func syncDirectory(containing path: String) throws(EventLogError) {
        if let fault = check(.syncDirectory, path: path) { throw error(fault, "cannot sync the directory", path: path) }
        try real.syncDirectory(containing: path)
    }

    func recordWrite(path: String, offset: Int64, bytes: UnsafeRawBufferPointer) {
        state.withLock { s in s.pending[path, default: []].append(Pending(offset: offset, bytes: Array(bytes))) }
    }

    func recordSync(path: String, current: [UInt8]) {
        state.withLock { s in
            s.durable[path] = current
            s.pending[path] = []
        }
    }

    /// How the unsynced writes fare in a simulated power loss.
    enum Loss: CaseIterable {
        /// All unsynced writes are lost.
        case dropAll
        /// A prefix of them survives, the next one partly.
        case partial
        /// As `partial`, then the last 512-byte sector written holds garbage.
        case garbageSector
        /// As `partial`, then the last 512-byte sector written is zeroed.
        case zeroSector
    }

    /// The bytes `path` could hold after a power loss now.
    func imageAfterPowerLoss(_ path: String, loss: Loss, using rng: inout some RandomNumberGenerator) -> [UInt8] {
        let (durable, pending) = state.withLock { s in (s.durable[path] ?? [], s.pending[path] ?? []) }
        var image = durable
        func apply(_ p: Pending, count: Int) {
            let end = Int(p.offset) + count
            if image.count < end { image += [UInt8](repeating: 0, count: end - image.count) }
            for i in 0..<count { image[Int(p.offset) + i] = p.bytes[i] }
        }
        guard loss != .dropAll, !pending.isEmpty else { return image }
        let survivors = Int.random(in: 0..<pending.count, using: &rng)
        for p in pending[..<survivors] { apply(p, count: p.bytes.count) }
        let torn = pending[survivors]
        let kept = Int.random(in: 0...torn.bytes.count, using: &rng)
        apply(torn, count: kept)
        // Damage stays inside the bytes written since the sync (sectors are assumed to be written atomically
        // with respect to earlier synced data).
        let pendingStart = Int(pending.map(\.offset).min()!)
        let pendingEnd = pending.map { Int($0.offset) + $0.bytes.count }.max()!
        let sectorStart = max(pendingStart, (Int(torn.offset) + kept) / 512 * 512)
        let sectorEnd = min(image.count, pendingEnd, sectorStart + 512)
        if sectorStart < sectorEnd {
            for i in sectorStart..<sectorEnd {
                switch loss {
                case .garbageSector: image[i] = UInt8.random(in: 0...255, using: &rng)
                case .zeroSector: image[i] = 0
                default: break
                }
            }
        }
        return image
    }
}

/// An open file of ``FaultyFileSystem``.
final class FaultyFile: LogFile {
    let inner: any LogFile
    let fs: FaultyFileSystem
    init(inner: any LogFile, fs: FaultyFileSystem) {
        self.inner = inner
        self.fs = fs
    }

    var path: String { inner.path }
    func size() throws(EventLogError) -> Int64 { try inner.size() }

    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(EventLogError) -> Int {
        if let fault = fs.check(.read, path: path) { throw fs.error(fault, "cannot read", path: path) }
        return try inner.read(at: offset, into: buffer)
    }

    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(EventLogError) {
        let anyWriteFault = fs.check(.write, path: path)
        let recordFault = bytes.contains(where: { $0 != 0 }) ? fs.check(.recordWrite, path: path) : nil
        if let fault = anyWriteFault ?? recordFault {
            let landed = fault.afterWrite ? bytes.count : min(fault.partialBytes, bytes.count)
            if landed > 0 {
                let part = UnsafeRawBufferPointer(rebasing: bytes[0..<landed])
                try inner.write(part, at: offset)
                fs.recordWrite(path: path, offset: offset, bytes: part)
            }
            throw fs.error(fault, "cannot write", path: path)
        }
        try inner.write(bytes, at: offset)
        fs.recordWrite(path: path, offset: offset, bytes: bytes)
    }

    func syncData() throws(EventLogError) {
        if let fault = fs.check(.syncData, path: path) { throw fs.error(fault, "cannot sync", path: path) }
        try inner.syncData()
        fs.recordSync(path: path, current: try inner.read(at: 0, count: Int(try inner.size())))
    }

    func syncAll() throws(EventLogError) {
        if let fault = fs.check(.syncAll, path: path) { throw fs.error(fault, "cannot sync", path: path) }
        try inner.syncAll()
        fs.recordSync(path: path, current: try inner.read(at: 0, count: Int(try inner.size())))
    }

    func truncate(to length: Int64) throws(EventLogError) {
        if let fault = fs.check(.truncate, path: path) { throw fs.error(fault, "cannot truncate", path: path) }
        try inner.truncate(to: length)
    }

    func tryLockExclusive() throws(EventLogError) -> Bool { try inner.tryLockExclusive() }
    func close() { inner.close() }
}
