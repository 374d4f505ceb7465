#if Postgres
import EventLog
import Foundation

/// Reading the records of some labels only, through the records' label
/// index (`records_by_label`), instead of every record.
extension PostgresEventLog {
    /// The records that name one of `ids`, with seqs in `after + 1 … through`,
    /// in seq order; with `kinds`, only those of these kinds.
    ///
    /// Each row is checked as far as it can be alone: its payload decodes
    /// with the log's parser and holds the row's seq, and its chained
    /// checksum is the one its payload and the row before it give (that row's
    /// stored checksum is read with it). A record changed by hand is thus
    /// named; rows removed or inserted around it are found by a read from
    /// seq 1 and `labelreplay verify`, not by this.
    ///
    /// - Throws: `EventLogError`: `corruptRecord` naming the list and seq;
    ///   the server's failures as a read has them.
    /// - Complexity: one round trip; O(the records returned), found through the label index.
    public func records(
        ofLabels ids: Set<LabelID>, after: UInt64, through: UInt64, kinds: Set<LabelEvent.Kind>? = nil
    ) throws(EventLogError) -> [EventRecord] {
        guard !ids.isEmpty, through > after else { return [] }
        let uuids = ids.map { PostgresValue.uuidBytes($0.uuid) }
        let codes = (kinds ?? Set(LabelEvent.Kind.allCases)).map { PostgresValue.bigEndian(Int16($0.code)) }
        return try withSession(retrying: true, doing: "read the labels' records") {
            (connection) throws(PostgresStepFailure) -> [EventRecord] in
            let result = try run { () throws(PostgresFailure) in
                try connection.execute(
                    prepared: "label-records", statements.labelRecords,
                    [
                        .text(location.list), .array(of: PostgresValue.OID.uuid, arrayType: PostgresValue.OID.uuidArray, uuids),
                        .int8(Int64(clamping: after)), .int8(Int64(clamping: through)),
                        .array(of: PostgresValue.OID.int2, arrayType: PostgresValue.OID.int2Array, codes)
                    ])
            }
            return try checkedRecords(result)
        }
    }

    /// The records at `seqs` (in any order; repeats count once), in seq
    /// order, each checked as ``records(ofLabels:after:through:kinds:)``
    /// checks a record. A seq with no row — after the list's end, or cut off
    /// to an archive — is left out: the caller compares what it gets with
    /// what it asked for.
    ///
    /// For records whose seqs are known, e.g. the removals a checkpoint's
    /// list names (`LabelList.removal(of:)`): a probe of the records' key
    /// per seq, where a read through the label index visits every record of
    /// each label.
    ///
    /// - Throws: `EventLogError` as ``records(ofLabels:after:through:kinds:)`` does.
    /// - Complexity: one round trip; O(`seqs.count`) probes of the records' key.
    public func records(atSeqs seqs: [UInt64]) throws(EventLogError) -> [EventRecord] {
        let wanted = Set(seqs.filter { $0 >= 1 && $0 <= UInt64(Int64.max) })
        guard !wanted.isEmpty else { return [] }
        let values = wanted.sorted().map { PostgresValue.bigEndian(Int64($0)) }
        return try withSession(retrying: true, doing: "read records by seq") {
            (connection) throws(PostgresStepFailure) -> [EventRecord] in
            let result = try run { () throws(PostgresFailure) in
                try connection.execute(
                    prepared: "records-at-seqs", statements.recordsAtSeqs,
                    [.text(location.list), .array(of: PostgresValue.OID.int8, arrayType: PostgresValue.OID.int8Array, values)])
            }
            return try checkedRecords(result)
        }
    }

    /// The records of rows `seq, crc, payload, crc of the row before`, each
    /// checked as far as it can be alone (see ``records(ofLabels:after:through:kinds:)``).
    private func checkedRecords(_ result: PostgresResult) throws(PostgresStepFailure) -> [EventRecord] {
        var records: [EventRecord] = []
        records.reserveCapacity(result.rowCount)
        // The first record after a base continues the base's chain value (its row before was cut).
        let base = listBase.withLock { $0 }
        for row in 0..<result.rowCount {
            guard let seq = result.integer(row, 0), seq >= 1, let stored = result.integer(row, 1) else { continue }
            let payload = result.bytes(row, 2)
            func damage(_ what: String) -> PostgresStepFailure {
                .log(
                    EventLogError(
                        .corruptRecord, "\(location): list '\(location.list)': \(what)", path: location.description,
                        lastGoodSeq: UInt64(seq) - 1))
            }
            if schemaVersion >= 2 {
                let previous = seq == 1 ? 0 : UInt64(seq) - 1 == base.seq ? Int64(base.crc) : result.integer(row, 3)
                guard let previous else { throw damage("seq \(seq - 1) is missing before seq \(seq)") }
                let computed = payload.withUnsafeBytes { checksums.next(after: UInt32(truncatingIfNeeded: previous), payload: $0) }
                guard computed == UInt32(truncatingIfNeeded: stored) else {
                    throw damage("the row of seq \(seq) was altered: its checksum does not match its payload and seq \(seq - 1)'s")
                }
            }
            let record: EventRecord
            do throws(EventLogError) {
                record = try EventRecordView.parse(payload: payload).record
            } catch {
                throw damage("the payload of seq \(seq) cannot be decoded: \(error.message)")
            }
            guard record.seq == UInt64(seq) else { throw damage("the row of seq \(seq) holds a payload of seq \(record.seq)") }
            records.append(record)
        }
        return records
    }

