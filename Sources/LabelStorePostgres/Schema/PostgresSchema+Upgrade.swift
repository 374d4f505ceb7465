#if Postgres
import EventLog
import Foundation

/// Migrating a schema of an older version to this build's, in place
/// (docs/POSTGRES.md, "Upgrading").
extension PostgresEventLog {
    /// What ``upgrade(_:options:progress:)`` did.
    public struct UpgradeReport: Sendable, Hashable, Codable {
        /// The schema's version before.
        public let fromVersion: Int
        /// The schema's version after (``PostgresEventLog/currentSchemaVersion``).
        public let toVersion: Int
        /// The lists migrated (every list of the schema).
        public let lists: Int
        /// The records checked and given their chained checksums (0 from version 2, whose records have them).
        public let records: Int
        /// Whether anything changed (`false`: the schema was already current).
        public var changed: Bool { fromVersion != toVersion }
    }

    /// Migrates the label store schema at `location` (every list in it, not
    /// only `location.list`) from version 1, 2, 3, 4, 5, 6 or 7 to ``currentSchemaVersion``.
    /// From version 1 every record is decoded and checked (seqs gapless from 1
    /// up to each list's head), given its keyed, chained checksum, and each head
    /// row its chain value. From version 2 (and then from 1), each batch's id
    /// moves from the `batches` table onto its first record, `batches` and the
    /// actor index are dropped, the label index becomes a hash index, and the
    /// head rows' table gets its fill factor. From version 3 (and then from 1
    /// and 2), the head rows gain the base columns of a list whose first
    /// records are cut off (``PostgresEventLog/cutHistory(through:archiveTo:now:progress:)``);
    /// every list keeps starting at seq 1. From version 4 (and then from any),
    /// no table changes: each head row's `last_seq` and `last_crc`, the list's
    /// end until now, become its committed length, and appends stop moving
    /// them with every record (docs/POSTGRES.md, "Appending"). From version 5
    /// (and then from any), the checkpoints gain their history tree frontier
    /// column (NULL for those already there). From version 6 (and then from
    /// any), the schema gains the `cut_batches` table, where later cuts keep the
    /// batch ids of the rows they remove. From version 7 (and then from any),
    /// the checkpoints gain `delta_on`, which makes a row a storage delta on
    /// an earlier one (NULL, a full image, for those already there). The
    /// version is set last.
    ///
    /// All of it is one transaction, holding the schema's tables locked
    /// (`ACCESS EXCLUSIVE`), so no host writes meanwhile and a cut (a crash, a
    /// lost connection, an interrupt) leaves the old version as it was: run it again.
    /// A schema already current is left as it is. Hosts of an older build are
    /// refused by the new version once it commits.
    ///
    /// - Parameters:
    ///   - location: A list of the schema to upgrade (its `schema`; the list itself need not exist).
    ///   - options: How to connect (``Options-swift.struct/statementTimeout`` applies to each statement).
    ///   - progress: Called after each chunk of records, with the list and how
    ///     many of its records are done.
    /// - Throws: `EventLogError`: `corruptRecord` / `seqGap` naming the list and
    ///   seq of a damaged list (nothing is changed then); `schemaMissing`;
    ///   `unsupportedVersion` for a newer schema; the connection's failures.
    public static func upgrade(
        _ location: PostgresLocation, options: Options = Options(), progress: ((_ list: String, _ done: UInt64) -> Void)? = nil
    ) throws(EventLogError) -> UpgradeReport {
        let connection = try connect(location, options)
        defer { connection.close() }
        let schema = PostgresSchema(name: location.schema)
        do throws(PostgresStepFailure) {
            guard case .present(let version) = try schema.inspect(connection, describe: location.description) else {
                throw PostgresStepFailure.log(
                    EventLogError(
                        .schemaMissing, "\(location): the database has no label store schema '\(schema.name)' to upgrade",
                        path: location.description))
            }
            if version == PostgresSchema.version {
                // A version 3 schema made before the unlabelled records' index gains it.
                _ = try run { () throws(PostgresFailure) in
                    try connection.execute(PostgresSchema.unlabelledIndex(schema.identifier))
                }
                return UpgradeReport(fromVersion: Int(version), toVersion: Int(version), lists: 0, records: 0)
            }
            return try migrate(connection, schema: schema, location: location, progress: progress)
        } catch {
            _ = try? connection.execute("ROLLBACK")
            throw mapped(error, location: location, doing: "upgrade the schema")
        }
    }

