import Foundation

@testable import EventLog

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file system that wraps the real one, counts every call, fails chosen
/// calls with chosen errnos, can "crash" at a chosen call, and keeps a
/// ``FileHistory`` of every file so a test can build the file a power loss
/// or a process crash could leave behind (LevelDB's fault-injection `Env`,
/// SQLite's crash-test VFS).
///
/// **Sync failures follow the fsyncgate model** (``FileHistory``): a failed
/// `syncData`/`syncAll` drops every change no successful sync covered (they
/// never become durable; the error is reported once; a later sync succeeds
/// without writing them). With `evictsDroppedPages`, reads see the dropped
/// bytes revert too (the kernel threw the dirty pages away).
///
/// **Sync call sites** of the writer, and the ops a fault can name to hit each
/// (a sync counts as its `syncData`/`syncAll` *and* its site op, as a record
/// write counts as both `write` and `recordWrite`):
///
/// | site (Sources/EventLog) | call | ops |
/// |---|---|---|
/// | `LogWriter.append`, `syncEachAppend` | `syncData` after the write | `syncData` |
/// | group commit (`GroupCommit.waitDurable` → `syncOrPoison`) | `syncData` | `syncData` |
/// | explicit `LogWriter.sync()` (`syncOrPoison`) | `syncData` | `syncData` |
/// | `LogWriter.preallocate` (syncing modes) | `syncAll` after zero writes | `syncAll`, `preallocationSync` |
/// | `LogWriter.discardRecords(after:)` | `syncAll` after `truncate` | `syncAll`, `truncationSync` |
/// | open: cutting a torn tail or salvaged damage | `syncAll` after `truncate` | `syncAll`, `truncationSync` |
/// | salvage: `saveTail` (`PATH.salvaged-…`) | `syncAll`, then `syncDirectory` | `syncAll`, `salvageSync`; `syncDirectory` |
/// | creation: `LogCreation` (`PATH.creating-…`) | `syncAll`, then `syncDirectory` | `syncAll`, `creationSync`; `syncDirectory` |
final class FaultyFileSystem: LogFileSystem {
    enum Op: String, CaseIterable, Sendable {
        case open, read, write, syncData, syncAll, truncate, link, rename, syncDirectory
        /// Writes that carry records (not all zero bytes); also counted as `write`.
        case recordWrite
        /// All-zero writes (the writer's preallocation); also counted as `write`.
        case zeroWrite
        /// A `syncAll` right after zero writes: a preallocation step.
        case preallocationSync
        /// A `syncAll` right after a `truncate`: `discardRecords`, or open cutting a tail.
        case truncationSync
        /// A `syncAll` of a log's creation temporary (`.creating-`).
        case creationSync
        /// A `syncAll` of a salvage file (`.salvaged-`).
        case salvageSync

        /// Calls that change a file (or a directory): a crash can be placed before any of them.
        var isMutating: Bool {
            switch self {
            case .write, .syncData, .syncAll, .truncate, .link, .rename, .syncDirectory: true
            default: false
            }
        }
        var isSync: Bool { self == .syncData || self == .syncAll }
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
        /// For writes: after the bytes land, the process crashes (every later call fails;
        /// the crash images are those of this moment).
        var crashes = false
    }

    /// A sync that failed because a fault was injected.
    struct FailedSync: Sendable {
        var op: Op
        var site: Op?
        /// The file's name when the sync failed (the log's, for a file renamed over it).
        var path: String
        /// The thread that made the call (its error reaches the writer there).
        var thread: ObjectIdentifier
    }

    /// A change to the directory entries: each name it binds to a file (its
    /// history as it was then) or removes (`nil`). A power loss keeps the
    /// changes up to the last directory sync and, in order, any number of
    /// the later ones (a journaling file system commits them in order; a
    /// rename is one change, whole or not at all).
    struct NameChange: Sendable {
        struct Binding: Sendable {
            var name: String
            var file: FileHistory?
        }
        var bindings: [Binding]
    }

