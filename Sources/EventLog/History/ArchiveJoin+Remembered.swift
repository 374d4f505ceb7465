/// A passed archive check remembered across processes: `ARCHIVE.checked`,
/// a small text file beside the archive naming the file it checked (device,
/// inode, size, modification and change times) and what it was checked
/// against (the history's id, the base's frontier, the chain value and the
/// seqs cut). A later process that finds the archive with the same identity,
/// named by the same base, does not read it again, so a query over archived
/// seqs costs what it reads.
///
/// Trust: an edit of the archive changes its change time, which no
/// unprivileged process can set back, so the record no longer matches; a
/// record rewritten to match an edited archive needs the same write access
/// to the directory as editing the archive, like the log's other caches.
/// `labelreplay verify` never reads it: it checks the archive whole.
extension ArchiveJoin {
    /// The file of remembered checks beside `archive`.
    static func rememberedPath(of archive: String) -> String { archive + ".checked" }

    /// The text the record of `key` holds (its last line the CRC-32C of the lines before it).
    static func rememberedText(_ key: Checked) -> String {
        let id = key.identity
        var lines = [
            "labelstore archive check 1",
            "\(id.device) \(id.inode) \(id.size) \(id.modified) \(id.changed)",
            "\(key.logID) \(key.chainValue) \(key.cut.lowerBound) \(key.cut.upperBound)",
            key.frontier.map(\.hex).joined(separator: " ")
        ]
        let body = lines.joined(separator: "\n") + "\n"
        lines.append(String(CRC32C.checksum(body)))
        return lines.joined(separator: "\n") + "\n"
    }

    /// Whether `path`'s record says the check of `key` passed (the same file, the same base).
    static func isRemembered(_ key: Checked, path: String) -> Bool {
        SystemFile.smallText(at: rememberedPath(of: path), limit: 1 << 20) == rememberedText(key)
    }

    /// Writes the record of a passed check of `key` (atomically; a failure, e.g. a
    /// directory that cannot be written, only means the next process checks again).
    static func remember(_ key: Checked, path: String) {
        try? SystemFile.writeAtomically(Array(rememberedText(key).utf8), to: rememberedPath(of: path))
    }

    /// Remembers the archive the cut of the log at `logPath` just wrote as
    /// checked: its records are the bytes the cut hashed into the base's
    /// frontier and whose last checksum the base continues, so it is the
    /// archive its base names by construction, and the first read of it
    /// need not read it whole. The record names the file as it is now (a
    /// later edit changes its identity, and the next read checks it). Best
    /// effort, as ``remember(_:path:)``.
    static func rememberCut(logPath: String) {
        guard let history = try? LogHistory(logPath: logPath), let base = history.liveBase,
            case .archive(let archive)? = try? history.holder(of: base.lastCutSeq),
            let identity = SystemFile.identity(of: archive.path)
        else { return }
        let key = Checked(
            identity: identity, logID: history.logID, frontier: archive.base.frontier, chainValue: archive.chainValue, cut: archive.seqs)
        remember(key, path: archive.path)
    }
}
