import EventLog

/// `import --resume`: passes on the input's entries except the longest run at
/// its start that the log already ends with, compared by content (event,
/// actor, note, and time when the input gives one), never by seq — streaming.
///
/// It holds no input entry it has matched: an entry that matched log record
/// s can be rebuilt from s (plus one bit: whether the line had a time), so a
/// candidate start that fails is retried against the log itself. Memory is
/// one bit per matched entry plus a few read batches; the log is read from
/// `window` on (the last as many records as the input can have), typically
/// once. O(n) typically (a mismatch shows at once), O(n²) at worst.
final class ResumeMatcher {
    private let storage: any EventStorage
    /// The log's last seq when the import began.
    private let lastSeq: UInt64
    /// The first seq a match can start at.
    private let window: UInt64
    private let source: () throws -> [LogEntry]?
    /// How many entries of the input the log already ends with, once known.
    private(set) var skipped: Int?
    /// The seq where the current candidate match starts (0: none yet).
    private var candidate: UInt64 = 0
    /// How many input entries match the log from `candidate` on.
    private var matched = 0
    /// Bit i: input entry i had a time.
    private var timed: [UInt64] = []
    /// At log record `candidate + matched`.
    private var cursor: RecordCursor?
    /// Entries rebuilt from the log that are not skipped after all, to pass on first.
    private var release: (cursor: RecordCursor, next: Int, end: Int)?
    /// Then these, then the rest of the input.
    private var queue: [LogEntry] = []

    /// A matcher passing on what `source` yields; `inputCount`, when known, bounds how far back a match can start.
    /// `firstSeq` is the log's first (after a based log's base): a match never starts before it.
    init(storage: any EventStorage, lastSeq: UInt64, firstSeq: UInt64, inputCount: Int?, source: @escaping () throws -> [LogEntry]?) {
        self.storage = storage
        self.lastSeq = lastSeq
        self.source = source
        let held = lastSeq >= firstSeq ? lastSeq - firstSeq + 1 : 0
        let back = UInt64(min(inputCount.map { max($0, 0) } ?? .max, Int(clamping: held)))
        window = lastSeq - back + 1
        if held == 0 { skipped = 0 }
    }

    /// The next entries to append, `nil` at the end.
    func next() throws -> [LogEntry]? {
        while true {
            if let rebuilt = try released(max: Import.chunkSize) { return rebuilt }
            if !queue.isEmpty {
                defer { queue = [] }
                return queue
            }
            if skipped != nil { return try source() }
            guard let chunk = try source() else {
                // The input ended: the match so far counts only if the log ends with it too.
                while skipped == nil {
                    if matched == 0 { skipped = 0 } else { try restart(pending: nil) }
                }
                continue
            }
            for (i, entry) in chunk.enumerated() {
                try feed(entry)
                if skipped != nil {
                    queue += chunk[(i + 1)...]
                    break
                }
            }
        }
    }

    /// Whether input entry `i` had a time.
    private func hadTime(_ i: Int) -> Bool { timed[i >> 6] & (1 << UInt64(i & 63)) != 0 }

    private func noteTime(_ entry: LogEntry, at i: Int) {
        if i >> 6 >= timed.count { timed.append(0) }
        if entry.timestamp != nil { timed[i >> 6] |= 1 << UInt64(i & 63) }
    }

    /// Input entry `i` as it was, rebuilt from the log record it matched.
    private func rebuilt(_ record: EventRecord, entry i: Int) -> LogEntry {
        LogEntry(record.event, timestamp: hadTime(i) ? record.timestamp : nil, actor: record.actor, note: record.note)
    }

    /// Takes input entry number `matched` (0-based) of the current attempt.
    private func feed(_ entry: LogEntry) throws {
        if candidate == 0 {
            guard let start = try firstMatch(of: entry, from: window) else {
                done(skipping: 0, pending: entry)
                return
            }
            candidate = start
            matched = 1
            noteTime(entry, at: 0)
            cursor = RecordCursor(storage: storage, from: start + 1)
        } else if let record = try cursor!.next(), Import.matches(entry, record) {
            noteTime(entry, at: matched)
            matched += 1
        } else {
            try restart(pending: entry)
            return
        }
        if candidate + UInt64(matched) - 1 == lastSeq { done(skipping: matched, pending: nil) }
    }

    /// The current attempt failed at `pending` (or at the end of the input): tries the
    /// next later start where the entries matched so far, and `pending`, match the log.
    private func restart(pending: LogEntry?) throws {
        let total = matched + (pending == nil ? 0 : 1)
        var first = RecordCursor(storage: storage, from: candidate)
        let head = rebuilt(try first.next()!, entry: 0)
        var from = candidate + 1
        while from <= lastSeq {
            guard let start = try firstMatch(of: head, from: from) else { break }
            var input = RecordCursor(storage: storage, from: candidate)
            var probe = RecordCursor(storage: storage, from: start)
            var i = 0
            while i < total {
                if start + UInt64(i) > lastSeq {
                    // The log ends here: its last i records are the input's first i.
                    done(skipping: i, pending: pending, rebuilding: i..<matched, from: candidate)
                    return
                }
                let entry = i < matched ? rebuilt(try input.next()!, entry: i) : pending!
                guard let record = try probe.next(), Import.matches(entry, record) else { break }
                i += 1
            }
            if i == total {
                if let pending { noteTime(pending, at: matched) }
                candidate = start
                matched = total
                cursor = probe
                if start + UInt64(total) - 1 == lastSeq { done(skipping: total, pending: nil) }
                return
            }
            from = start + 1
        }
        // No start matches: nothing is skipped.
        done(skipping: 0, pending: pending, rebuilding: 0..<matched, from: candidate)
    }

    /// The log ends with `count` entries of the input; the matched entries `rebuilding`
    /// (rebuilt from the log from seq `from` on), then `pending`, are to be appended.
    private func done(skipping count: Int, pending: LogEntry?, rebuilding: Range<Int> = 0..<0, from: UInt64 = 0) {
        skipped = count
        if !rebuilding.isEmpty {
            release = (
                RecordCursor(storage: storage, from: from + UInt64(rebuilding.lowerBound)), rebuilding.lowerBound, rebuilding.upperBound
            )
        }
        if let pending { queue.append(pending) }
        cursor = nil
    }

    /// Up to `max` of the entries to rebuild, or `nil` when there are none left.
    private func released(max: Int) throws -> [LogEntry]? {
        guard let release else { return nil }
        var (cursor, next) = (release.cursor, release.next)
        let end = release.end
        var out: [LogEntry] = []
        while next < end, out.count < max, let record = try cursor.next() {
            out.append(rebuilt(record, entry: next))
            next += 1
        }
        self.release = next < end && !out.isEmpty ? (cursor, next, end) : nil
        return out.isEmpty ? nil : out
    }

    /// The first log record from seq `from` on that `entry` describes.
    private func firstMatch(of entry: LogEntry, from: UInt64) throws -> UInt64? {
        var scan = RecordCursor(storage: storage, from: from)
        while let record = try scan.next() {
            if record.seq > lastSeq { return nil }
            if Import.matches(entry, record) { return record.seq }
        }
        return nil
    }
}

extension Import {
    /// Whether the input line `entry` describes `record`.
    static func matches(_ entry: LogEntry, _ record: EventRecord) -> Bool {
        entry.event == record.event && entry.actor == record.actor && entry.note == record.note
            && (entry.timestamp.map { $0 == record.timestamp } ?? true)
    }
}
