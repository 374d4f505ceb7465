import EventLog
import Foundation

/// A device's durable outbox: its own ``SyncCommand``s not yet on the
/// server list, in the order they were made, in a file beside its mirror
/// (`LOG.outbox`; docs/SYNC.md, "The outbox file").
///
/// - Durability: ``append(_:)`` returns once the command is on stable
///   storage (written and `fsync`ed): only then may the app be told the edit
///   is saved. ``noteAttempt(_:)`` and ``markDone(_:)`` are as durable. A failed sync poisons the outbox (every later call throws
///   `poisoned`): what reached the disk is not known.
/// - Recovery: an entry torn by a crash while it was appended (the last
///   frame, cut short or failing its checksum) was never acknowledged and is
///   cut at open (``droppedTailBytes``); a bad frame with frames after it is
///   corruption, refused with its byte offset, and the file is left as it is.
/// - Compaction: when the last pending command is done, the file is cut
///   back to its header (synced).
/// - One process at a time: the file is locked exclusively while open (a
///   second open throws `logInUse`).
/// - Thread safety: every method may be called from any thread; the state
///   is behind a lock.
public final class SyncOutbox: Sendable {
    /// A push about to be sent: the pending commands it decides (the first
    /// ones, in order) with what it makes of each, appended as one batch
    /// with id `group` after seq `afterSeq`. If the server's row at
    /// `afterSeq + 1` holds `group`, the push committed, and `plan` is what
    /// became of its commands.
    public struct Attempt: Sendable, Hashable {
        /// The id of the push's one append (its first row's batch id).
        public var group: UUID
        /// The seq the push is appended after.
        public var afterSeq: UInt64
        /// Each command's outcome if the push commits, in outbox order.
        public var plan: [SyncLedger.Entry]

        /// An attempt.
        public init(group: UUID, afterSeq: UInt64, plan: [SyncLedger.Entry]) {
            self.group = group
            self.afterSeq = afterSeq
            self.plan = plan
        }
    }

    /// The file's path.
    public let path: String
    /// The bytes of a torn last entry that the open cut (0 if none).
    public let droppedTailBytes: Int64

    private struct State {
        var file: (any LogFile)?
        var end: Int64
        var pending: [SyncCommand]
        var attempt: Attempt?
        var poison: EventLogError?
    }

    private let state: Locked<State>

    private init(path: String, file: any LogFile, end: Int64, pending: [SyncCommand], attempt: Attempt?, dropped: Int64) {
        self.path = path
        droppedTailBytes = dropped
        state = Locked(State(file: file, end: end, pending: pending, attempt: attempt))
    }

    /// The outbox's path beside a log: `LOG.outbox`.
    public static func path(forLogAt logPath: String) -> String { syncOutboxPath(forLogAt: logPath) }

    /// Opens the outbox at `path`, creating it (synced, with its directory) if it is missing.
    ///
    /// - Throws: `EventLogError`: `logInUse` when another
    ///   process has it open; `notALog` for a file that is not an
    ///   outbox; `unsupportedVersion`; `corruptHeader`;
    ///   `corruptRecord` naming the byte offset of a bad entry
    ///   before the last; what the file system throws.
    public static func open(path: String, fileSystem: any LogFileSystem = SystemFileSystem()) throws(EventLogError) -> SyncOutbox {
        let file: any LogFile
        if fileSystem.exists(path) {
            file = try fileSystem.open(path, .readWrite)
        } else {
            file = try fileSystem.open(path, .createExclusive)
            try fileSystem.syncDirectory(containing: path)
        }
        do throws(EventLogError) {
            guard try file.tryLockExclusive() else {
                throw EventLogError(.logInUse, "the outbox is open in another process", path: path)
            }
            let (end, pending, attempt, dropped) = try recover(file, path: path)
            return SyncOutbox(path: path, file: file, end: end, pending: pending, attempt: attempt, dropped: dropped)
        } catch {
            file.close()
            throw error
        }
    }

    /// The pending commands and the open attempt of the outbox at `path`,
    /// read without taking its lock or changing it (a process that holds it
    /// may be appending: an unfinished last entry is left out). For tools
    /// that show a device's state while its app runs.
    ///
    /// - Throws: `EventLogError`: what ``open(path:fileSystem:)`` throws for a
    ///   file that is not an outbox or is damaged before its last entry.
    public static func read(
        path: String, fileSystem: any LogFileSystem = SystemFileSystem()
    ) throws(EventLogError) -> (pending: [SyncCommand], openAttempt: Attempt?) {
        let file = try fileSystem.open(path, .readOnly)
        defer { file.close() }
        let read = try recover(file, path: path, repairing: false)
        return (read.pending, read.attempt)
    }

    /// The commands not yet done, in the order they were made.
    public var pending: [SyncCommand] { state.withLock { $0.pending } }

