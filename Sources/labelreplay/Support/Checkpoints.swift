import EventLog
import LabelProjection

/// A log's checkpoints (`LOG.checkpoints`, written by `index`), for the
/// commands that need the list at a seq (`show --at`, `diff`, `trace`): the
/// nearest checkpoint at or before a seq that proves it belongs to the log,
/// from which a ``Replay`` folds on (``Replay/start(from:)``).
///
/// A file that is there but not usable, a damaged tail after its last whole
/// checkpoint, and a checkpoint that does not check out, is reported on
/// standard error (once each); the caller then folds from an earlier
/// checkpoint or from seq 1, with the same answer. (A tail that is an append
/// not finished — its entry still zero — is not reported: the next update
/// cuts or finishes it.)
///
/// A server list's checkpoints are the server's own (its `checkpoints`
/// table, ``ServerCheckpoints``); they hold no removed labels' titles, so
/// they serve the folds that print none, and those that name the labels
/// whose titles they need (read from the labels' removal records).
///
/// Not thread-safe: a second thread uses a ``lane()`` of its own, which
/// collects what it would report instead of printing it.
final class Checkpoints {
    /// A report a lane collected, for the thread that prints to replay in order (``report(_:)``).
    enum Report: Sendable {
        /// A problem with a checkpoint (printed once, as a warning).
        case problem(String)
        /// A line for standard error (a test hook's).
        case line(String)
    }

    private let reader: LogReader?
    private let path: String?
    private let directory: CheckpointFile.Directory?
    private let server: ServerCheckpoints?
    private let console: Console
    private var reported = Set<String>()
    /// A lane's reports, not yet taken (`nil`: this instance prints them).
    private var collected: [Report]?

    private init(reader: LogReader, path: String, directory: CheckpointFile.Directory, console: Console) {
        self.reader = reader
        self.path = path
        self.directory = directory
        self.server = nil
        self.console = console
    }

    private init(server: ServerCheckpoints, console: Console) {
        self.reader = nil
        self.path = nil
        self.directory = nil
        self.server = server
        self.console = console
    }

    /// The checkpoints of the log at `path`, or `nil` when there are none to use (a warning says why when a file is there).
    static func open(_ path: String, console: Console) throws -> Checkpoints? {
        if LogLocation.isServer(path) {
            return try ServerCheckpoints.open(LogLocation.resolve(path)).map { Checkpoints(server: $0, console: console) }
        }
        // The reader that checked the caches: it remembers how far it verified the log.
        let reader = try HistoryCaches.keep(path, console: console, occasion: .read) ?? Replay.openReader(path)
        switch CheckpointFile.load(for: reader) {
        case .missing:
            return nil
        case .ignored(let problem):
            console.warning("\(problem); folding the log from seq 1 instead ('\(Tool.name) index \(path)' rebuilds it)")
            return nil
        case .usable(let directory):
            if let tail = directory.tail {
                console.warning("\(tail); the checkpoints before it are used ('\(Tool.name) index \(path)' cuts it)")
            }
            return Checkpoints(reader: reader, path: path, directory: directory, console: console)
        }
    }

    /// The seqs of the checkpoints in the file, or of a server list's rows
    /// when opened (not yet checked against the log).
    var seqs: [UInt64] { directory?.entries.map(\.seq) ?? server?.seqs ?? [] }

    /// The server list these checkpoints belong to (`nil` for a file's).
    var serverStorage: (any EventStorage)? { server?.storage }

    /// Whether there may be a checkpoint after `from` and at or before `to`
    /// (the file's entries say; a server list's are asked when one is wanted).
    func mayHaveCheckpoint(after from: UInt64, through to: UInt64) -> Bool {
        server != nil || seqs.contains { $0 > from && $0 <= to }
    }

    /// The newest checkpoint at or before `seq` that belongs to the log, if
    /// any; its ``ListCheckpoint/removed`` is empty unless `withRemovedLabels`
    /// (what a replay started from it needs only to print removed labels),
    /// and holds only the labels in `removedAmong` when that is given.
    func checkpoint(atOrBefore seq: UInt64, withRemovedLabels: Bool = true, removedAmong: Set<LabelID>? = nil) -> ListCheckpoint? {
        guard seq > 0 else { return nil }
        if let server {
            guard !withRemovedLabels || removedAmong != nil else { return nil }
            let (checkpoint, problems) = server.checkpoint(atOrBefore: seq, removedAmong: withRemovedLabels ? removedAmong : nil)
            for problem in problems { report(.problem(problem)) }
            if let checkpoint, TestHooks.alwaysUsesIndex { report(.line("(from the checkpoint at seq \(checkpoint.position.seq))")) }
            return checkpoint
        }
        guard let reader, let directory else { return nil }
        let (checkpoint, problems) = CheckpointFile.checkpoint(
            atOrBefore: seq, in: directory, reader: reader, decodingRemoved: withRemovedLabels, removedAmong: removedAmong)
        for problem in problems { report(.problem(problem.description)) }
        if let checkpoint, TestHooks.alwaysUsesIndex { report(.line("(from the checkpoint at seq \(checkpoint.position.seq))")) }
        return checkpoint
    }

    /// A server list's newest usable checkpoint at or before `seq` (as
    /// ``checkpoint(atOrBefore:withRemovedLabels:removedAmong:)`` gives it
    /// without removed labels), read and decoded on a second thread while the
    /// caller goes on; `nil` for a file's checkpoints. Take it with ``checkpoint(readAside:)``,
    /// which prints what it found wrong.
    func serverCheckpointAside(atOrBefore seq: UInt64) -> Aside<(ListCheckpoint?, [String])>? {
        guard let server, seq > 0 else { return nil }
        return Aside("labelreplay checkpoint") { server.checkpoint(atOrBefore: seq) }
    }

    /// The checkpoint an ``serverCheckpointAside(atOrBefore:)`` read, with its problems reported.
    func checkpoint(readAside aside: Aside<(ListCheckpoint?, [String])>) throws -> ListCheckpoint? {
        let (checkpoint, problems) = try aside.value()
        for problem in problems { report(.problem(problem)) }
        if let checkpoint, TestHooks.alwaysUsesIndex { report(.line("(from the checkpoint at seq \(checkpoint.position.seq))")) }
        return checkpoint
    }

    /// Prints `report` (a problem once), or collects it in a lane.
    func report(_ report: Report) {
        if collected != nil {
            collected!.append(report)
            return
        }
        switch report {
        case .problem(let problem):
            if reported.insert(problem).inserted { console.warning("\(problem); it is not used") }
        case .line(let line):
            console.errorLine(line)
        }
    }

    /// The same checkpoints for another thread (a file's: `nil` for a server
    /// list's): its own reader of the log, the directory already read, and
    /// its reports collected (``takeReports()``) for this instance to print.
    func lane() throws -> Checkpoints? {
        guard let directory, let path, server == nil else { return nil }
        let lane = Checkpoints(reader: try Replay.openReader(path), path: path, directory: directory, console: console)
        lane.collected = []
        return lane
    }

    /// The reports a lane collected since the last call, in order.
    func takeReports() -> [Report] {
        defer { if collected != nil { collected = [] } }
        return collected ?? []
    }
}
