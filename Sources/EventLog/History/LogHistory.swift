/// A history as one sequence of records from seq 1 (or from records that
/// were dropped) to the live end: the chain of archives a cut log names —
/// back from its base, archive by archive — followed by the live log, a file
/// or a server list (docs/FORMAT.md, "Based logs"; the EventLog article
/// "Reading a history that was cut").
///
/// It is the one owner of the question "which file holds seq N, and may it
/// be read": every front end (the `labelreplay` commands, `LabelStore`'s
/// history reads, the PostgreSQL backend's archived lists) asks it instead of
/// following the chain itself. What it guarantees:
///
/// - **Chains of any length.** A log cut twice names its newer archive, whose
///   own base names the older one; ``archives(from:)`` follows the chain as
///   far back as a read needs, and no further.
/// - **No archive is read unchecked.** Before a record of an archive is
///   served, the archive is checked against the base that names it: same log
///   id, the same seqs, whole frames, the chained checksum the next file
///   continues, and its records hashing to the history tree's frontier the
///   base keeps (SHA-256). The check reads the archive once per process, and
///   is remembered by the file's identity (device, inode, size, modification
///   and change times); an archive changed in place is checked again.
///   Failures are ``EventLogError/Code/archiveMismatch``, naming the archive
///   and what differs.
/// - **Seqs it cannot serve are named, never substituted.** A seq before the
///   live log whose archive is missing or was dropped is an
///   ``EventLogError/Code/archived`` error naming the seq, the archive file
///   (or that the records were dropped) and the cut; a seq past the end is
///   `nil` or an empty read — never the record of another seq.
///
/// Opening reads only the live log's header; archives are opened when a read
/// reaches them. Thread safety: not shared between threads (it holds what
/// it has learnt of the chain); open one per thread, as a ``LogReader``.
public final class LogHistory {
    /// The live part: a log file or a storage (a server list).
    private enum Live {
        case file(path: String, fileSystem: any LogFileSystem)
        case storage(any EventStorage)
    }

    /// What names the history in messages: the log's path, or the list's location.
    public let name: String
    /// The history's log id (every archive in its chain has it).
    public let logID: LabelID
    /// The live part's base: `nil` when the live part starts at seq 1.
    public let liveBase: LogBase?
    /// The first seq the live part holds (1, or its base's last cut seq + 1).
    public var liveFirstSeq: UInt64 { (liveBase?.lastCutSeq ?? 0) + 1 }
    private let live: Live
    /// The chained checksum the live part's first record continues.
    private let liveChainValue: UInt32
    /// The archives found so far, newest first: `chain[0]` is the one the live base names.
    private var chain: [HistoryArchive] = []
    /// The header of each archive of ``chain`` that was opened (by path).
    private var headers: [String: LogHeader] = [:]

    /// The history of the log file at `logPath`, from its header.
    ///
    /// - Throws: what ``LogReader/init(path:fileSystem:)`` throws.
    public convenience init(logPath: String, fileSystem: any LogFileSystem = SystemFileSystem()) throws(EventLogError) {
        let header = try LogReader(path: logPath, fileSystem: fileSystem).header
        self.init(logPath: logPath, header: header, fileSystem: fileSystem)
    }

    /// The history of the log file at `logPath` whose header is `header` (read by the caller).
    public init(logPath: String, header: LogHeader, fileSystem: any LogFileSystem = SystemFileSystem()) {
        name = logPath
        logID = header.logID
        liveBase = header.base
        liveChainValue = header.previousChecksum
        live = .file(path: logPath, fileSystem: fileSystem)
    }

    /// Where a live part starts in its history: its log id, its base (`nil`
    /// from seq 1) and the chained checksum its first record continues (the
    /// base's last cut record's; 0 from seq 1).
    public struct Start: Sendable, Hashable {
        /// The history's log id.
        public var logID: LabelID
        /// The live part's base.
        public var base: LogBase?
        /// The chained checksum the live part's first record continues.
        public var chainValue: UInt32

