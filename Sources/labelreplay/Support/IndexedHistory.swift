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

        /// The seq of that title.
        func seq(of id: LabelID, atOrBefore seq: UInt64) -> UInt64? { stated[id]?.last { $0.seq <= seq }?.seq }

        /// Adds the titles `other` holds (another part of a cut history), keeping each label's in seq order.
        mutating func absorb(_ other: Titles) {
            for (id, found) in other.stated {
                stated[id, default: []] += found
                stated[id]!.sort { $0.seq < $1.seq }
            }
        }

        /// Notes the title `record` states (an add, a rename, a removal), if it does and names one of `ids`.
        mutating func note(_ record: EventRecord, only ids: Set<LabelID>? = nil) {
            guard let (id, title) = Replay.statedTitle(record.event), ids?.contains(id) ?? true else { return }
            stated[id, default: []].append((record.seq, title))
        }
    }

    let path: String
    let index: HistoryIndex
    /// Where a damaged part of the index (found when it is read) is reported.
    private let console: Console
    /// The titles stated by the records after the index.
    private var tailTitles = Titles()
    /// The ids named by the records after the index.
    private(set) var tailIDs = Set<LabelID>()
    /// How many records followed the index when it was opened.
    private(set) var tailCount = 0

    private init(path: String, index: HistoryIndex, console: Console) {
        self.path = path
        self.index = index
        self.console = console
    }

    /// Reports a damaged part of the index; the caller then reads the log instead.
    private func report(_ problem: HistoryIndexFile.Problem) {
        console.warning("\(problem); reading the whole log instead ('\(Tool.name) index \(path)' rebuilds it)")
    }

    /// The index's candidates (``HistoryIndex/candidates(labels:actors:since:until:)``), or
    /// `nil` (read everything) when a part of the index they need is damaged, which is reported.
    func candidates(labels: Set<LabelID>?, actors: Set<String?>? = nil, since: EventTimestamp? = nil, until: EventTimestamp? = nil)
        -> [UInt64]?
    {
        do throws(HistoryIndexFile.Problem) {
            return try index.candidates(labels: labels, actors: actors, since: since, until: until)
        } catch {
            report(error)
            return nil
        }
    }

    /// The indexed history of the log at `path`, or `nil` when it has no usable
    /// index (a warning says why when one is there but not used).
    static func open(_ path: String, console: Console) throws -> IndexedHistory? {
        if LogLocation.isServer(path) { return nil }  // a server list has no index file
        // The reader that checked the caches: it remembers how far it verified the log.
        let reader = try HistoryCaches.keep(path, console: console, occasion: .read) ?? Replay.openReader(path)
        switch HistoryIndexFile.load(for: reader) {
        case .missing:
            return nil
        case .ignored(let problem):
            console.warning("\(problem); reading the whole log instead ('\(Tool.name) index \(path)' rebuilds it)")
            return nil
        case .usable(let index):
            if let problem = index.deltaProblem {
                console.warning(
                    "\(problem); the records after seq \(index.coveredSeq) are read from the log instead ('\(Tool.name) index \(path)' rewrites it)"
                )
            }
            let history = IndexedHistory(path: path, index: index, console: console)
            // The records after the index, once: their ids and stated titles.
            try reader.forEachRecord(matching: HistoryQuery(), using: index, from: index.coveredSeq + 1) { record in
                history.tailCount += 1
                if let id = record.event.labelID { history.tailIDs.insert(id) }
                history.tailTitles.note(record)
                return true
            }
            return history
        }
    }

    /// The label ids the log names that start with the hex digits of one of
    /// `prefixes` (each a list of digit values): from the index's directory,
    /// only the chunks that can hold them; read from the log once, with the
    /// problem reported once, when a chunk is damaged.
    func knownIDs(startingWithAnyOf prefixes: [[UInt8]]) throws -> Set<LabelID> {
        func matches(_ id: LabelID) -> Bool { prefixes.contains { LabelIDArgument.hasPrefix(id, $0) } }
        do throws(HistoryIndexFile.Problem) {
            var ids = tailIDs.filter(matches)
            for nibbles in prefixes { ids.formUnion(try index.labelIDs(startingWith: nibbles)) }
            return ids
        } catch {
            report(error)
            var ids = Set<LabelID>()
            try LogReader(path: path).forEachRecord(matching: HistoryQuery(), using: nil) { record in
                if let id = record.event.labelID, matches(id) { ids.insert(id) }
                return true
            }
            return ids
        }
    }

    /// The records from `seq` through `last` that `query` matches, in seq order;
    /// `nil` when the index would not save reading (the candidates fall in more
    /// than half of its blocks: reading the whole log sequentially is cheaper).
    func records(matching query: HistoryQuery, from seq: UInt64, through last: UInt64?, console: Console) throws -> [EventRecord]? {
        guard let candidates = candidates(labels: query.labels, actors: query.actors, since: query.since, until: query.until)
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

    /// The titles that name labels at seqs: for each `(id, seq)` of `needs`,
    /// the last title the log gave `id` at or before `seq` — found by reading
    /// the label's records backwards from `seq` until one states a title
    /// (added, renamed, removed), usually one or two reads.
    func titles(for needs: [(id: LabelID, seq: UInt64)]) throws -> Titles {
        var titles = Titles()
        let reader = try LogReader(path: path)
        var records: [UInt64: EventRecord] = [:]
        var seqsOf: [LabelID: [UInt64]] = [:]
        var done = Set<Need>()
        for need in needs.map({ Need(id: $0.id, seq: $0.seq) }).sorted(by: { $0.seq < $1.seq }) where done.insert(need).inserted {
            if let title = tailTitles.title(of: need.id, atOrBefore: need.seq) {
                titles.stated[need.id, default: []].append((tailTitles.seq(of: need.id, atOrBefore: need.seq)!, title))
                continue
            }
            var seqs = seqsOf[need.id] ?? []
            do throws(HistoryIndexFile.Problem) {
                if seqsOf[need.id] == nil { seqs = try index.seqs(ofLabel: need.id) }
            } catch {
                // A damaged part of the index: the label's title read from the log instead.
                report(error)
                var found: (seq: UInt64, title: String)?
                try reader.forEachRecord(matching: HistoryQuery(labels: [need.id]), using: nil, through: need.seq) { record in
                    if let (id, title) = Replay.statedTitle(record.event), id == need.id { found = (record.seq, title) }
                    return true
                }
                if let found { titles.stated[need.id, default: []].append(found) }
                continue
            }
            seqsOf[need.id] = seqs
            var k = seqs.partitionPoint { $0 > need.seq } - 1
            while k >= 0 {
                let seq = seqs[k]
                guard let record = try records[seq] ?? reader.record(atSeq: seq, using: index) else { break }
                records[seq] = record
                if let (id, title) = Replay.statedTitle(record.event), id == need.id {
                    titles.stated[need.id, default: []].append((seq, title))
                    break
                }
                k -= 1
            }
        }
        for id in titles.stated.keys { titles.stated[id]!.sort { $0.seq < $1.seq } }
        return titles
    }

    private struct Need: Hashable {
        let id: LabelID
        let seq: UInt64
    }
}

extension Array where Element == UInt64 {
    /// The index of the first element (of an ascending array) for which `isAfter` holds.
    func partitionPoint(_ isAfter: (UInt64) -> Bool) -> Int {
        var low = 0
        var high = count
        while low < high {
            let mid = (low + high) / 2
            if isAfter(self[mid]) { high = mid } else { low = mid + 1 }
        }
        return low
    }
}
