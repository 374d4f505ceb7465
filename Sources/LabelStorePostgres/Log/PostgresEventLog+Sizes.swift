#if Postgres
import EventLog

/// What the list takes on the server, for `labelreplay stats`.
extension PostgresEventLog {
    /// The sizes of the schema's tables and of this list's rows in them, in bytes.
    public struct StorageSizes: Sendable, Hashable, Codable {
        /// The records table (every list of the schema), without its indexes: `pg_table_size`.
        public var recordsTable: Int64
        /// The records table's indexes (its key and `records_by_label`): `pg_indexes_size`.
        public var recordsIndexes: Int64
        /// The checkpoints table with its index and out-of-line images: `pg_total_relation_size`.
        public var checkpointsTable: Int64
        /// This list's records' payloads (`octet_length`, before the row overhead).
        public var listPayloads: Int64
        /// This list's checkpoints.
        public var listCheckpoints: Int
        /// This list's checkpoint images.
        public var listCheckpointImages: Int64
    }

    /// Asks the server what the schema's tables and this list's rows take. One
    /// statement; it reads this list's records (their payload lengths) once.
    ///
    /// - Throws: `EventLogError` as a read does.
    public func storageSizes() throws(EventLogError) -> StorageSizes {
        let schema = self.schema.identifier
        let sql = """
            SELECT pg_table_size($2::regclass), pg_indexes_size($2::regclass), \
            \(isReadOnly ? "0::bigint" : "pg_total_relation_size($3::regclass)"),
            (SELECT coalesce(sum(octet_length(payload)), 0)::bigint FROM \(schema).records WHERE list = $1),
            \(isReadOnly ? "0::bigint, 0::bigint" : """
            (SELECT count(*) FROM \(schema).checkpoints WHERE list = $1),
            (SELECT coalesce(sum(octet_length(image)), 0)::bigint FROM \(schema).checkpoints WHERE list = $1)
            """)
            """
        return try withSession(retrying: true, doing: "read the tables' sizes") {
            (connection) throws(PostgresStepFailure) -> StorageSizes in
            let result = try run { () throws(PostgresFailure) in
                try connection.execute(sql, [.text(location.list), .text("\(schema).records"), .text("\(schema).checkpoints")])
            }
            func value(_ column: Int) -> Int64 { result.integer(0, column) ?? 0 }
            return StorageSizes(
                recordsTable: value(0), recordsIndexes: value(1), checkpointsTable: value(2), listPayloads: value(3),
                listCheckpoints: Int(value(4)), listCheckpointImages: value(5))
        }
    }
}
#endif
