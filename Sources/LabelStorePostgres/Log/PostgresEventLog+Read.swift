#if Postgres
import EventLog

/// Reading: a run of records from a seq, each payload decoded and checked by
/// the log's own parser, and the run checked to be gapless.
extension PostgresEventLog {
    /// Up to `maxCount` records from `seq` on, in seq order (empty past the end).
    ///
    /// Each row's payload is decoded by the same parser, with the same checks,
    /// as a file log's record; the payload's seq must be the row's, and the
    /// rows must be `seq, seq+1, …` with no gap.
    ///
    /// - Throws: `EventLogError`: `corruptRecord` naming the list and seq for a
    ///   payload that does not decode or holds another seq; `seqGap` naming the
    ///   missing seq; `connectionFailed` when the server stays unreachable past
    ///   ``Options-swift.struct/reconnectTimeout`` (a lost connection is
    ///   reconnected and the read sent again); `closed`; `serverError`.
    /// - Complexity: one round trip; O(bytes read).
    public func read(from seq: UInt64, maxCount: Int) throws(EventLogError) -> [EventRecord] {
        let first = max(seq, 1)
        guard maxCount > 0 else { return [] }
        let records = try withSession(retrying: true) { (connection) throws(PostgresStepFailure) -> [EventRecord] in
            let result = try run { () throws(PostgresFailure) in
                try connection.execute(
                    prepared: "read", statements.read,
                    [.text(location.list), .int8(Int64(clamping: first)), .int8(Int64(maxCount))])
            }
            return try self.decode(result, from: first)
        }
        if let last = records.last { noteLastSeq(last.seq) }
        return records
    }

    /// Decodes the rows `(seq, payload)` of a read from `first`.
    func decode(_ result: PostgresResult, from first: UInt64) throws(PostgresStepFailure) -> [EventRecord] {
        var records: [EventRecord] = []
        records.reserveCapacity(result.rowCount)
        var expected = first
        for row in 0..<result.rowCount {
            guard let rowSeq = result.integer(row, 0), rowSeq >= 1 else {
                throw .log(damage(.corruptRecord, "a row after seq \(expected - 1) has no valid seq", seq: expected - 1))
            }
            if UInt64(rowSeq) != expected {
                throw .log(
                    damage(
                        .seqGap, "seq \(expected) is missing: the row after seq \(expected - 1) has seq \(rowSeq)",
                        seq: expected - 1))
            }
            let payload = result.bytes(row, 1)
            let record: EventRecord
            do {
                record = try EventRecordView.parse(payload: payload).record
            } catch {
                throw .log(damage(.corruptRecord, "the payload of seq \(rowSeq) cannot be decoded: \(error.message)", seq: expected - 1))
            }
            if record.seq != expected {
                throw .log(damage(.corruptRecord, "the row of seq \(rowSeq) holds a payload of seq \(record.seq)", seq: expected - 1))
            }
            records.append(record)
            expected += 1
        }
        return records
    }

    private func damage(_ code: EventLogError.Code, _ what: String, seq lastGood: UInt64) -> EventLogError {
        EventLogError(
            code, "\(location): list '\(location.list)': \(what)", path: location.description, lastGoodSeq: lastGood)
    }
}
#endif