    /// The list's reorders (`reordered` records) with seqs in `after + 1 …
    /// through`, in seq order, each checked as ``records(ofLabels:after:through:kinds:)``
    /// checks a record; read through the index of the records that name no label.
    ///
    /// - Throws: `EventLogError` as ``records(ofLabels:after:through:kinds:)`` does.
    /// - Complexity: one round trip; O(the reorders in the range and their bytes).
    public func reorderRecords(after: UInt64, through: UInt64) throws(EventLogError) -> [EventRecord] {
        guard through > after else { return [] }
        return try reorders("unlabelled-records", statements.unlabelledRecords, after: after, through: through) {
            (result) throws(PostgresStepFailure) -> [EventRecord] in try checkedRecords(result)
        }
    }

    /// The seqs of the list's reorders (`reordered` records) in `after + 1 …
    /// through`, ascending: with ``records(ofLabels:after:through:kinds:)``,
    /// every record that can concern some labels. Read through the index of
    /// the records that name no label (`records_unlabelled`; a version 3
    /// schema made without it gains it with `labelreplay upgrade`, and is read
    /// by the list's key meanwhile). The rows are not checked: the caller
    /// reads the records it needs by seq.
    ///
    /// - Throws: `EventLogError` as a read does.
    /// - Complexity: one round trip; O(the reorders in the range).
    public func reorderSeqs(after: UInt64, through: UInt64) throws(EventLogError) -> [UInt64] {
        guard through > after else { return [] }
        return try reorders("unlabelled-seqs", statements.unlabelledSeqs, after: after, through: through) { result in
            (0..<result.rowCount).compactMap { result.integer($0, 0) }.map { UInt64($0) }
        }
    }

    /// Runs the prepared statement `name` (`sql`: ``PostgresStatements/unlabelledSeqs``
    /// or ``PostgresStatements/unlabelledRecords``) for the list's reorders in
    /// `after + 1 … through`, and returns what `take` makes of its result.
    private func reorders<T>(
        _ name: String, _ sql: String, after: UInt64, through: UInt64,
        _ take: (PostgresResult) throws(PostgresStepFailure) -> T
    ) throws(EventLogError) -> T {
        try withSession(retrying: true, doing: "read the list's reorders") { (connection) throws(PostgresStepFailure) -> T in
            let result = try run { () throws(PostgresFailure) in
                try connection.execute(
                    prepared: name, sql,
                    [
                        .text(location.list), .int2(Int16(LabelEvent.Kind.reordered.code)),
                        .int8(Int64(clamping: after)), .int8(Int64(clamping: through))
                    ])
            }
            return try take(result)
        }
    }

    /// The label ids the list's records after seq `after` name that lie in
    /// `lowest … highest` (compared as 16 bytes, as an id prefix's range is:
    /// the prefix padded with zero bits, then with one bits), ascending. For
    /// resolving an id prefix without reading every record: one round trip,
    /// and a scan of the list's rows on the server — of every row with
    /// `after` 0, of the rows after it otherwise (a range of the records'
    /// key: a caller that knows the ids up to a checkpoint asks for the rest).
    /// Records cut off to an archive are not in it.
    ///
    /// - Throws: `EventLogError` as a read does.
    public func labelIDs(from lowest: UUID, through highest: UUID, after: UInt64 = 0) throws(EventLogError) -> [UUID] {
        try withSession(retrying: true, doing: "read the list's label ids") { (connection) throws(PostgresStepFailure) -> [UUID] in
            let result = try run { () throws(PostgresFailure) in
                after == 0
                    ? try connection.execute(
                        prepared: "label-ids-in-range", statements.labelIDsInRange,
                        [.text(location.list), .uuid(lowest), .uuid(highest)])
                    : try connection.execute(
                        prepared: "label-ids-in-range-after", statements.labelIDsInRangeAfter,
                        [.text(location.list), .uuid(lowest), .uuid(highest), .int8(Int64(clamping: after))])
            }
            return (0..<result.rowCount).compactMap { result.uuid($0, 0) }
        }
    }

    /// The seqs of the list's checkpoint rows, ascending, as stored: for
    /// planning a read (how far a fold from the nearest one is), not checked
    /// against the records (``checkpoint(atOrBefore:)`` does that).
    ///
    /// - Throws: `EventLogError` as a read does.
    public func checkpointSeqs() throws(EventLogError) -> [UInt64] {
        guard !isReadOnly else { return [] }
        return try withSession(retrying: true, doing: "read the list's checkpoint seqs") {
            (connection) throws(PostgresStepFailure) -> [UInt64] in
            let result = try run { () throws(PostgresFailure) in
                try connection.execute(prepared: "checkpoint-seqs", statements.checkpointSeqs, [.text(location.list)])
            }
            return (0..<result.rowCount).compactMap { result.integer($0, 0) }.map { UInt64($0) }
        }
    }
}
#endif