        /// Creates a start.
        public init(logID: LabelID, base: LogBase?, chainValue: UInt32) {
            self.logID = logID
            self.base = base
            self.chainValue = chainValue
        }
    }

    /// The history of a storage (a server list, or an open log's writer)
    /// whose records start at `start`. Archives its base names are files on
    /// this machine: a relative name is resolved in the directory of `name`
    /// when it is a path (a writer's), else in the working directory.
    public init(storage: any EventStorage, start: Start, name: String) {
        self.name = name
        logID = start.logID
        liveBase = start.base
        liveChainValue = start.chainValue
        live = .storage(storage)
    }

    /// The history of `storage` from its ``EventStorage/historyStart``; a
    /// storage without one (an in-memory log) reads as starting at seq 1.
    public convenience init(storage: any EventStorage, name: String) {
        let start = storage.historyStart ?? Start(logID: LabelID(), base: storage.base, chainValue: 0)
        self.init(storage: storage, start: start, name: name)
    }

    // MARK: - The chain

    /// Where a seq is held.
    public enum Holder: Sendable, Hashable {
        /// In the live log (or past its end).
        case live
        /// In this archive (not yet checked: ``archives(from:)`` checks it before it is read).
        case archive(HistoryArchive)
    }

    /// Which part of the history holds `seq` (0 is the state before seq 1:
    /// held by whatever holds seq 1). Reads the headers of the archives it
    /// passes on the way back, not their records.
    ///
    /// - Throws: ``EventLogError/Code/archived`` when the records through
    ///   `seq` were dropped, or when an archive the chain passes through on
    ///   the way is not there (naming the archive and the cut).
    public func holder(of seq: UInt64) throws(EventLogError) -> Holder {
        guard seq < liveFirstSeq else { return .live }
        var index = 0
        while true {
            let archive = try link(at: index, reaching: seq)
            if seq >= archive.seqs.lowerBound || archive.seqs.lowerBound == 1 { return .archive(archive) }
            index += 1
        }
    }

    /// The archives to read, oldest first, to read the records from `seq`
    /// on (every archive from the one holding `seq` to the live log), each
    /// checked (against the base naming it) before it is returned. Empty when the live
    /// log holds `seq`.
    ///
    /// - Throws: ``EventLogError/Code/archived`` as ``holder(of:)``, and when
    ///   an archive needed is not there; ``EventLogError/Code/archiveMismatch``
    ///   when one is not the archive its base names.
    public func archives(from seq: UInt64) throws(EventLogError) -> [HistoryArchive] {
        guard case .archive(let oldest) = try holder(of: max(seq, 1)) else { return [] }
        let count = chain.firstIndex(of: oldest)! + 1
        for archive in chain.prefix(count) {
            guard SystemFile.exists(archive.path) else { throw missing(archive, seq: seq) }
            _ = try ArchiveJoin.open(archive, logID: logID)
        }
        return chain.prefix(count).reversed()
    }

    /// A reader of `archive` (one ``archives(from:)`` returned, or any link of
    /// this history) at its first record, checked as ``archives(from:)`` checks it.
    public func open(_ archive: HistoryArchive) throws(EventLogError) -> LogReader {
        try ArchiveJoin.open(archive, logID: logID)
    }

    /// The first seq this history can serve: 1 when every archive back to
    /// seq 1 is there, else the seq after the records that were dropped or
    /// whose archive is missing. Reads the archives' headers, not their records.
    public func firstHeldSeq() throws(EventLogError) -> UInt64 {
        var index = 0
        var first = liveFirstSeq
        while first > 1 {
            guard let archive = try? link(at: index, reaching: first - 1), SystemFile.exists(archive.path) else { return first }
            first = archive.seqs.lowerBound
            index += 1
        }
        return first
    }

