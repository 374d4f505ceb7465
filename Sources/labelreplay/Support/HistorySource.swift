import EventLog

/// The records of a log file or a server list, for the history tree's
/// commands (`head`, `prove`, `verify --head`): read once from seq 1, with a
/// progress line (bytes of a file, records of a list).
enum HistorySource {
    /// Opens the history at `path` (a file or a server location) with a progress line labelled `label`.
    /// When `reaching` (the first record the command needs: the one after a
    /// head it gives or checks, a record it proves) is before a based log's first record, the archives holding
    /// the seqs from it on are checked and read first (``LogHistory``, a
    /// chain of any length) and the log's records after them; a missing or
    /// mismatched archive is an error naming it.
    static func open(_ path: String, label: String, console: Console, reaching: UInt64? = nil) throws -> (
        records: HistoryRecords, progress: Progress
    ) {
        let location = LogLocation.resolve(path)
        let records: HistoryRecords
        let total: Int64
        if case .file(let file) = location {
            let reader = try LogReader(path: file)
            let archives = try reaching.map { try Self.archives(of: LogHistory(logPath: file, header: reader.header), reaching: $0) } ?? []
            if !archives.isEmpty {
                total = try archives.reduce(Int64(0)) { $0 + (try $1.fileSize()) } + reader.fileSize()
                records = HistoryRecords(archives: archives, log: reader, name: file)
            } else {
                total = try reader.fileSize()
                records = HistoryRecords(reader: reader, name: file)
            }
        } else {
            let opened = try ServerStorage.open(location)
            total = Int64(try opened.storage.refreshLastSeq())
            let history = LogHistory(storage: opened.storage, name: opened.display)
            let archives = try reaching.map { try Self.archives(of: history, reaching: $0) } ?? []
            if !archives.isEmpty {
                // Seqs before the list's first: its archives' records first, then the list's.
                records = HistoryRecords(
                    archives: archives, storage: opened.storage, chainValue: opened.baseChainValue, name: opened.display)
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

    /// Readers of the archives (oldest first) holding the seqs from
    /// `reaching` on, each checked against the base naming it (``LogHistory``);
    /// none when the live part holds `reaching`. A seq whose records were
    /// dropped, or whose archive is missing or not the one named, is an
    /// error naming the archive: no head or proof is given over records
    /// that were not checked.
    private static func archives(of history: LogHistory, reaching: UInt64) throws -> [LogReader] {
        var readers: [LogReader] = []
        for archive in try history.archives(from: max(reaching, 1)) { readers.append(try history.open(archive)) }
        return readers
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
