#if Postgres
import EventLog

/// Reading: a run of records from a seq, with the head row of the same
/// snapshot; each payload decoded and checked by the log's own parser, each
/// row's chained checksum checked, the run checked to be gapless and to reach
/// the head (docs/POSTGRES.md, "Integrity").
extension PostgresEventLog: PayloadReadingStorage {
    /// Up to `maxCount` records from `seq` on, in seq order (empty past the end).
    ///
    /// Each row's payload is decoded by the same parser, with the same checks,
    /// as a file log's record; the payload's seq must be the row's; the rows
    /// must be `seq, seq+1, …` with no gap, up to the head row's last seq or
    /// `maxCount`; each row's chained checksum (schema version 2) must be the
    /// one its payload and the row before give, and the last row's the head
    /// row's. So a row changed, removed, swapped or inserted by hand is named
    /// by its seq.
    ///
    /// - Throws: `EventLogError`: `corruptRecord` naming the list and seq for a
    ///   payload that does not decode or holds another seq, a checksum that
    ///   does not match, a row past the head; `seqGap` naming the first missing
    ///   seq; `listNotFound` / `listReplaced` when the list was dropped (and
    ///   created again); `connectionFailed` when the server stays unreachable
    ///   past ``Options-swift.struct/reconnectTimeout`` (a lost connection is
    ///   reconnected and the read sent again); `closed`; `serverError`.
    /// - Complexity: one round trip; O(bytes read).
    public func read(from seq: UInt64, maxCount: Int) throws(EventLogError) -> [EventRecord] {
        try readRecords(from: seq, maxCount: maxCount, hashing: false).records
    }

    /// ``read(from:maxCount:)``'s rows, every check made but the decoding of
    /// their payloads, which are handed out as the rows hold them, from the
    /// returned first seq on: the caller decodes them (a syncing device, on
    /// another thread than the one that reads the next page) and hashes them
    /// to prove the server's heads.
    package func readPayloads(from seq: UInt64, maxCount: Int) throws(EventLogError) -> (first: UInt64, payloads: StoredPayloads) {
        let read = try readRecords(from: seq, maxCount: maxCount, hashing: true, parsing: false)
        return (read.first, read.payloads)
    }

    private func readRecords(from seq: UInt64, maxCount: Int, hashing: Bool, parsing: Bool = true) throws(EventLogError) -> (
        records: [EventRecord], payloads: StoredPayloads, first: UInt64
    ) {
        guard maxCount > 0 else { return ([], StoredPayloads(), seq) }
        var conflicts = 0
        let (records, payloads, last, firstRead) = try withSession(retrying: true) {
            (connection) throws(PostgresStepFailure) -> ([EventRecord], StoredPayloads, UInt64?, UInt64) in
            // A list cut further since its base was read: read its base again, then the records.
            for attempt in 0..<2 {
                let base = listBase.withLock { $0 }
                // A based list holds no records before its first: a read from an earlier seq starts there.
                let first = max(seq, base.seq + 1)
                // The row before the first one read gives the first row's chain start (the base's, right after it).
                let from = first - 1 > base.seq ? first - 1 : first
                // One row more when the row before is read too (`maxCount` may be `Int.max`).
                let limit = Int64(clamping: maxCount) == .max ? .max : Int64(clamping: maxCount) + Int64(first - from)
                let (result, rows) = try readRows(on: connection, from: from, first: first, limit: limit, maxCount: maxCount)
                let cut = listRow(of: result).map { UInt64(max(0, result.integer($0, 6) ?? 0)) } ?? 0
                if cut > base.seq && cut >= from {
                    let found = try refreshBase(connection)
                    if seq <= found.seq && seq > base.seq {
                        throw PostgresStepFailure.log(
                            damage(
                                .seqGap,
                                "seqs \(base.seq + 1)…\(found.seq) were cut off the list (\(found.block.map(Self.describe) ?? "archived or dropped")) after this log read where it starts: seq \(seq) is no longer on the server (open the list again)",
                                seq: base.seq))
                    }
                    if attempt == 0 { continue }
                }
                let decoded = try self.decode(
                    result, rows: rows, from: first, rowBefore: from < first, base: base, maxCount: maxCount, on: connection,
                    hashing: hashing, parsing: parsing)
                return (decoded.records, decoded.payloads, decoded.last, first)
            }
            throw PostgresStepFailure.log(damage(.seqGap, "the list was cut twice while seq \(seq) was read", seq: seq - 1))
        } retryIf: { failure in
            // On a hot standby a read can be cancelled by a conflict with recovery (40001, 40P01):
            // nothing was changed; it is sent again, a few times.
            guard case .server(let failure) = failure, failure.isRetryableTransactionFailure, conflicts < Self.transactionRetries
            else { return false }
            conflicts += 1
            return true
        }
        if let last { noteLastSeq(last) }
        return (records, payloads, firstRead)
    }