    struct State {
        var calls: [Op: Int] = [:]
        var nameChanges: [NameChange] = []
        /// The name changes a directory sync made durable (a prefix of ``nameChanges``).
        var durableNameChanges = 0
        /// How many name changes were made when the process crashed.
        var crashedNameChanges: Int?
        var faults: [Fault] = []
        var injected = 0
        var files: [String: FileHistory] = [:]
        /// The name a file opened at the key's path has now, after renames: a
        /// handle writes to the file, whatever its name (``name(of:)``).
        var movedTo: [String: String] = [:]
        var nextSerial = 0
        var failedSyncs: [FailedSync] = []
        var mutatingCalls = 0
        /// Crash when mutating call number `crashAt` is entered (it does not happen).
        var crashAt: Int?
        /// The histories at the moment of the crash; once set, every call fails.
        var crashed: [String: FileHistory]?
        var hook: (@Sendable (Op, String) -> Void)?
    }

    let real = SystemFileSystem()
    let state = Locked(State())
    /// Whether a failed sync also reverts what reads see (the kernel evicted the pages).
    let evictsDroppedPages: Bool
    /// Whether a successful sync also syncs the real file. The model (``FileHistory``)
    /// decides what is durable either way; a model check turns this off for speed.
    let performsRealSyncs: Bool

    init(evictsDroppedPages: Bool = false, performsRealSyncs: Bool = true) {
        self.evictsDroppedPages = evictsDroppedPages
        self.performsRealSyncs = performsRealSyncs
    }

    var injectedCount: Int { state.withLock { $0.injected } }
    /// Every injected sync failure so far, in order.
    var failedSyncs: [FailedSync] { state.withLock { $0.failedSyncs } }
    /// How many injected sync failures hit `path` so far.
    func failedSyncCount(path: String) -> Int { state.withLock { $0.failedSyncs.filter { $0.path == path }.count } }
    /// The positions in ``failedSyncs`` of the failures of `path` that calls of the current thread met.
    func failedSyncsOfCurrentThread(path: String) -> [Int] {
        let me = ObjectIdentifier(Thread.current)
        return state.withLock { s in s.failedSyncs.indices.filter { s.failedSyncs[$0].path == path && s.failedSyncs[$0].thread == me } }
    }
    var hasCrashed: Bool { state.withLock { $0.crashed != nil } }

    func add(_ fault: Fault) { state.withLock { $0.faults.append(fault) } }
    func clearFaults() { state.withLock { $0.faults.removeAll() } }
    func calls(_ op: Op) -> Int { state.withLock { $0.calls[op, default: 0] } }
    /// Fails the next call of `op` (counted per op) with `errno`.
    func failNext(_ op: Op, errno: Int32 = EIO, partialBytes: Int = 0) {
        state.withLock { s in s.faults.append(Fault(op: op, first: s.calls[op, default: 0] + 1, errno: errno, partialBytes: partialBytes)) }
    }
    /// Called at the start of every call, before it is counted, outside the lock
    /// (a test may block in it to force an interleaving).
    func setHook(_ hook: (@Sendable (Op, String) -> Void)?) { state.withLock { $0.hook = hook } }

    /// Crashes when the `n`th mutating call from now is entered (`n` ≥ 1): that call and
    /// every later one fail, and the files keep what they had at that moment.
    func armCrash(beforeMutatingCall n: Int) { state.withLock { s in s.crashAt = s.mutatingCalls + max(1, n) } }
    /// Crashes now (between calls).
    func crashNow() {
        state.withLock { s in
            if s.crashed == nil {
                s.crashed = s.files
                s.crashedNameChanges = s.nameChanges.count
            }
        }
    }

