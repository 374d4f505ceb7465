/// Building a history index part: records are added one at a time, in seq
/// order, into per-label and per-actor seq lists, then encoded into the
/// part's bytes (``HistoryIndexPart`` reads them back in place). A base
/// starts at seq 1; a segment starts after the record a previous part covers.
struct HistoryIndexBuilder {
    let logID: LabelID
    /// The first seq the part covers.
    let firstSeq: UInt64
    /// Whether the part is a segment of the delta file (else a base).
    let isSegment: Bool
    /// The last record added (for a segment with none added yet: the previous part's last).
    private(set) var covered: LogPosition?
    /// The chained checksum before the first record (a based log's), for the first piece while nothing is added.
    private var startChecksum: UInt32 = 0
    /// The pieces of blocks covered: piece `j` is the history's block `firstBlock + j`.
    var blocks: [HistoryIndex.Block] = []
    /// Every record's frame offset, relative to its piece's first frame (``HistoryIndexPart/farRecord``: 4 GiB or more).
    var recordOffsets: [UInt32] = []
    /// The labels, numbered in the order they were first seen.
    private(set) var labels = LabelNumbering()
    /// By record (seq − ``firstSeq``), its label's number, or ``noNumber``:
    /// 4 bytes a record, where a seq list per label held 8 and an array each
    /// (the lists are made when the part is encoded).
    private var recordLabels: [UInt32] = []
    /// The number of a record with no label (`reordered`, some `rejected`), or no actor list naming it (a merged part that lacks one).
    static let noNumber = UInt32.max
    /// The actors (`nil`: no actor), numbered in the order they were first seen.
    private(set) var actors = Numbering<String?>()
    /// By record, its actor's number.
    private var recordActors: [UInt32] = []
    private(set) var reorders: [UInt64] = []

    /// An empty base of the log whose id is `logID`, from its first seq
    /// (above 1 in a based log, whose first record continues `previousChecksum`).
    init(logID: LabelID, firstSeq: UInt64 = 1, previousChecksum: UInt32 = 0) {
        self.logID = logID
        self.firstSeq = firstSeq
        isSegment = false
        startChecksum = previousChecksum
    }

    /// An empty segment of the log whose id is `logID`, to cover the records after `previous`.
    init(logID: LabelID, after previous: LogPosition) {
        self.logID = logID
        firstSeq = previous.seq + 1
        isSegment = true
        covered = previous
    }

    /// A base holding everything `index` holds (its base and segments), to
    /// extend it or to merge it (every part is checked as it is read).
    ///
    /// - Throws: ``HistoryIndexFile/Problem`` for a damaged part.
    /// - Complexity: O(index size).
    init(_ index: HistoryIndex) throws(HistoryIndexFile.Problem) {
        self.init(logID: index.logID, firstSeq: index.parts[0].firstSeq)
        let recordCount = Int(index.coveredSeq + 1 - firstSeq)
        recordOffsets.reserveCapacity(recordCount)
        recordLabels = [UInt32](repeating: Self.noNumber, count: recordCount)
        recordActors = [UInt32](repeating: Self.noNumber, count: recordCount)
        for part in index.parts {
            for j in 0..<part.layout.blockCount {
                let piece = part.block(j)
                var relative = try part.pieceOffsets(j)
                if j == 0, part.firstBlock == blocks.count - 1 {
                    // The piece continues the last block: its offsets are made relative to the block's start.
                    let shift = piece.offset - blocks[blocks.count - 1].offset
                    relative = relative.map {
                        $0 == HistoryIndexPart.farRecord || Int64($0) + shift >= Int64(HistoryIndexPart.farRecord)
                            ? HistoryIndexPart.farRecord : UInt32(Int64($0) + shift)
                    }
                    blocks[blocks.count - 1].minTime = min(blocks[blocks.count - 1].minTime, piece.minTime)
                    blocks[blocks.count - 1].maxTime = max(blocks[blocks.count - 1].maxTime, piece.maxTime)
                } else {
                    blocks.append(piece)
                }
                recordOffsets += relative
            }
            for chunk in 0..<part.layout.fenceCount {
                for k in try part.checkedChunk(chunk) {
                    let entry = part.labelEntry(k)
                    let seqs = try part.seqList(entry.list, what: "the seq list of label \(entry.id)")
                    try Self.place(
                        seqs, as: labels.number(of: entry.id), in: &recordLabels, firstSeq: firstSeq, naming: "label \(entry.id)", of: part)
                }
            }
            for (actor, list) in part.actorLists {
                let seqs = try part.seqList(list, what: "the seq list of an actor")
                try Self.place(seqs, as: actors.number(of: actor), in: &recordActors, firstSeq: firstSeq, naming: "an actor", of: part)
            }
            reorders += try part.reorders
            covered = part.covered
        }
    }