    /// The rows of the read of up to `limit` rows from `from` (`first - 1`
    /// when the row before the records is read too), and how many of them
    /// are the read's (a page sent ahead may hold more). A read of a page
    /// (``readAheadPages``) on a connection outside a transaction, after a
    /// read that filled its page, sends the next page's read behind it
    /// (docs/POSTGRES.md, "Reading and following"), so the server runs it
    /// while this page is decoded; the next call that asks for it takes its
    /// rows if they fill the page — records up to a seq the list had then do
    /// not change — and otherwise reads again.
    private func readRows(on connection: PostgresConnection, from: UInt64, first: UInt64, limit: Int64, maxCount: Int)
        throws(PostgresStepFailure) -> (result: PostgresResult, rows: Int)
    {
        let result = try readPage(on: connection, from: from, first: first, limit: limit, maxCount: maxCount)
        connection.lastReadFilledItsPage = recordRows(of: result, from: from, first: first) >= maxCount
        return (result, Int(limit))
    }

    /// ``readRows(on:from:first:limit:maxCount:)``'s read, from ahead or not.
    private func readPage(on connection: PostgresConnection, from: UInt64, first: UInt64, limit: Int64, maxCount: Int)
        throws(PostgresStepFailure) -> PostgresResult
    {
        let parameters: [PostgresValue] = [.text(location.list), .int8(Int64(clamping: from)), .int8(limit)]
        func readNow() throws(PostgresStepFailure) -> PostgresResult {
            try run { () throws(PostgresFailure) in try connection.execute(prepared: "read", statements.read, parameters) }
        }
        guard Self.readAheadPages.contains(maxCount), connection.lastReadFilledItsPage, connection.canReadAhead else {
            return try readNow()
        }
        func statement(_ parameters: [PostgresValue]) -> PostgresConnection.PipelineStatement {
            PostgresConnection.PipelineStatement(name: "read", sql: statements.read, parameters: parameters, endsSegment: true)
        }
        // The page after this one, as a reader going on asks for it (its first record's row before it too).
        let nextFirst = first + UInt64(maxCount)
        let next = statement([.text(location.list), .int8(Int64(clamping: nextFirst - 1)), .int8(Int64(maxCount) + 1)])
        var asked = statement(parameters)
        var takingAhead = false
        if let ahead = connection.statementAhead, ahead.name == "read", ahead.parameters.count == 3,
            ahead.parameters[0] == parameters[0], ahead.parameters[1] == parameters[1],
            let aheadLimit = ahead.parameters[2].int8Value, aheadLimit >= limit
        {
            asked = ahead
            takingAhead = true
        }
        switch connection.run(asked, takingAhead: takingAhead, sendingAhead: next) {
        case .done(let result) where takingAhead:
            // Rows sent ahead count only for a full page: a page that reached the list's end then may not be its end now.
            guard recordRows(of: result, from: from, first: first) >= maxCount else {
                statistics.pagesReadAgain.add(1, ordering: .relaxed)
                return try readNow()
            }
            statistics.pagesTakenAhead.add(1, ordering: .relaxed)
            return result
        case .done(let result):
            return result
        case .failed(let failure):
            throw .server(failure)
        case .skipped:
            // A statement alone in its segment is never skipped; were it, the connection is not to be trusted.
            throw .server(PostgresFailure(sqlState: nil, message: "a read sent ahead was not run", connectionLost: true))
        }
    }

    /// How many records a read's result holds from `first` on (besides the
    /// list's row, and the row before `first` when the read began at `from = first - 1`).
    private func recordRows(of result: PostgresResult, from: UInt64, first: UInt64) -> Int {
        result.rowCount - (listRow(of: result) == nil ? 0 : 1) - Int(first - from)
    }

    /// The sizes of read (`maxCount`) that send the next page's read ahead: pages of a reader going through a run of records.
    static let readAheadPages = 256...65_536

    /// The row of a read's result (``PostgresStatements/read``) that holds
    /// the list's columns — the one whose `log_id` is not NULL: the first, as
    /// the server sends it, or wherever it is; `nil` when there is no list.
    func listRow(of result: PostgresResult) -> Int? {
        if result.rowCount > 0 && !result.isNull(0, 0) { return 0 }
        return (0..<result.rowCount).first { !result.isNull($0, 0) }
    }