    /// The files the names hold after a power loss at the crash (or now):
    /// `initial` (the names before anything this file system did, durable),
    /// changed by the durable name changes and a random number of the later
    /// ones, in order. A name's bytes are then its history's image after the loss.
    func namesAfterPowerLoss(_ initial: [String: FileHistory], using rng: inout some RandomNumberGenerator) -> [String: FileHistory] {
        namesAfterPowerLoss(initial, keeping: Int.random(in: 0...pendingNameChanges, using: &rng))
    }

    /// How many name changes were made after the last directory sync (up to the crash, or now):
    /// a power loss keeps any number of them, from 0 to this.
    var pendingNameChanges: Int {
        state.withLock { s in (s.crashedNameChanges ?? s.nameChanges.count) - s.durableNameChanges }
    }

    /// The files the names hold after a power loss that kept the durable name
    /// changes and the first `kept` of the later ones (clamped to ``pendingNameChanges``).
    func namesAfterPowerLoss(_ initial: [String: FileHistory], keeping kept: Int) -> [String: FileHistory] {
        let (changes, durable, end) = state.withLock { s in
            (s.nameChanges, s.durableNameChanges, s.crashedNameChanges ?? s.nameChanges.count)
        }
        var names = initial
        for change in changes.prefix(min(end, durable + max(0, kept))) {
            for binding in change.bindings { names[binding.name] = binding.file }
        }
        return names
    }

    /// The bytes `path` could hold after a power loss at the crash (or now, if none happened).
    func imageAfterPowerLoss(_ path: String, loss: Loss, using rng: inout some RandomNumberGenerator) -> [UInt8] {
        history(path).imageAfterPowerLoss(loss, using: &rng)
    }

    /// The bytes `path` holds after the process dies at the crash (or now): everything written survives.
    func imageAfterProcessCrash(_ path: String) -> [UInt8] { history(path).visible }

    func history(_ path: String) -> FileHistory {
        state.withLock { s in (s.crashed ?? s.files)[path] ?? FileHistory(contents: []) }
    }

    /// Counts a call as `op` and `extra` (if any), crashes if it is time, and returns the fault to inject.
    func enter(_ op: Op, _ extra: Op? = nil, path: String) throws(EventLogError) -> Fault? {
        if let hook = state.withLock({ $0.hook }) { hook(op, path) }
        return try state.withLock { (s) throws(EventLogError) -> Fault? in
            if s.crashed != nil { throw EventLogError(.ioError, "injected: the process has crashed", path: path, errno: EIO) }
            if op.isMutating {
                s.mutatingCalls += 1
                if let at = s.crashAt, s.mutatingCalls >= at {
                    s.crashed = s.files
                    s.crashedNameChanges = s.nameChanges.count
                    throw EventLogError(.ioError, "injected: the process crashes here", path: path, errno: EIO)
                }
            }
            var fault: Fault?
            for o in [op, extra].compactMap({ $0 }) {
                let n = s.calls[o, default: 0] + 1
                s.calls[o] = n
                if fault == nil { fault = s.faults.first(where: { $0.op == o && n >= $0.first && n < $0.first + $0.times }) }
            }
            if fault != nil { s.injected += 1 }
            return fault
        }
    }

    func error(_ fault: Fault, _ what: String, path: String) -> EventLogError {
        EventLogError(.ioError, "injected: \(what)", path: path, errno: fault.errno)
    }

    func open(_ path: String, _ mode: SystemFile.Mode) throws(EventLogError) -> any LogFile {
        if let fault = try enter(.open, path: path) { throw error(fault, "cannot open the file", path: path) }
        let file = try real.open(path, mode)
        let known = state.withLock { $0.files[path] != nil }
        if !known || mode == .createExclusive {
            let current = mode == .createExclusive ? [] : try file.read(at: 0, count: Int(try file.size()))
            state.withLock { $0.files[path] = FileHistory(contents: current) }
        }
        return FaultyFile(inner: file, fs: self)
    }

    func exists(_ path: String) -> Bool { real.exists(path) }

