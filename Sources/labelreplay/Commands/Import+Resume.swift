import EventLog

extension Import {
    /// How many of `entries`, from the first, the log already ends with: the
    /// longest prefix of the input equal to the log's last records, compared by
    /// content (event, actor, note, and time when the input gives one), never
    /// by seq or by any bookmark. Reads only the log's last `entries.count`
    /// records. Typically O(n) (a mismatch shows at once); O(n²) at worst.
    static func alreadyPresent(_ entries: [LogEntry], in path: String, lastSeq: UInt64) throws -> Int {
        guard !entries.isEmpty, lastSeq > 0 else { return 0 }
        let window = min(UInt64(entries.count), lastSeq)
        let reader = try LogReader(path: path)
        try reader.skip(toSeq: lastSeq - window + 1)
        var tail: [EventRecord] = []
        while tail.count < Int(window), let record = try reader.next() { tail.append(record) }

        // The longest k first: the log's last k records equal the input's first k.
        for k in stride(from: tail.count, through: 1, by: -1) {
            let start = tail.count - k
            if (0..<k).allSatisfy({ matches(entries[$0], tail[start + $0]) }) { return k }
        }
        return 0
    }

    /// Whether the input line `entry` describes `record`.
    static func matches(_ entry: LogEntry, _ record: EventRecord) -> Bool {
        entry.event == record.event && entry.actor == record.actor && entry.note == record.note
            && (entry.timestamp.map { $0 == record.timestamp } ?? true)
    }

}
