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

    /// Makes the list at `time` readable: when a record cut off before the
    /// log is stamped later than `time` (the base's time range says so), the
    /// archives from the oldest one the fold needs are read first
    /// (``LogHistory/firstSeq(foldingUntil:)``). Otherwise fails, naming the
    /// time and where the records went.
    func requireHeld(time: EventTimestamp) throws {
        guard lastSeq == origin, !readsArchive, let base = reachableBase, base.timeRange.upperBound > time else { return }
        let history = self.history()
        let first: UInt64
        switch Result(catching: { () throws(EventLogError) in try history.firstSeq(foldingUntil: time) }) {
        case .success(let seq): first = seq
        case .failure(let error):
            guard error.code == .archived else { throw error }
            throw Failure("\(path): the list at time \(time.iso8601) needs records cut off before the log: \(unnamed(error.message))")
        }
        if let missing = try reachArchive(holding: first - 1, naming: first) {
            throw Failure("\(path): the list at time \(time.iso8601) needs records cut off before the log: \(unnamed(missing))")
        }
    }

    /// `message` without the log's path in front.
    private func unnamed(_ message: String) -> String {
        message.hasPrefix(path + ": ") ? String(message.dropFirst(path.count + 2)) : message
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
            .replacingOccurrences(of: ": put the archive back beside the log", with: "") + "; reading from seq \(lastSeq + 1)"
        if deferWarning { return warning }
        console.warning(warning)
        return nil
    }

    /// Reads the archives needed for the state after `seq` (the records
    /// through it) first, found and checked by ``LogHistory`` (a chain of any
    /// length; each archive checked against the base naming it before it is
    /// read); returns what is missing (the message naming `shown` and where it
    /// went), or `nil` when it is held. An archive that is not the one its
    /// base names is an error, never read.
    private func reachArchive(holding seq: UInt64, naming shown: UInt64) throws -> String? {
        guard seq < origin else { return nil }
        guard lastSeq == origin, !readsArchive else {
            return Self.archivedMessage(path: path, seq: shown, base: reachableBase ?? header.base!)
        }
        let history = self.history()
        switch Result(catching: { () throws(EventLogError) in try history.archives(from: seq + 1) }) {
        case .failure(let error):
            guard error.code == .archived else { throw error }
            return error.message.replacingOccurrences(of: "\(path): seq \(seq + 1) ", with: "\(path): seq \(shown) ")
        case .success(let archives):
            guard !archives.isEmpty else { return nil }
            var readers: [(reader: LogReader, path: String)] = []
            for archive in archives { readers.append((try history.open(archive), archive.path)) }
            try readArchivesFirst(readers)
            return nil
        }
    }

    /// The history this replay reads (its archives' chain and the live log or list).
    func history() -> LogHistory {
        if let storage = serverStorage {
            return LogHistory(storage: storage, name: path)
        }
        return LogHistory(logPath: path, header: header)
    }

    /// The base of the log file or server list at `path` (`nil` for a history
    /// from seq 1, or one that does not open: the command's own read says why).
    static func base(of path: String) -> LogBase? {
        // A server list's base is its head row's (it was nil here, so `trace --label` and `log --from`
        // over a cut list took the list's caches, which hold none of the archived records).
        if LogLocation.isServer(path) { return (try? ServerStorage.open(LogLocation.resolve(path)))?.storage.base }
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
            let archive = HistoryArchive.resolve(file, namedBy: path)
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
    /// The path of `name` in the directory of `path`.
    static func sibling(of path: String, named name: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return name }
        return String(path[...slash]) + name
    }
}