    func link(_ from: String, to: String) throws(EventLogError) {
        if let fault = try enter(.link, path: to) { throw error(fault, "cannot link", path: to) }
        try real.link(from, to: to)
        state.withLock { s in
            s.files[to] = s.files[from]
            s.nameChanges.append(NameChange(bindings: [.init(name: to, file: s.files[from])]))
        }
    }

    func rename(_ from: String, to: String) throws(EventLogError) {
        if let fault = try enter(.rename, path: to) { throw error(fault, "cannot rename", path: to) }
        try real.rename(from, to: to)
        state.withLock { s in
            s.files[to] = s.files[from]
            s.nameChanges.append(NameChange(bindings: [.init(name: to, file: s.files[from]), .init(name: from, file: nil)]))
            // A handle of the file renamed (opened at `from`, or at a name it had before) writes to `to` now.
            for (opened, name) in s.movedTo where name == from { s.movedTo[opened] = to }
            s.movedTo[from] = to
        }
    }

    func unlink(_ path: String) {
        real.unlink(path)
        state.withLock { s in
            if s.crashed == nil { s.nameChanges.append(NameChange(bindings: [.init(name: path, file: nil)])) }
        }
    }

    func syncDirectory(containing path: String) throws(EventLogError) {
        if let fault = try enter(.syncDirectory, path: path) { throw error(fault, "cannot sync the directory", path: path) }
        if performsRealSyncs { try real.syncDirectory(containing: path) }
        state.withLock { s in s.durableNameChanges = s.nameChanges.count }
    }

    // MARK: Bookkeeping for FaultyFile

    /// The name a handle opened at `path` writes to now: `path`, or the name
    /// a rename gave its file (the writer goes on writing to a file it
    /// renamed over the log: a cut of the open log, a discard inside a batch frame).
    private static func name(of path: String, in s: State) -> String { s.movedTo[path] ?? path }

    func recordChange(path opened: String, _ change: FileHistory.Change) {
        state.withLock { s in
            let path = Self.name(of: opened, in: s)
            s.files[path, default: FileHistory(contents: [])].record(change, serial: s.nextSerial)
            s.nextSerial += 1
        }
    }

    /// The site op of a `syncAll` of `path` about to run, judged by the path and its last change.
    func syncSite(_ op: Op, path: String) -> Op? {
        guard op == .syncAll else { return nil }
        if path.contains(LogCreation.temporaryMarker) { return .creationSync }
        if path.contains(".salvaged-") { return .salvageSync }
        switch state.withLock({ s in s.files[Self.name(of: path, in: s)]?.lastChange }) {
        case .zeroWrite: return .preallocationSync
        case .truncate: return .truncationSync
        default: return nil
        }
    }

    func beginSync(path: String) -> FileHistory.Coverage {
        state.withLock { s in s.files[Self.name(of: path, in: s), default: FileHistory(contents: [])].coverage(nextSerial: s.nextSerial) }
    }

    /// Records a sync's success; `false` when the process crashed while it
    /// ran (a power loss during a sync: it never returns, so the caller must
    /// not take it as a success; a sync on another thread can straddle the crash).
    func syncSucceeded(path: String, _ coverage: FileHistory.Coverage) -> Bool {
        state.withLock { s in
            guard s.crashed == nil else { return false }
            s.files[Self.name(of: path, in: s)]?.syncSucceeded(coverage)
            return true
        }
    }

    /// Drops what the failed sync covered; returns the byte ranges the real file must revert to.
    func syncFailed(path: String, op: Op, site: Op?, _ coverage: FileHistory.Coverage) -> [(offset: Int, bytes: [UInt8])] {
        let thread = ObjectIdentifier(Thread.current)
        return state.withLock { s in
            // Under the name the file has now: a file renamed over the log (a discard inside a batch
            // frame) is the log, and its failed syncs are the log's.
            let name = Self.name(of: path, in: s)
            s.failedSyncs.append(FailedSync(op: op, site: site, path: name, thread: thread))
            return s.files[name]?.syncFailed(coverage, evict: evictsDroppedPages) ?? []
        }
    }
}