    /// The migration to this build's version in one transaction on `connection`:
    /// 1 → 2 (checksums), then 2 → 3 (batch ids on the records, the envelope index, the checkpoints table),
    /// then 3 → 4 (the base columns of the head rows), then 4 → 5 (the version alone), then 5 → 6
    /// (the checkpoints' frontier column), then 6 → 7 (the cut rows' batch ids), then 7 → 8 (the checkpoints' chains).
    private static func migrate(
        _ connection: PostgresConnection, schema: PostgresSchema, location: PostgresLocation,
        progress: ((String, UInt64) -> Void)?
    ) throws(PostgresStepFailure) -> UpgradeReport {
        let s = schema.identifier
        try run { () throws(PostgresFailure) in
            _ = try connection.execute("BEGIN")
            _ = try connection.execute("LOCK TABLE \(s).schema_info, \(s).lists, \(s).records IN ACCESS EXCLUSIVE MODE")
        }
        let current = try run { () throws(PostgresFailure) in try connection.execute("SELECT version FROM \(s).schema_info") }
        let from = current.integer(0, 0) ?? 0
        if from == PostgresSchema.version {
            // Another upgrade committed while this one waited for the locks.
            _ = try run { () throws(PostgresFailure) in try connection.execute("COMMIT") }
            return UpgradeReport(fromVersion: Int(from), toVersion: Int(from), lists: 0, records: 0)
        }
        // Versions 1 and 2 have it; locked only now, since an upgrade that committed meanwhile dropped it.
        if from < 3 {
            _ = try run { () throws(PostgresFailure) in try connection.execute("LOCK TABLE \(s).batches IN ACCESS EXCLUSIVE MODE") }
        }
        let listRows = try run { () throws(PostgresFailure) in
            try connection.execute("SELECT list, log_id, last_seq FROM \(s).lists ORDER BY list")
        }
        var records = 0
        if from < 2 {
            records = try chain(connection, lists: listRows, schema: s, location: location, progress: progress)
        }
        if from < 3 { try addBatchIDs(connection, schema: s) }
        try run { () throws(PostgresFailure) in
            if from < 4 {
                // 3 → 4: the base of a list whose first records were cut off (none yet: every list starts at seq 1).
                for column in PostgresSchema.baseColumns { _ = try connection.execute("ALTER TABLE \(s).lists ADD COLUMN \(column)") }
            }
            // 4 → 5: no column changes. The head rows' `last_seq` and `last_crc` become the lists'
            // committed lengths, which each list's end already is; from now on appends go by the
            // records' key and move them now and then, so a version 4 build must no longer write.
            // A version 3 schema made before the unlabelled records' index gains it.
            _ = try connection.execute(PostgresSchema.unlabelledIndex(s))
            // 5 → 6: the checkpoints' history tree frontiers (none for the checkpoints written before).
            _ = try connection.execute(PostgresSchema.checkpointFrontierColumn(s))
            // 6 → 7: the batch ids of cut rows (none kept for the cuts made before).
            _ = try connection.execute(PostgresSchema.cutBatchesTable(s))
            // 7 → 8: the checkpoints' chains (every checkpoint written before is a full image).
            _ = try connection.execute(PostgresSchema.checkpointDeltaColumn(s))
            _ = try connection.execute("UPDATE \(s).schema_info SET version = \(PostgresSchema.version)")
            _ = try connection.execute("COMMIT")
        }
        return UpgradeReport(
            fromVersion: Int(from), toVersion: Int(PostgresSchema.version), lists: listRows.rowCount, records: records)
    }

    /// Version 2 → 3, in the upgrade's transaction.
    private static func addBatchIDs(_ connection: PostgresConnection, schema s: String) throws(PostgresStepFailure) {
        try run { () throws(PostgresFailure) in
            // 2 → 3: each append's batch id on its first record, instead of a row of its own; the
            // label index a hash index; no actor index; room on the head rows' pages for their updates.
            _ = try connection.execute("ALTER TABLE \(s).records ADD COLUMN batch_id uuid")
            _ = try connection.execute(
                "UPDATE \(s).records r SET batch_id = b.batch_id FROM \(s).batches b WHERE r.list = b.list AND r.seq = b.first_seq")
            _ = try connection.execute("DROP TABLE \(s).batches")
            _ = try connection.execute("DROP INDEX IF EXISTS \(s).records_by_actor")
            _ = try connection.execute("DROP INDEX IF EXISTS \(s).records_by_label")
            _ = try connection.execute(PostgresSchema.labelIndex(s))
            _ = try connection.execute(PostgresSchema.unlabelledIndex(s))
            _ = try connection.execute("ALTER TABLE \(s).lists SET (fillfactor = \(PostgresSchema.listsFillFactor))")
            _ = try connection.execute(PostgresSchema.checkpointsTable(s))
            _ = try connection.execute("ALTER TABLE \(s).checkpoints ALTER COLUMN image SET STORAGE EXTERNAL")
        }
    }

