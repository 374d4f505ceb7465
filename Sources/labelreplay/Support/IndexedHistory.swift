import EventLog

/// A log read through its history index (`LOG.index`), for the commands that
/// ask audit questions: which records match, which label ids the log names,
/// and what a label's title was at a seq — each answered from the records the
/// index names plus those appended after it, the same as a full read.
///
/// Opened only when the index is usable; one that is there but not usable
/// is reported on standard error (and the caller reads the whole log).
final class IndexedHistory {
    /// The titles labels were given (added, renamed, removed), by seq: what names a label at any seq.
    struct Titles {
        fileprivate var stated: [LabelID: [(seq: UInt64, title: String)]] = [:]

        /// The last title `id` was given at or before `seq`, or `nil` if none was.
        func title(of id: LabelID, atOrBefore seq: UInt64) -> String? { stated[id]?.last { $0.seq <= seq }?.title }

        fileprivate mutating func note(_ record: EventRecord, only ids: Set<LabelID>? = nil) {
            guard let (id, title) = Replay.statedTitle(record.event), ids?.contains(id) ?? true else { return }
            stated[id, default: []].append((record.seq, title))
        }
    }

    let path: String
    let index: HistoryIndex
    /// The titles stated by the records after the index.
    private var tailTitles = Titles()
    /// The ids named by the records after the index.
    private(set) var tailIDs = Set<LabelID>()

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
            // The records after the index, once: their ids and stated titles.
            try reader.forEachRecord(matching: HistoryQuery(), using: index, from: index.coveredSeq + 1) { record in
                if let id = record.event.labelID { history.tailIDs.insert(id) }
                history.tailTitles.note(record)
                return true
            }
            return history
        }
    }

    /// Every label id the log names.
    var knownIDs: Set<LabelID> { Set(index.labelIDs).union(tailIDs) }

    /// The records from `seq` through `last` that `query` matches, in seq order;
    /// `nil` when the index would not save reading (the candidates fall in more
    /// than half of its blocks: reading the whole log sequentially is cheaper).
    func records(matching query: HistoryQuery, from seq: UInt64, through last: UInt64?, console: Console) throws -> [EventRecord]? {
        guard let candidates = index.candidates(labels: query.labels, actors: query.actors, since: query.since, until: query.until)
        else { return nil }
        var blocks = Set<UInt64>()
        for candidate in candidates where candidate >= seq && candidate <= (last ?? .max) {
            blocks.insert((candidate - 1) / HistoryIndex.blockSize)
        }
        if blocks.count * 2 > index.blockCount && index.blockCount > 2 && !TestHooks.alwaysUsesIndex { return nil }
        if TestHooks.alwaysUsesIndex { console.errorLine("(read through the history index)") }
        var found: [EventRecord] = []
        try LogReader(path: path).forEachRecord(matching: query, using: index, from: seq, through: last) { record in
            found.append(record)
            return true
        }
        return found
    }

    /// The titles `ids` were given anywhere in the log: one read of their records.
    func titles(of ids: Set<LabelID>) throws -> Titles {
        var titles = Titles()
        if !ids.isEmpty {
            try LogReader(path: path).forEachRecord(matching: HistoryQuery(labels: ids), using: index, through: index.coveredSeq) {
                titles.note($0, only: ids)
                return true
            }
        }
        for id in ids { titles.stated[id, default: []] += tailTitles.stated[id] ?? [] }
        return titles
    }
}
