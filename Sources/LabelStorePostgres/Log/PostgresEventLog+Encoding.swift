#if Postgres
import EventLog
import Foundation

/// Encoding an append: its records, their chained checksums, and the
/// statement and parameters that write them (docs/POSTGRES.md, "Appending").
extension PostgresEventLog {
    /// The entries as records at seqs `after + 1…`, encoded, with their envelope
    /// columns and chained checksums (`previous`: the checksum of seq `after`).
    func encode(_ entries: [LogEntry], after last: UInt64, previous: UInt32, now: EventTimestamp) throws(EventLogError) -> EncodedBatch {
        var batch = EncodedBatch()
        batch.logID = logID
        batch.previousCRC = previous
        var crc = previous
        batch.records.reserveCapacity(entries.count)
        for (i, entry) in entries.enumerated() {
            let record = entry.record(seq: last + 1 + UInt64(i), now: now)
            let payload: [UInt8]
            do {
                payload = try record.encodedPayload()
            } catch {
                var error = error
                error.message = "\(location): entry \(i) of the append cannot be stored: \(error.message)"
                throw error
            }
            batch.records.append(record)
            batch.seqs.append(PostgresValue.bigEndian(Int64(record.seq)))
            batch.times.append(PostgresValue.bigEndian(record.timestamp.millisecondsSince1970))
            batch.kinds.append(PostgresValue.bigEndian(Int16(record.event.kind.code)))
            batch.labels.append(record.event.labelID.map { PostgresValue.uuidBytes($0.uuid) })
            batch.actors.append(record.actor.map { Array($0.utf8) })
            crc = checksums.next(after: crc, payload: payload)
            batch.crcs.append(PostgresValue.bigEndian(Int64(crc)))
            batch.chain.append(crc)
            batch.payloads.append(payload)
        }
        batch.expected = last
        batch.lastCRC = crc
        return batch
    }

    /// An append's records and its statement's column arrays.
    struct EncodedBatch {
        var expected: UInt64 = 0
        var logID = UUID()
        var previousCRC: UInt32 = 0
        var lastCRC: UInt32 = 0
        var crcs: [[UInt8]?] = []
        /// The chained checksum of each record, in order.
        var chain: [UInt32] = []
        var records: [EventRecord] = []
        var seqs: [[UInt8]?] = []
        var times: [[UInt8]?] = []
        var kinds: [[UInt8]?] = []
        var labels: [[UInt8]?] = []
        var actors: [[UInt8]?] = []
        var payloads: [[UInt8]?] = []

        /// The parameters of ``PostgresStatements/append``: the columns as arrays.
        func parameters(list: String, batch: UUID) -> [PostgresValue] {
            typealias OID = PostgresValue.OID
            return [
                .text(list), .int8(Int64(expected)), .int8(Int64(records.count)), .uuid(batch),
                .array(of: OID.int8, arrayType: OID.int8Array, seqs),
                .array(of: OID.int8, arrayType: OID.int8Array, times),
                .array(of: OID.int2, arrayType: OID.int2Array, kinds),
                .array(of: OID.uuid, arrayType: OID.uuidArray, labels),
                .array(of: OID.text, arrayType: OID.textArray, actors),
                .array(of: OID.bytea, arrayType: OID.byteaArray, payloads),
                .uuid(logID), .int8(Int64(previousCRC)), .int8(Int64(lastCRC)),
                .array(of: OID.int8, arrayType: OID.int8Array, crcs),
                .bool(PostgresEventLog.movesCommittedLength(after: expected, count: records.count))
            ]
        }

        /// The parameters of ``PostgresStatements/appendOne``, for a batch of one
        /// record: the same, each column a single value.
        func singleParameters(list: String, batch: UUID) -> [PostgresValue] {
            typealias OID = PostgresValue.OID
            precondition(records.count == 1)
            return [
                .text(list), .int8(Int64(expected)), .int8(1), .uuid(batch),
                PostgresValue(type: OID.int8, bytes: seqs[0]), PostgresValue(type: OID.int8, bytes: times[0]),
                PostgresValue(type: OID.int2, bytes: kinds[0]), PostgresValue(type: OID.uuid, bytes: labels[0]),
                PostgresValue(type: OID.text, bytes: actors[0]), PostgresValue(type: OID.bytea, bytes: payloads[0]),
                .uuid(logID), .int8(Int64(previousCRC)), .int8(Int64(lastCRC)), PostgresValue(type: OID.int8, bytes: crcs[0]),
                .bool(PostgresEventLog.movesCommittedLength(after: expected, count: 1))
            ]
        }
    }

    /// Whether an append of `count` records after seq `expected` moves the
    /// list's committed length (the head row's `last_seq`, schema version 5):
    /// when its records reach a mark. The marks are every power of two up to
    /// 1,024, then every multiple of 1,024, so the head row is written by
    /// about one append in 1,024 (never by all: it is not the appends'
    /// order), and says of every list that it reached at least half its
    /// length, or all but its last 1,023 records (docs/POSTGRES.md, "Integrity").
    static func movesCommittedLength(after expected: UInt64, count: Int) -> Bool {
        let end = expected + UInt64(count)
        guard count > 0, end > 0 else { return false }
        let mark = end < committedLengthStep ? UInt64(1) << (63 - UInt64(end.leadingZeroBitCount)) : end - end % committedLengthStep
        return mark > expected
    }

    /// The spacing of the committed length's marks once a list is that long.
    static let committedLengthStep: UInt64 = 1024

    /// The statement that appends `batch` (``PostgresStatements/appendOne`` for one
    /// record, without arrays to build and unnest; else ``PostgresStatements/append``).
    func appendStatement(_ batch: EncodedBatch, batch id: UUID, endsSegment: Bool) -> PostgresConnection.PipelineStatement {
        if batch.records.count == 1 {
            return .init(
                name: "append-one", sql: statements.appendOne, parameters: batch.singleParameters(list: location.list, batch: id),
                endsSegment: endsSegment)
        }
        return .init(
            name: "append", sql: statements.append, parameters: batch.parameters(list: location.list, batch: id), endsSegment: endsSegment)
    }
}
#endif