    /// Version 1 → 2: gives every record of every list its chained checksum
    /// (checking each list first) and makes `crc` required; returns the records.
    private static func chain(
        _ connection: PostgresConnection, lists: PostgresResult, schema s: String, location: PostgresLocation,
        progress: ((String, UInt64) -> Void)?
    ) throws(PostgresStepFailure) -> Int {
        try run { () throws(PostgresFailure) in
            _ = try connection.execute(
                "ALTER TABLE \(s).lists ADD COLUMN last_crc bigint NOT NULL DEFAULT 0 CHECK (last_crc BETWEEN 0 AND 4294967295)")
            _ = try connection.execute("ALTER TABLE \(s).records ADD COLUMN crc bigint CHECK (crc BETWEEN 0 AND 4294967295)")
        }
        var records = 0
        for row in 0..<lists.rowCount {
            guard let list = lists.text(row, 0), let id = lists.uuid(row, 1), let last = lists.integer(row, 2) else { continue }
            records += try migrate(
                list: list, id: id, lastSeq: UInt64(max(0, last)), connection, schema: s, location: location, progress: progress)
        }
        try run { () throws(PostgresFailure) in
            _ = try connection.execute("ALTER TABLE \(s).records ALTER COLUMN crc SET NOT NULL")
        }
        return records
    }

    /// Checks and chains one list's records; returns how many there were.
    private static func migrate(
        list: String, id: UUID, lastSeq: UInt64, _ connection: PostgresConnection, schema s: String, location: PostgresLocation,
        progress: ((String, UInt64) -> Void)?
    ) throws(PostgresStepFailure) -> Int {
        let checksums = ChainedChecksum(historyID: id)
        func damage(_ code: EventLogError.Code, _ what: String, _ lastGood: UInt64) -> PostgresStepFailure {
            .log(
                EventLogError(
                    code, "\(location): list '\(list)': \(what); nothing was upgraded", path: location.description,
                    lastGoodSeq: lastGood))
        }
        let chunk = 10_000
        var next: UInt64 = 1
        var crc: UInt32 = 0
        while true {
            let rows = try run { () throws(PostgresFailure) in
                try connection.execute(
                    "SELECT seq, payload FROM \(s).records WHERE list = $1 AND seq >= $2 ORDER BY seq LIMIT $3",
                    [.text(list), .int8(Int64(next)), .int4(Int32(chunk))])
            }
            if rows.rowCount == 0 { break }
            var seqs: [[UInt8]?] = []
            var crcs: [[UInt8]?] = []
            for row in 0..<rows.rowCount {
                guard let seq = rows.integer(row, 0), UInt64(seq) == next else {
                    throw damage(.seqGap, "seq \(next) is missing", next - 1)
                }
                if UInt64(seq) > lastSeq {
                    throw damage(
                        .corruptRecord, "a row of seq \(seq) is past the head row, which says the list ends at seq \(lastSeq)", lastSeq)
                }
                let payload = rows.bytes(row, 1)
                let record: EventRecord
                do {
                    record = try EventRecordView.parse(payload: payload).record
                } catch {
                    throw damage(.corruptRecord, "the payload of seq \(seq) cannot be decoded: \(error.message)", next - 1)
                }
                if record.seq != next {
                    throw damage(.corruptRecord, "the row of seq \(seq) holds a payload of seq \(record.seq)", next - 1)
                }
                crc = checksums.next(after: crc, payload: payload)
                seqs.append(PostgresValue.bigEndian(Int64(seq)))
                crcs.append(PostgresValue.bigEndian(Int64(crc)))
                next += 1
            }
            typealias OID = PostgresValue.OID
            _ = try run { () throws(PostgresFailure) in
                try connection.execute(
                    "UPDATE \(s).records r SET crc = v.crc FROM unnest($2::bigint[], $3::bigint[]) AS v(seq, crc) WHERE r.list = $1 AND r.seq = v.seq",
                    [
                        .text(list), .array(of: OID.int8, arrayType: OID.int8Array, seqs),
                        .array(of: OID.int8, arrayType: OID.int8Array, crcs)
                    ])
            }
            progress?(list, next - 1)
        }
        if next - 1 < lastSeq {
            throw damage(.seqGap, "seq \(next) is missing: the head row says the list ends at seq \(lastSeq)", next - 1)
        }
        _ = try run { () throws(PostgresFailure) in
            try connection.execute("UPDATE \(s).lists SET last_crc = $2 WHERE list = $1", [.text(list), .int8(Int64(crc))])
        }
        return Int(next - 1)
    }
}
#endif