    var coveredSeq: UInt64 { covered?.seq ?? firstSeq - 1 }

    /// Notes `number` for each of `seqs` (a seq list of `part`, of what `naming` names) in `records`, by seq − `firstSeq`.
    ///
    /// - Throws: ``HistoryIndexFile/Problem`` for a seq outside the records (a part's lists are
    ///   checked to hold its own seqs; this guards the parts' sequence as well).
    private static func place(
        _ seqs: [UInt64], as number: UInt32, in records: inout [UInt32], firstSeq: UInt64, naming what: @autoclosure () -> String,
        of part: HistoryIndexPart
    ) throws(HistoryIndexFile.Problem) {
        for seq in seqs {
            guard seq >= firstSeq, seq - firstSeq < UInt64(records.count) else {
                throw HistoryIndexFile.Problem(
                    path: part.path,
                    reason:
                        "the seq list of \(what()) names seq \(seq), outside the records \(firstSeq)…\(firstSeq - 1 + UInt64(records.count))"
                )
            }
            records[Int(seq - firstSeq)] = number
        }
    }

    /// The number of the actor whose name is `text` (`nil`: no actor). A
    /// history's few actors are found by their bytes, without making a
    /// `String` of every record's; past 16, through the names' table.
    private mutating func number(ofActor text: UTF8Text?) -> UInt32 {
        if actors.keys.count <= 16 {
            for (number, name) in actors.keys.enumerated() {
                switch (text, name) {
                case (nil, nil): return UInt32(number)
                case (let text?, let name?) where text == name: return UInt32(number)
                default: continue
                }
            }
        }
        return actors.number(of: text?.string)
    }

    /// The records of each of `count` numbers, ascending, by number, and where
    /// each number's start, from each record's number (`numbers[k]` is record
    /// ``firstSeq`` + k's, ``noNumber`` for none): one array of record indices
    /// (of type `Record`: 4 bytes each where the records' count fits) for all
    /// of them, a counting sort of the records by number.
    static func recordLists<Record: FixedWidthInteger & UnsignedInteger>(_ numbers: [UInt32], count: Int, as: Record.Type)
        -> (records: [Record], starts: [Int])
    {
        var starts = [Int](repeating: 0, count: count + 1)
        for number in numbers where number != noNumber { starts[Int(number) + 1] += 1 }
        for k in 0..<count { starts[k + 1] += starts[k] }
        var next = starts
        var records = [Record](repeating: 0, count: starts[count])
        for (k, number) in numbers.enumerated() where number != noNumber {
            records[next[Int(number)]] = Record(k)
            next[Int(number)] += 1
        }
        return (records, starts)
    }

    /// The number of records added.
    var recordCount: UInt64 { coveredSeq + 1 - firstSeq }

    /// Gives up what encoding no longer needs once it starts (the lookup
    /// tables of the labels' and actors' numbers: their keys stay), so that a
    /// consumed builder's memory goes as its file is made.
    mutating func dropLookups() {
        labels.dropLookup()
        actors.dropLookup()
    }

    /// Each record's label number, taken out of the builder (which holds none after).
    mutating func takeRecordLabels() -> [UInt32] {
        let taken = recordLabels
        recordLabels = []
        return taken
    }

    /// Each record's actor number, taken out of the builder (which holds none after).
    mutating func takeRecordActors() -> [UInt32] {
        let taken = recordActors
        recordActors = []
        return taken
    }

