import EventLog

/// A log read through its history index (`LOG.index`), for the commands that
/// ask audit questions: which records match, which label ids the log names,
/// and what a label's title was at a seq — each answered from the records the
/// index names plus those appended after it, the same as a full read.
///
/// Opened only when the index is usable; one that is there but not usable
/// is reported on standard error (and the caller reads the whole log).
final class IndexedHistory {
    let path: String
    let index: HistoryIndex
    /// The titles each label was given (added, renamed, removed) by seq, as far as read.
    private var statedTitles: [LabelID: [(seq: UInt64, title: String)]] = [:]
    /// The titles stated by the records after the index.
    private var tailTitles: [LabelID: [(seq: UInt64, title: String)]] = [:]
    /// The ids named by the records after the index.
    private(set) var tailIDs = Set<LabelID>()
    /// The records after the index.
    private(set) var tailCount: UInt64 = 0

    private init(path: String, index: HistoryIndex) {
        self.path = path
        self.index = index
    }

    /// The indexed history of the log at `path`, or `nil` when it has no usable
    /// index (a warning says why when one is there but not used).
    static func open(_ path: String, console: Console) throws -> IndexedHistory? {
        let reader = try Replay.openReader(path)
        switch HistoryIndexFile.load(for: reader) {
        case .missing:
            return nil
        case .ignored(let problem):
            console.warning("\(problem); reading the whole log instead ('\(Tool.name) index \(path)' rebuilds it)")
            return nil
        case .usable(let index):
            let history = IndexedHistory(path: path, index: index)
            try history.readTail(reader)
            return history
        }
    }

    /// Reads the records after the index once: their ids and stated titles.
    private func readTail(_ reader: LogReader) throws {
        var found: [LabelID: [(seq: UInt64, title: String)]] = [:]
        try reader.forEachRecord(matching: HistoryQuery(), using: index, from: index.coveredSeq + 1) { record in
            tailCount += 1
            if let id = record.event.labelID { tailIDs.insert(id) }
            if let (id, title) = Replay.statedTitle(record.event) { found[id, default: []].append((record.seq, title)) }
            return true
        }
        tailTitles = found
    }

    /// Every label id the log names.
    var knownIDs: Set<LabelID> { Set(index.labels.keys).union(tailIDs) }

    /// Calls `body` with every record from `seq` through `last` that `query` matches, in seq order.
    func forEachRecord(matching query: HistoryQuery, from seq: UInt64, through last: UInt64?, _ body: (EventRecord) throws -> Bool)
        throws
    {
        try LogReader(path: path).forEachRecord(matching: query, using: index, from: seq, through: last, body)
    }

    /// The last title the log gave `id` at or before `seq` (what a full read
    /// shows as the label's name there), or `nil` if none did.
    func title(of id: LabelID, atOrBefore seq: UInt64) throws -> String? {
        if statedTitles[id] == nil {
            var titles: [(seq: UInt64, title: String)] = []
            let reader = try LogReader(path: path)
            try reader.forEachRecord(matching: HistoryQuery(labels: [id]), using: index, through: index.coveredSeq) { record in
                if let (stated, title) = Replay.statedTitle(record.event), stated == id { titles.append((record.seq, title)) }
                return true
            }
            statedTitles[id] = titles + (tailTitles[id] ?? [])
        }
        return statedTitles[id]!.last { $0.seq <= seq }?.title
    }
}
