/// The sync mark, `LOG.synced`: the log's writer saying "every byte of the
/// log through this record was on stable storage", so that readers and
/// recovery need not prove it again from the frames (docs/FORMAT.md, "The
/// sync mark").
///
/// A format version 2 frame without the continuation flag proves the records
/// before it durable. A long write — an import, a fixture written in one
/// append, a noSync run made durable by one ``LogWriter/sync()`` — is one
/// group of flagged frames that nothing after it proves, so a reader that
/// jumps to a cached position inside it had to check the group forward from
/// its start (``Recovery/keeps(_:format:through:fileLength:verified:)``),
/// which after an import is the whole file. The writer knows better: once a
/// sync covering record N returned, every byte through N is durable. It
/// writes that here after such syncs (``interval`` records apart at most),
/// and readers trust it as they trust a frame without the flag.
///
/// Trust: the mark is checked before it is used — the log's id, the file's
/// inode, and a whole frame of the named seq with the named chained checksum
/// at the named offset — so a mark of another log, of a replaced file or of
/// a history that was cut and rewritten is ignored. A mark can only make
/// recovery stricter: damage before it is reported as corruption (the log
/// is not cut), never the other way. A missing, damaged or stale mark costs
/// the forward check, nothing else. It is written atomically (a temporary
/// file renamed over it), after the sync it reports, so it never names a
/// record the file system had not made durable.
struct SyncMark: Sendable, Hashable {
    /// The log's id (its header's).
    var logID: LabelID
    /// The inode of the log file the writer synced.
    var inode: UInt64
    /// The last record every byte through which is durable.
    var position: LogPosition

    /// How many records a writer lets pass after the mark before it writes a
    /// new one at a sync: shorter groups cost a reader at most a backward walk
    /// of that many frames (``Recovery/backwardWalkLimit`` is four times more).
    static let interval: UInt64 = 4_096

    /// The mark file of the log at `logPath`.
    static func path(for logPath: String) -> String { logPath + ".synced" }

    /// The file's text: a version line, the fields, and the CRC-32C of the lines before it.
    var text: String {
        let body =
            [
                "labelstore sync mark 1",
                "\(logID) \(inode)",
                "\(position.seq) \(position.offset) \(position.length) \(position.checksum ?? 0)"
            ].joined(separator: "\n") + "\n"
        return body + "\(CRC32C.checksum(body))\n"
    }

    /// Parses a mark file's text; `nil` unless it is exactly what ``text`` writes.
    init?(text: String) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count == 5, lines[0] == "labelstore sync mark 1", lines[4].isEmpty,
            String(CRC32C.checksum(lines[0...2].joined(separator: "\n") + "\n")) == lines[3]
        else { return nil }
        let ids = lines[1].split(separator: " ")
        let fields = lines[2].split(separator: " ")
        guard ids.count == 2, fields.count == 4, let logID = LabelID(String(ids[0])), let inode = UInt64(ids[1]),
            let seq = UInt64(fields[0]), let offset = Int64(fields[1]), let length = Int64(fields[2]),
            let checksum = UInt32(fields[3])
        else { return nil }
        self.init(logID: logID, inode: inode, position: LogPosition(seq: seq, offset: offset, length: length, checksum: checksum))
    }

    init(logID: LabelID, inode: UInt64, position: LogPosition) {
        self.logID = logID
        self.inode = inode
        self.position = position
    }

    /// The durable position the mark beside the log at `path` names, if
    /// there is one and it checks out against the open `file`: the header's
    /// log id, the inode now at `path`, and a whole frame of its seq with its
    /// chained checksum at its offset (format version 2 and later; a version
    /// 1 log has no chain to name a history by, and no mark). Never throws:
    /// any failure means "no mark".
    static func load(forLogAt path: String, header: LogHeader, file: any LogFile) -> LogPosition? {
        let format = FrameFormat(header: header)
        guard format.chainsRecords, let text = SystemFile.smallText(at: Self.path(for: path), limit: 4_096),
            let mark = SyncMark(text: text),
            mark.logID == header.logID, mark.inode == SystemFile.identity(of: path)?.inode, file.isStill(at: path),
            mark.position.seq >= format.firstSeq,
            let length = try? file.size(),
            (try? Recovery.heldFrame(file, format: format, at: mark.position, fileLength: length)) != nil
        else { return nil }
        return mark.position
    }

    /// Writes the mark for the log at `path` (best effort: a mark that
    /// cannot be written costs later readers a forward check, nothing else).
    /// Call only after a sync that covered `position` returned.
    static func write(_ position: LogPosition, forLogAt path: String, logID: LabelID) {
        guard let inode = SystemFile.identity(of: path)?.inode else { return }
        let mark = SyncMark(logID: logID, inode: inode, position: position)
        // Not synced: the sync it reports already ran, and a mark lost in a crash costs a forward check.
        try? SystemFile.writeAtomically(Array(mark.text.utf8), to: Self.path(for: path), durably: false)
    }

    /// Removes the mark of the log at `path` (before its records are cut below it).
    static func remove(forLogAt path: String) {
        SystemFile.unlink(Self.path(for: path))
    }
}
