import EventLog

/// The records of a log file or a server list, for the history tree's
/// commands (`head`, `prove`, `verify --head`): read once from seq 1, with a
/// progress line (bytes of a file, records of a list).
enum HistorySource {
    /// Opens the history at `path` (a file or a server location) with a progress line labelled `label`.
    static func open(_ path: String, label: String, console: Console) throws -> (records: HistoryRecords, progress: Progress) {
        let location = LogLocation.resolve(path)
        let records: HistoryRecords
        let total: Int64
        if case .file(let file) = location {
            let reader = try LogReader(path: file)
            total = try reader.fileSize()
            records = HistoryRecords(reader: reader, name: file)
        } else {
            let opened = try ServerStorage.open(location)
            total = Int64(try opened.storage.refreshLastSeq())
            records = HistoryRecords(storage: opened.storage, name: opened.display)
        }
        let progress = Progress(label, total: total, unit: location == .file(path) ? "bytes" : "records", console: console)
        records.onProgress = { seq, position in progress.update(position, detail: "seq \(seq)") }
        return (records, progress)
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