    /// The push noted last (``noteAttempt(_:)``) whose commands are not done yet, if any.
    public var openAttempt: Attempt? { state.withLock { $0.attempt } }

    /// Adds `command` at the end; returns once it is durable.
    ///
    /// - Throws: `EventLogError`: `invalidEvent` for a batch id
    ///   already pending; `closed`; `poisoned`;
    ///   what writing and syncing throw.
    public func append(_ command: SyncCommand) throws(EventLogError) {
        try state.withLock { (s) throws(EventLogError) in
            guard !s.pending.contains(where: { $0.batchID == command.batchID }) else {
                throw EventLogError(.invalidEvent, "batch \(command.batchID) is already in the outbox", path: path)
            }
            try write(.command(command), &s)
            s.pending.append(command)
        }
    }

    /// Adds `commands` at the end, in order, as one entry (one write, one
    /// sync): returns once all are durable, and a crash keeps all of them or
    /// none — a batch of edits the app made together stays together.
    ///
    /// - Throws: What ``append(_:)`` throws; nothing is added then.
    public func append(contentsOf commands: [SyncCommand]) throws(EventLogError) {
        try state.withLock { (s) throws(EventLogError) in
            var seen = Set(s.pending.map(\.batchID))
            for command in commands where !seen.insert(command.batchID).inserted {
                throw EventLogError(.invalidEvent, "batch \(command.batchID) is already in the outbox", path: path)
            }
            guard !commands.isEmpty else { return }
            try write(commands.count == 1 ? .command(commands[0]) : .commands(commands), &s)
            s.pending += commands
        }
    }

    /// Records that `attempt` is about to be sent; returns once that is
    /// durable. It replaces any attempt noted before (which did not commit).
    ///
    /// - Throws: `EventLogError`: `invalidEvent` when its plan is not the first
    ///   pending commands in order; what ``append(_:)`` throws.
    public func noteAttempt(_ attempt: Attempt) throws(EventLogError) {
        try state.withLock { (s) throws(EventLogError) in
            guard attempt.plan.map(\.batchID) == s.pending.prefix(attempt.plan.count).map(\.batchID) else {
                throw EventLogError(.invalidEvent, "an attempt's plan must be the first pending commands, in order", path: path)
            }
            try write(.attempt(attempt), &s)
            s.attempt = attempt
        }
    }

    /// Records that the commands of `entries` left the outbox with their
    /// outcomes; returns once that is durable. When the last pending command
    /// is done, the file is cut back to its header.
    ///
    /// - Throws: `EventLogError`: `invalidEvent` for a batch not pending; what
    ///   ``append(_:)`` throws.
    public func markDone(_ entries: [SyncLedger.Entry]) throws(EventLogError) {
        try state.withLock { (s) throws(EventLogError) in
            let done = Set(entries.map(\.batchID))
            guard done.count == entries.count, entries.allSatisfy({ e in s.pending.contains { $0.batchID == e.batchID } }) else {
                throw EventLogError(.invalidEvent, "a done entry names a batch that is not pending (or names one twice)", path: path)
            }
            try write(.done(entries), &s)
            s.pending.removeAll { done.contains($0.batchID) }
            if let attempt = s.attempt, attempt.plan.contains(where: { done.contains($0.batchID) }) { s.attempt = nil }
            if s.pending.isEmpty, let file = s.file {
                // Everything is done: the entries are history, and the file starts over.
                try sync(file, &s) { () throws(EventLogError) in try file.truncate(to: Self.headerLength) }
                s.end = Self.headerLength
            }
        }
    }

    /// Closes the file and releases its lock; later calls throw `closed`.
    public func close() {
        state.withLock { s in
            s.file?.close()
            s.file = nil
        }
    }

    deinit { close() }

    /// Appends one entry's frame and syncs it.
    private func write(_ entry: Entry, _ s: inout State) throws(EventLogError) {
        guard let file = s.file else { throw EventLogError(.closed, "the outbox is closed", path: path) }
        if let poison = s.poison { throw poison }
        let frame = entry.frame()
        do throws(EventLogError) {
            try frame.withBytes { (raw) throws(EventLogError) in try file.write(raw, at: s.end) }
        } catch {
            // Nothing was acknowledged: the bytes written, if any, are cut (a failure to is a torn tail, cut at open).
            try? file.truncate(to: s.end)
            throw error
        }
        try sync(file, &s) { () throws(EventLogError) in }
        s.end += Int64(frame.count)
    }

    /// Runs `change`, then syncs the file; a failed sync poisons the outbox.
    private func sync(_ file: any LogFile, _ s: inout State, _ change: () throws(EventLogError) -> Void) throws(EventLogError) {
        try change()
        do {
            try file.syncData()
        } catch {
            let poison = EventLogError(
                .poisoned, "the outbox could not be synced, so what reached the disk is not known; reopen it: \(error.message)",
                path: path, errno: error.errno)
            s.poison = poison
            throw poison
        }
    }
}
