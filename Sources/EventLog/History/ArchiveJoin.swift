import Synchronization

/// The check that an archive is the one its base names, made before anything
/// is read from it (``LogHistory``): the same log id, the first seq the base
/// says was cut, every frame whole and checksummed, nothing after the last
/// record, the last record the base's last cut seq with the chained checksum
/// the file after it continues, and its records hashing (SHA-256, the history
/// tree's leaves) to the frontier the base keeps. The frontier is what makes
/// the check hold against an edit that kept the frames' 32-bit checksums
/// right: those can be forged, the tree's hashes cannot.
///
/// A check reads the whole archive. It is made once per archive file,
/// remembered by the file's identity (device, inode, size, modification and
/// change times, ``FileIdentity``) in the process and in `ARCHIVE.checked`
/// beside it for later processes (ArchiveJoin+Remembered): an archive is
/// immutable, and an edit in place changes its identity, so it is checked
/// again. The memory is behind a `Mutex`; checks of different archives may
/// run on several threads.
enum ArchiveJoin {
    /// What a passed check is remembered by.
    struct Checked: Hashable {
        var identity: FileIdentity
        var logID: LabelID
        var frontier: [HistoryHash]
        var chainValue: UInt32
        var cut: ClosedRange<UInt64>
    }

    /// The archives that passed, by path.
    private static let passed = Mutex<[String: Checked]>([:])

    /// Forgets every passed check (tests that change an archive within one clock tick).
    package static func forgetChecks() { passed.withLock { $0.removeAll() } }

    /// Opens `archive` for reading at its first record, checked to be the
    /// archive of the history `logID` its base names (``ArchiveJoin``).
    ///
    /// - Throws: ``EventLogError``: ``EventLogError/Code/archived`` when no
    ///   file is at its path; ``EventLogError/Code/archiveMismatch`` naming
    ///   the first thing that differs; what ``LogReader`` throws for a file
    ///   that is not a log or is damaged.
    static func open(
        _ archive: HistoryArchive, logID: LabelID, fileSystem: any LogFileSystem = SystemFileSystem()
    ) throws(EventLogError) -> LogReader {
        let path = archive.path
        guard let identity = SystemFile.identity(of: path) else {
            throw EventLogError(
                .archived,
                "\(archive.namedBy): \(archive.cutDescription) are archived in \(path), which is not there (put it back beside the log to read them)",
                path: path)
        }
        let key = Checked(
            identity: identity, logID: logID, frontier: archive.base.frontier, chainValue: archive.chainValue, cut: archive.seqs)
        let reader = try LogReader(path: path, fileSystem: fileSystem)
        try checkHeader(reader.header, of: archive, logID: logID)
        if passed.withLock({ $0[path] }) == key { return reader }
        // Checked by an earlier process, the file unchanged since (ArchiveJoin+Remembered).
        if isRemembered(key, path: path) {
            passed.withLock { $0[path] = key }
            return reader
        }
        try checkRecords(reader, of: archive)
        // Remembered only when the file did not change while it was read.
        if SystemFile.identity(of: path) == identity {
            passed.withLock { $0[path] = key }
            remember(key, path: path)
        }
        return try LogReader(path: path, fileSystem: fileSystem)
    }

    /// The header's part: the same history, starting where the base's cut starts.
    private static func checkHeader(_ header: LogHeader, of archive: HistoryArchive, logID: LabelID) throws(EventLogError) {
        guard header.logID == logID else {
            throw mismatch(archive, "it is a log of another history (log id \(header.logID), not \(logID))")
        }
        guard header.firstSeq == archive.seqs.lowerBound else {
            throw mismatch(archive, "it starts at seq \(header.firstSeq), but the base cut from seq \(archive.seqs.lowerBound)")
        }
    }

    /// Reads every record of the archive `reader` opened, hashing them into the history tree.
    private static func checkRecords(_ reader: LogReader, of archive: HistoryArchive) throws(EventLogError) {
        var tree =
            reader.header.base.flatMap { HistoryTreeBuilder(count: $0.lastCutSeq, frontier: $0.frontier) } ?? HistoryTreeBuilder()
        let last = archive.seqs.upperBound
        do {
            try reader.forEachView { view in
                guard view.seq <= last else {
                    throw mismatch(archive, "it holds seq \(view.seq), after the last seq the base cut (\(last))")
                }
                tree.append(payload: view.payload)
            }
        } catch let error as EventLogError {
            if error.code == .archiveMismatch { throw error }
            throw mismatch(archive, "its records cannot be read (\(error.message))")
        } catch {
            throw mismatch(archive, "its records cannot be read (\(error))")
        }
        switch try reader.tail() {
        case .none, .preallocated: break
        case .torn(let offset, let bytes, let reason):
            throw mismatch(archive, "\(bytes) bytes at byte offset \(offset) after its last whole record are not a record (\(reason))")
        }
        guard let position = reader.lastPosition, position.seq == last else {
            let end = reader.lastPosition.map { "ends at seq \($0.seq)" } ?? "holds no record"
            throw mismatch(archive, "it \(end), but the base cut through seq \(last) (a truncated archive, or one cut at another seq)")
        }
        guard position.checksum == archive.chainValue else {
            throw mismatch(
                archive,
                "its last record (seq \(last), byte offset \(position.offset)) is not the one the file after it continues (chained checksum \(hex(position.checksum ?? 0)), not \(hex(archive.chainValue)))"
            )
        }
        guard tree.count == last, tree.frontier == archive.base.frontier else {
            throw mismatch(
                archive,
                "its records do not hash to the history tree's frontier the base keeps at seq \(last): a record was changed after the cut (run 'labelreplay verify' on the log to find it)"
            )
        }
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }

    /// The error for an archive that is not the one its base names.
    static func mismatch(_ archive: HistoryArchive, _ why: String) -> EventLogError {
        EventLogError(
            .archiveMismatch,
            "\(archive.path): not the archive \(archive.namedBy) names for \(archive.cutDescription): \(why); nothing was read from it",
            path: archive.path)
    }
}