    /// Decodes the rows of a read (``PostgresStatements/read``) of up to
    /// `maxCount` records from `first`, the first `rows` record rows of `result` (besides the list's row), which start at `first - 1` with
    /// `rowBefore` (else the chain starts at 0, or at `base`'s chain value
    /// right after it), read on `connection`; with `hashing`, their payloads
    /// too, as the rows hold them (else none); without `parsing`, the
    /// payloads alone (no records: the caller decodes them). Returns the
    /// last seq read, if any.
    func decode(
        _ result: PostgresResult, rows rowCount: Int? = nil, from first: UInt64, rowBefore: Bool, base: ListBase, maxCount: Int,
        on connection: PostgresConnection,
        hashing: Bool, parsing: Bool
    ) throws(PostgresStepFailure) -> (records: [EventRecord], payloads: StoredPayloads, last: UInt64?) {
        guard let listRow = listRow(of: result), let id = result.uuid(listRow, 0), let headValue = result.integer(listRow, 1),
            headValue >= 0, let headCRC = result.integer(listRow, 2)
        else {
            throw .log(
                EventLogError(.listNotFound, "\(location): the list '\(location.list)' no longer exists", path: location.description))
        }
        try checkSameList(id)
        let head = UInt64(headValue)
        let committed = UInt64(max(0, result.integer(listRow, 7) ?? 0))
        let committedCRC = UInt32(truncatingIfNeeded: result.integer(listRow, 8) ?? 0)
        // What the read asks for: the end matters only when the read reaches it.
        let reach = UInt64(maxCount) > UInt64.max - first ? UInt64.max : first + UInt64(maxCount) - 1
        try checkCommitted(
            end: head, endCRC: UInt32(truncatingIfNeeded: headCRC), committed: committed, committedCRC: committedCRC,
            base: (base.seq, base.crc), through: reach)
        try checkNotBehind(head: head, on: connection)
        let checked = schemaVersion >= 2
        var records: [EventRecord] = []
        records.reserveCapacity(result.rowCount)
        // Hashing: the payloads one after another.
        var payloads = StoredPayloads()
        if hashing {
            payloads.bytes.reserveCapacity(result.rowCount * 80)
            payloads.offsets.reserveCapacity(result.rowCount + 1)
        }
        var chain: [UInt32] = []
        // What this handle saw before: a row that holds another record at a seq it saw is a changed history.
        let seen = checked ? seenChain.withLock { $0 } : SeenChain()
        var expected = rowBefore ? first - 1 : first
        // Without a row before: the chain starts at 0 before seq 1, or at the base's chain value.
        var previous: UInt32 = first - 1 == base.seq ? base.crc : 0
        var row = 0
        var recordRows = 0
        while row < result.rowCount, recordRows < rowCount ?? .max {
            if row == listRow {
                row += 1
                continue
            }
            guard let rowSeq = result.integer(row, 3) else { break }
            recordRows += 1
            guard rowSeq >= 1 else {
                throw .log(damage(.corruptRecord, "a row after seq \(expected - 1) has no valid seq", seq: expected - 1))
            }
            if UInt64(rowSeq) != expected {
                throw .log(
                    damage(
                        .seqGap, "seq \(expected) is missing: the row after seq \(expected - 1) has seq \(rowSeq)",
                        seq: expected - 1))
            }
            if UInt64(rowSeq) > head {
                throw .log(
                    damage(
                        .corruptRecord, "a row of seq \(rowSeq) is past the head row, which says the list ends at seq \(head)",
                        seq: head))
            }
            let stored = UInt32(truncatingIfNeeded: result.integer(row, 4) ?? -1)
            if expected < first {
                // The row before the read: its checksum starts the chain (its own is checked when it is
                // read), and it must be the record this log read there, if it did.
                try checkSameHistory(seq: UInt64(rowSeq), crc: stored, on: connection)
                previous = stored
                expected += 1
                row += 1
                continue
            }
            let payload = result.bytes(row, 5)
            if checked {
                let computed = payload.withUnsafeBytes { checksums.next(after: previous, payload: $0) }
                if computed != stored {
                    throw .log(
                        damage(
                            .corruptRecord,
                            "the row of seq \(rowSeq) was altered: its checksum 0x\(hex(stored)) is not 0x\(hex(computed)), the one its payload and seq \(rowSeq - 1)'s give",
                            seq: expected - 1))
                }
                if UInt64(rowSeq) == committed && stored != committedCRC {
                    throw .log(replacedRow(committed: committed, committedCRC: committedCRC, found: stored))
                }
            }
            if let was = seen.value(at: UInt64(rowSeq)), was != stored {
                try checkSameHistory(seq: UInt64(rowSeq), crc: stored, on: connection)
            }
            if parsing {
                let record: EventRecord
                do {
                    record = try EventRecordView.parse(payload: payload).record
                } catch {
                    throw .log(
                        damage(.corruptRecord, "the payload of seq \(rowSeq) cannot be decoded: \(error.message)", seq: expected - 1))
                }
                if record.seq != expected {
                    throw .log(damage(.corruptRecord, "the row of seq \(rowSeq) holds a payload of seq \(record.seq)", seq: expected - 1))
                }
                records.append(record)
            }
            if hashing { payloads.append(payload) }
            if checked { chain.append(stored) }
            previous = stored
            expected += 1
            row += 1
        }
        // The head row is a promise: every record up to it is there.
        let readCount = expected >= first ? expected - first : 0
        if rowBefore && first - 1 <= head && (readCount == 0 && expected == first - 1) {
            throw .log(damage(.seqGap, "seq \(first - 1) is missing: the head row says the list ends at seq \(head)", seq: first - 2))
        }
        let wanted = head >= first ? min(UInt64(maxCount), head - first + 1) : 0
        if readCount < wanted {
            let missing = first + readCount
            throw .log(
                damage(.seqGap, "seq \(missing) is missing: the head row says the list ends at seq \(head)", seq: missing - 1))
        }
        let last = readCount > 0 ? expected - 1 : nil
        if let last {
            noteChain(seq: last, crc: previous)
            if checked {
                noteVerified(seq: last, crc: previous)
                seenChain.withLock { $0.note(from: first, crcs: chain) }
            }
        }
        return (records, payloads, last)
    }

