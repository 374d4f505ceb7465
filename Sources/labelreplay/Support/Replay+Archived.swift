import EventLog

/// Seqs a based log no longer holds (docs/FORMAT.md, "Based logs"): its
/// records before its first were cut off to an archive or dropped, and it
/// keeps only the list after them.
extension Replay {
    /// Fails, naming where the records went, when `seq` is before the state
    /// this log can give: the list after its base (seq `firstSeq − 1`).
    func requireHeld(_ seq: UInt64) throws {
        guard let base = header.base, seq < base.lastCutSeq else { return }
        throw Failure(Self.archivedMessage(path: path, seq: seq, base: base))
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
