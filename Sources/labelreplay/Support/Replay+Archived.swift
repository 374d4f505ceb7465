import EventLog

/// Seqs a based log no longer holds (docs/FORMAT.md, "Based logs"): its
/// records before its first were cut off to an archive or dropped, and it
/// keeps only the list after them.
extension Replay {
    /// Makes `seq` readable when it is before the state this log can give
    /// (the list after its base, seq `firstSeq − 1`): before anything is read,
    /// and when the archive holding the records cut is there and is this
    /// log's, the archive is read first and the log after it
    /// (``ReplayReader/readArchiveFirst(_:path:)``, which checks they join).
    /// Otherwise fails, naming where the records went.
    func requireHeld(_ seq: UInt64) throws {
        if let missing = try reachArchive(holding: seq, naming: seq) { throw Failure(missing) }
    }

    /// Makes the records from `seq` on readable, as ``requireHeld(_:)`` makes
    /// a state readable: when `seq` is before this log's first record and the
    /// archive is there, it is read first. When it is not (dropped, or not
    /// beside the log): with `explicit` (the user named seqs before the log's
    /// first) it fails naming where they went; otherwise (a whole-history
    /// read) it says so on standard error once and reads from the log's first
    /// record.
    ///
    /// With `deferWarning` the warning is returned instead of printed, for a
    /// read that only needs it when the log's own records do not answer it
    /// (`log -n N` that found N events).
    @discardableResult
    func includeArchived(from seq: UInt64, explicit: Bool, deferWarning: Bool = false) throws -> String? {
        guard seq >= 1, let missing = try reachArchive(holding: seq - 1, naming: seq) else { return nil }
        if explicit { throw Failure(missing) }
        let warning =
            missing.replacingOccurrences(of: ": run the command on the archive", with: "")
            + "; reading from seq \(lastSeq + 1)"
        if deferWarning { return warning }
        console.warning(warning)
        return nil
    }

    /// Reads the archives this log's base names, as far as needed for the
    /// state after `seq` (the records through it); returns what is missing
    /// (the message naming `shown` and where it went), or `nil` when it is held.
    private func reachArchive(holding seq: UInt64, naming shown: UInt64) throws -> String? {
        guard let base = reachableBase, seq < base.lastCutSeq else { return nil }
        guard lastSeq == origin, !readsArchive, case .archived(let file) = base.disposition else {
            return Self.archivedMessage(path: readsArchive ? archivePath ?? path : path, seq: shown, base: base)
        }
        let archivePath = SystemPaths.archive(named: file, besideLog: path)
        guard SystemFile.exists(archivePath) else { return Self.archivedMessage(path: path, seq: shown, base: base) }
        let archive = try LogReader(path: archivePath)
        guard archive.header.logID == header.logID else {
            throw Failure(
                "\(archivePath): not the archive of \(path) (log id \(archive.header.logID), not \(header.logID)); \(Self.archivedMessage(path: path, seq: shown, base: base))"
            )
        }
        try readArchiveFirst(archive, path: archivePath)
        // The archive may itself start from a base: the seq must be at or after it.
        return try reachArchive(holding: seq, naming: shown)
    }

    /// The base of the log file at `path` (`nil` for a log from seq 1, a
    /// server list, or a file that does not open: the command's own read says why).
    static func base(of path: String) -> LogBase? {
        guard !LogLocation.isServer(path) else { return nil }
        return (try? LogReader(path: path))?.header.base
    }

    /// Whether a read of the records from `seq` at `path` reaches records
    /// before its first (a based log's archived seqs): the caches beside a
    /// based log (its index, its checkpoints) do not hold those.
    static func reachesArchive(_ path: String, from seq: UInt64) -> Bool {
        guard let base = base(of: path) else { return false }
        return seq <= base.lastCutSeq
    }

    /// "LOG: seq N is archived in FILE …" or "… was dropped …".
    static func archivedMessage(path: String, seq: UInt64, base: LogBase) -> String {
        let cut =
            "records \(base.cut.lowerBound)…\(base.cut.upperBound), stamped \(base.timeRange.lowerBound.iso8601) to \(base.timeRange.upperBound.iso8601)"
        switch base.disposition {
        case .archived(let file):
            let archive = SystemPaths.archive(named: file, besideLog: path)
            return
                "\(path): seq \(seq) is archived in \(archive) (\(cut)); this log starts at seq \(base.lastCutSeq + 1) and keeps the list at seq \(base.lastCutSeq): run the command on the archive"
        case .dropped:
            return
                "\(path): seq \(seq) was dropped on \(base.cutAt.iso8601) (\(cut)); this log starts at seq \(base.lastCutSeq + 1) and keeps the list at seq \(base.lastCutSeq) only"
        }
    }
}

/// Paths of files beside a log.
enum SystemPaths {
    /// The archive a based log's base names (`LogBase.Disposition.archived(file:)`):
    /// an absolute path as it is, a relative one in the directory of the log at `logPath`.
    static func archive(named file: String, besideLog logPath: String) -> String {
        file.hasPrefix("/") ? file : sibling(of: logPath, named: file)
    }

    /// The path of `name` in the directory of `path`.
    static func sibling(of path: String, named name: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return name }
        return String(path[...slash]) + name
    }
}