    /// Checks the list's end (`end`, whose record has the chain value
    /// `endCRC`) against its committed length: the head row's `last_seq`
    /// and `last_crc`, which say the list reached `committed` with that
    /// chain value (in schema version 5 moved by some appends only; up to 4
    /// by every append, and so the end itself). Each row's own checksum is
    /// checked where it is read; here, what the end alone shows, for a read
    /// of the records `through` some seq (the end itself: `UInt64.max`): a read
    /// that stops before the end is not refused for what lies after it.
    ///
    /// - Throws: `seqGap` naming the first missing seq when the list ends
    ///   before `committed` (rows deleted from its end); `corruptRecord` when
    ///   the chain value at `committed` is not the record's or the base's.
    func checkCommitted(
        end: UInt64, endCRC: UInt32, committed: UInt64, committedCRC: UInt32, base: (seq: UInt64, crc: UInt32),
        through reach: UInt64 = .max
    ) throws(PostgresStepFailure) {
        guard schemaVersion >= 2, reach >= end else { return }
        if committed > end && reach > end {
            throw .log(
                damage(
                    .seqGap,
                    schemaVersion >= 5
                        ? "seq \(end + 1) is missing: the head row says the list reached seq \(committed), and its last row is seq \(end)"
                        : "seq \(end + 1) is missing: the head row says the list ends at seq \(committed)",
                    seq: end))
        }
        if committed == end && endCRC != committedCRC {
            throw .log(replacedRow(committed: committed, committedCRC: committedCRC, found: endCRC))
        }
        if committed == base.seq && committedCRC != base.crc {
            throw .log(replacedRow(committed: committed, committedCRC: committedCRC, found: base.crc))
        }
    }

    /// The damage of a head row whose chain value at `committed` is not the
    /// record's (or the base's) `found`.
    private func replacedRow(committed: UInt64, committedCRC: UInt32, found: UInt32) -> EventLogError {
        damage(
            .corruptRecord,
            "the head row's chain value 0x\(hex(committedCRC)) is not seq \(committed)'s checksum 0x\(hex(found)): a row was replaced",
            seq: committed > 0 ? committed - 1 : 0)
    }

    private func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }

    /// What messages about a payload call this list (as ``read(from:maxCount:)``'s do), and its location.
    package var payloadSource: (name: String, path: String) { ("\(location): list '\(location.list)'", location.description) }

    func damage(_ code: EventLogError.Code, _ what: String, seq lastGood: UInt64) -> EventLogError {
        EventLogError(
            code, "\(location): list '\(location.list)': \(what)", path: location.description, lastGoodSeq: lastGood)
    }
}
#endif
