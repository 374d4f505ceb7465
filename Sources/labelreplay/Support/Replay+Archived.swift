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
        guard let base = reachableBase, seq < base.lastCutSeq else { return }
        guard lastSeq == origin, !readsArchive, case .archived(let file) = base.disposition else {
            throw Failure(Self.archivedMessage(path: readsArchive ? archivePath ?? path : path, seq: seq, base: base))
        }
        let archivePath = file.hasPrefix("/") ? file : SystemPaths.sibling(of: path, named: file)
        guard SystemFile.exists(archivePath) else { throw Failure(Self.archivedMessage(path: path, seq: seq, base: base)) }
        let archive = try LogReader(path: archivePath)
        guard archive.header.logID == header.logID else {
            throw Failure(
                "\(archivePath): not the archive of \(path) (log id \(archive.header.logID), not \(header.logID)); \(Self.archivedMessage(path: path, seq: seq, base: base))"
            )
        }
        try readArchiveFirst(archive, path: archivePath)
        // The archive may itself start from a base: the seq must be at or after it.
        try requireHeld(seq)
    }

    /// "LOG: seq N is archived in FILE …" or "… was dropped …".
    static func archivedMessage(path: String, seq: UInt64, base: LogBase) -> String {
        let cut =
            "records \(base.cut.lowerBound)…\(base.cut.upperBound), stamped \(base.timeRange.lowerBound.iso8601) to \(base.timeRange.upperBound.iso8601)"
        switch base.disposition {
        case .archived(let file):
            let archive = file.hasPrefix("/") ? file : SystemPaths.sibling(of: path, named: file)
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
