import EventLog

/// The records of a log file or a server list, for the history tree's
/// commands (`head`, `prove`, `verify --head`): read once from seq 1, with a
/// progress line (bytes of a file, records of a list).
enum HistorySource {
    /// Opens the history at `path` (a file or a server location) with a progress line labelled `label`.
    /// When `reaching` (the smallest seq the command needs a head at or a
    /// proof of) is before a based log's first record and the archive its
    /// base names is beside it (and of this log), the archive's records are
    /// read first and the log's after them, their join checked as they are.
    static func open(_ path: String, label: String, console: Console, reaching: UInt64? = nil) throws -> (
        records: HistoryRecords, progress: Progress
    ) {
        let location = LogLocation.resolve(path)
        let records: HistoryRecords
        let total: Int64
        if case .file(let file) = location {
            let reader = try LogReader(path: file)
            if let reaching, let archive = archive(of: reader, path: file, reaching: reaching) {
                total = try archive.fileSize() + reader.fileSize()
                records = HistoryRecords(archive: archive, log: reader, name: file)
            } else {
                total = try reader.fileSize()
                records = HistoryRecords(reader: reader, name: file)
            }
        } else {
            let opened = try ServerStorage.open(location)
            total = Int64(try opened.storage.refreshLastSeq())
            if let reaching, let base = opened.storage.base, reaching <= base.lastCutSeq, case .archived(let file) = base.disposition,
                let archive = try? LogReader(path: SystemPaths.archive(named: file, besideLog: opened.display)),
                archive.header.logID == LabelID(opened.logID)
            {
                // Seqs before the list's first: its archive's records first, then the list's.
                records = HistoryRecords(archive: archive, storage: opened.storage, chainValue: opened.baseChainValue, name: opened.display)
            } else {
                // A list whose first records were cut off hashes on from its base's frontier.
                let start = opened.storage.base.flatMap { HistoryTreeBuilder(count: $0.lastCutSeq, frontier: $0.frontier) }
                records = HistoryRecords(storage: opened.storage, name: opened.display, start: start)
            }
        }
        let progress = Progress(label, total: total, unit: location == .file(path) ? "bytes" : "records", console: console)
        records.onProgress = { seq, position in progress.update(position, detail: "seq \(seq)") }
        return (records, progress)
    }

    /// The archive of the based log `reader` reads, when `reaching` is before
    /// the log's first seq and the archive is beside it and of this log.
    private static func archive(of reader: LogReader, path: String, reaching: UInt64) -> LogReader? {
        guard let base = reader.header.base, reaching <= base.lastCutSeq, case .archived(let file) = base.disposition else { return nil }
        let archivePath = SystemPaths.archive(named: file, besideLog: path)
        guard let archive = try? LogReader(path: archivePath), archive.header.logID == reader.header.logID else { return nil }
        return archive
    }

    /// A head given on the command line (`SEQ:HEX`), or a usage error naming the option.
    static func head(_ text: String, option: String, arguments: ParsedArguments) throws(UsageError) -> HistoryHead {
        guard let head = HistoryHead(parsing: text) else {
            throw arguments.invalid(
                text, for: option, expected: "a head SEQ:HEX (a seq, a colon, 64 hexadecimal digits), as 'labelreplay head' prints it")
        }
        return head
    }
}