    /// Adds the record `view`, the record after ``covered``, whose frame is at `position`.
    ///
    /// - Precondition: `view.seq == coveredSeq + 1` and `position.seq == view.seq`.
    mutating func add(_ view: EventRecordView, at position: LogPosition) {
        precondition(view.seq == coveredSeq + 1 && position.seq == view.seq, "a history index grows one record at a time")
        let seq = view.seq
        let time = view.timestamp.millisecondsSince1970
        if (seq - 1) % HistoryIndex.blockSize == 0 || blocks.isEmpty {
            blocks.append(
                .init(offset: position.offset, previousChecksum: covered?.checksum ?? startChecksum, minTime: time, maxTime: time))
        } else {
            blocks[blocks.count - 1].minTime = min(blocks[blocks.count - 1].minTime, time)
            blocks[blocks.count - 1].maxTime = max(blocks[blocks.count - 1].maxTime, time)
        }
        let relative = position.offset - blocks[blocks.count - 1].offset
        recordOffsets.append(relative < Int64(HistoryIndexPart.farRecord) ? UInt32(relative) : HistoryIndexPart.farRecord)
        recordLabels.append(view.labelID.map { labels.number(of: $0) } ?? Self.noNumber)
        if view.kind == .reordered { reorders.append(seq) }
        recordActors.append(number(ofActor: view.actor))
        covered = position
    }

    /// The index this base builds, as it will be read back from its file.
    ///
    /// - Precondition: `!isSegment`.
    func build() -> HistoryIndex {
        precondition(!isSegment, "a segment is not an index of its own")
        return HistoryIndex(parts: [Self.part(from: encoded(), segment: false)])
    }

    /// The part whose bytes ``encoded()`` made (checked whole), read from byte `fileOffset` of the file at `path`.
    static func part(from bytes: [UInt8], segment: Bool, path: String = "", fileOffset: Int = 0) -> HistoryIndexPart {
        part(from: HistoryIndexBytes(copying: bytes), segment: segment, path: path, fileOffset: fileOffset)
    }

    /// The part in `bytes`, which ``encoded()`` made (checked whole).
    static func part(from bytes: HistoryIndexBytes, segment: Bool, path: String, fileOffset: Int) -> HistoryIndexPart {
        guard
            let part = try? HistoryIndexPart.decode(
                bytes, path: path, fileOffset: fileOffset, segment: segment, checkingWholeBody: true)
        else {
            preconditionFailure("a history index part decodes as it was encoded")
        }
        return part
    }
}

/// Label ids numbered in the order they were first seen (a history index
/// part's labels), found through a ``SlotIndex``: a few cycles a lookup,
/// where a `Dictionary` hashes the 16 bytes with SipHash.
struct LabelNumbering {
    private var index = SlotIndex()
    /// By number, each id.
    private(set) var keys: [LabelID] = []

    /// The number of `id`, given it if it has none yet.
    mutating func number(of id: LabelID) -> UInt32 {
        if let number = keys.withUnsafeBufferPointer({ keys in index.find(id) { keys[Int($0)] } }) { return number }
        let number = UInt32(keys.count)
        keys.append(id)
        keys.withUnsafeBufferPointer { keys in index.insert(id, slot: number) { keys[Int($0)] } }
        return number
    }

    /// Forgets the table that finds an id's number (the ids stay, by number); ``number(of:)`` must not be called after.
    mutating func dropLookup() { index = SlotIndex() }
}

/// Keys numbered in the order they were first seen: a history index part's
/// actors, so that each record holds a 4-byte number.
struct Numbering<Key: Hashable> {
    private var numbers: [Key: UInt32] = [:]
    /// By number, each key.
    private(set) var keys: [Key] = []

    /// The number of `key`, given it if it has none yet.
    mutating func number(of key: Key) -> UInt32 {
        if let number = numbers[key] { return number }
        let number = UInt32(keys.count)
        numbers[key] = number
        keys.append(key)
        return number
    }

    /// Forgets the table that finds a key's number (the keys stay, by number); ``number(of:)`` must not be called after.
    mutating func dropLookup() { numbers = [:] }
}