    /// The first seq a fold that stops before the first record stamped
    /// later than `time` must read from (the list before it is then the
    /// oldest part's origin): the live log's first while every record cut
    /// before it is stamped at or before `time` (its base's time range says
    /// so), else the first seq of the oldest archive whose earlier records
    /// all are. Reads archives' headers, not their records.
    ///
    /// - Throws: ``EventLogError/Code/archived`` when the fold needs records
    ///   that were dropped or whose archive is not there.
    public func firstSeq(foldingUntil time: EventTimestamp) throws(EventLogError) -> UInt64 {
        var base = liveBase
        var first = liveFirstSeq
        var index = 0
        while let cut = base, cut.timeRange.upperBound > time {
            let archive = try link(at: index, reaching: cut.lastCutSeq)
            first = archive.seqs.lowerBound
            guard first > 1 else { break }
            base = try header(of: archive, reaching: first - 1).base
            index += 1
        }
        return first
    }

    /// The archive at `index` in the chain (0: named by the live base), found
    /// on the way to `seq`; throws ``EventLogError/Code/archived`` when the
    /// chain ends before it (dropped records, a missing archive).
    private func link(at index: Int, reaching seq: UInt64) throws(EventLogError) -> HistoryArchive {
        if index < chain.count { return chain[index] }
        // The base naming the next archive back: the live one, or the last archive's own.
        let (base, chainValue, namingFile): (LogBase?, UInt32, String)
        if index == 0 {
            (base, chainValue, namingFile) = (liveBase, liveChainValue, name)
        } else {
            let newer = chain[index - 1]
            let header = try header(of: newer, reaching: seq)
            (base, chainValue, namingFile) = (header.base, header.previousChecksum, newer.path)
        }
        guard let base else { preconditionFailure("a part starting at seq 1 names no archive") }
        switch base.disposition {
        case .dropped:
            throw EventLogError(
                .archived,
                "\(name): seq \(seq) was dropped on \(base.cutAt.iso8601) (\(HistoryArchive.describe(base.cut, base.timeRange))); the history holds no record before seq \(base.lastCutSeq + 1), only the list there",
                path: name)
        case .archived(let file):
            let archive = HistoryArchive(
                path: HistoryArchive.resolve(file, namedBy: namingFile), base: base, chainValue: chainValue, namedBy: namingFile)
            chain.append(archive)
            return archive
        }
    }

    /// The header of `archive` (read once), which must be there to go further back than it.
    private func header(of archive: HistoryArchive, reaching seq: UInt64) throws(EventLogError) -> LogHeader {
        if let header = headers[archive.path] { return header }
        guard SystemFile.exists(archive.path) else { throw missing(archive, seq: seq) }
        let header = try LogReader(path: archive.path).header
        guard header.logID == logID, header.firstSeq == archive.seqs.lowerBound else {
            throw ArchiveJoin.mismatch(
                archive,
                "it is log \(header.logID) from seq \(header.firstSeq), not log \(logID) from seq \(archive.seqs.lowerBound)")
        }
        headers[archive.path] = header
        return header
    }

    /// The error for `seq`, held by (or behind) `archive`, which is not there.
    func missing(_ archive: HistoryArchive, seq: UInt64) -> EventLogError {
        EventLogError(
            .archived,
            "\(name): seq \(seq) is archived in \(archive.path) (\(archive.cutDescription)), which is not there; the history holds seqs \(archive.seqs.upperBound + 1)… without it: put the archive back beside the log",
            path: name)
    }

    // MARK: - The live part

    /// The live part's records from `seq` (at or after ``liveFirstSeq``), up to `maxCount`.
    func liveRecords(from seq: UInt64, maxCount: Int) throws(EventLogError) -> [EventRecord] {
        switch live {
        case .storage(let storage):
            return try storage.read(from: seq, maxCount: maxCount)
        case .file(let path, let fileSystem):
            let reader = try LogReader(path: path, fileSystem: fileSystem)
            try reader.skip(toSeq: seq)
            return try reader.poll(maxCount: maxCount)
        }
    }
}

extension HistoryArchive {
    /// "records a…b, stamped T1 to T2".
    static func describe(_ cut: ClosedRange<UInt64>, _ times: ClosedRange<EventTimestamp>) -> String {
        "records \(cut.lowerBound)…\(cut.upperBound), stamped \(times.lowerBound.iso8601) to \(times.upperBound.iso8601)"
    }
}
