#if Postgres
import EventLog

/// The store's tables in one schema (docs/POSTGRES.md, "Schema"), the
/// statements that create them, and the check that a database holds them.
struct PostgresSchema {
    /// The version this build writes and reads. A database with a newer one is
    /// refused; one at an older version is read only (``PostgresEventLog/upgrade(_:options:progress:)`` migrates it).
    static let version: Int64 = 8
    /// The oldest version this build reads.
    static let oldestReadable: Int64 = 1

    /// The schema's name as written (for messages and for the catalog's `pg_namespace`).
    let name: String
    /// The schema's name as an SQL identifier, quoted: what SQL text interpolates.
    var identifier: String { PostgresStatements.quoted(name) }

    /// The statements that create the schema, run in one transaction.
    var creation: [String] {
        let name = identifier
        return [
            "CREATE SCHEMA IF NOT EXISTS \(name)",
            """
            CREATE TABLE \(name).schema_info (
                singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
                version integer NOT NULL,
                created_at timestamptz NOT NULL DEFAULT now())
            """,
            "INSERT INTO \(name).schema_info (version) VALUES (\(Self.version))",
            """
            CREATE TABLE \(name).lists (
                list text PRIMARY KEY,
                log_id uuid NOT NULL,
                last_seq bigint NOT NULL DEFAULT 0 CHECK (last_seq >= 0),
                last_crc bigint NOT NULL DEFAULT 0 CHECK (last_crc BETWEEN 0 AND 4294967295),
                created_at timestamptz NOT NULL DEFAULT now(),
                \(Self.baseColumns.joined(separator: ",\n    ")))
            WITH (fillfactor = \(Self.listsFillFactor))
            """,
            """
            CREATE TABLE \(name).records (
                list text NOT NULL,
                seq bigint NOT NULL CHECK (seq >= 1),
                time_ms bigint NOT NULL,
                kind smallint NOT NULL,
                label_id uuid,
                actor text,
                crc bigint NOT NULL CHECK (crc BETWEEN 0 AND 4294967295),
                payload bytea NOT NULL,
                batch_id uuid,
                PRIMARY KEY (list, seq))
            """,
            Self.labelIndex(name),
            Self.unlabelledIndex(name),
            Self.checkpointsTable(name),
            "ALTER TABLE \(name).checkpoints ALTER COLUMN image SET STORAGE EXTERNAL",
            Self.checkpointFrontierColumn(name),
            Self.cutBatchesTable(name),
            Self.checkpointDeltaColumn(name)
        ]
    }

    /// The checkpoints table (version 3): the list after some seqs, as a
    /// snapshot image (docs/POSTGRES.md, "Checkpoints"), each bound to the
    /// chained checksum of the record it follows. A cache: never trusted
    /// over the records. Its images are stored uncompressed (`EXTERNAL`):
    /// they are mostly random ids, which compression would only spend time on.
    static func checkpointsTable(_ schema: String) -> String {
        """
        CREATE TABLE \(schema).checkpoints (
            list text NOT NULL,
            seq bigint NOT NULL CHECK (seq >= 1),
            crc bigint NOT NULL CHECK (crc BETWEEN 0 AND 4294967295),
            image bytea NOT NULL,
            created_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (list, seq))
        """
    }

    /// The checkpoints' history tree frontiers (version 6; docs/POSTGRES.md,
    /// "Checkpoints"): the frontier after the checkpoint's record, as its
    /// writer hashed it (32-byte hashes, one per set bit of the seq, largest
    /// subtree first; NULL for a checkpoint written without one). A synced
    /// device checks each against the records it pulled.
    static func checkpointFrontierColumn(_ schema: String) -> String {
        "ALTER TABLE \(schema).checkpoints ADD COLUMN IF NOT EXISTS frontier bytea"
    }

    /// The checkpoints' chains (version 8; docs/POSTGRES.md, "Checkpoints"):
    /// `delta_on` is the seq of the checkpoint whose list this row's image
    /// changes (a storage delta, docs/SNAPSHOTS.md), always an earlier one;
    /// NULL for a full image (every row written before version 8).
    static func checkpointDeltaColumn(_ schema: String) -> String {
        "ALTER TABLE \(schema).checkpoints ADD COLUMN IF NOT EXISTS delta_on bigint CHECK (delta_on >= 1 AND delta_on < seq)"
    }

    /// The batch ids of the rows a cut removed (version 7; docs/POSTGRES.md,
    /// "Archiving a list"): the cut's transaction copies each cut row's batch
    /// id here before it deletes the rows, so a device whose push was left
    /// open before the cut can still find out whether it committed
    /// (docs/SYNC.md, "Exactly once"). One row per append that carried a
    /// batch id; never read but by seq.
    static func cutBatchesTable(_ schema: String) -> String {
        """
        CREATE TABLE IF NOT EXISTS \(schema).cut_batches (
            list text NOT NULL,
            seq bigint NOT NULL CHECK (seq >= 1),
            batch_id uuid NOT NULL,
            PRIMARY KEY (list, seq))
        """
    }

    /// The head row's base columns (version 4; docs/POSTGRES.md, "Archiving a
    /// list"): the seq of the last record cut off the list (0: none), that
    /// record's chained checksum (the first row left continues it), and the
    /// base block (docs/FORMAT.md, "Base block": the list and the history
    /// tree's frontier there, what was cut and where it went).
    static let baseColumns = [
        "base_seq bigint NOT NULL DEFAULT 0 CHECK (base_seq >= 0)",
        "base_crc bigint NOT NULL DEFAULT 0 CHECK (base_crc BETWEEN 0 AND 4294967295)",
        "base bytea"
    ]

    /// The head rows' table keeps 90% of each page free, so the updates of a
    /// list's head row stay on its page (HOT) and are pruned while the page is
    /// still nearly empty: an append reads few dead versions of its head row.
    static let listsFillFactor = 10

    /// The records' one envelope index (version 3): a hash index on the label
    /// id, for the records of one label. A hash index puts each entry in its
    /// bucket without a search among keys, where a B-tree over random UUIDs
    /// made each record's insert touch a page of its own.
    static func labelIndex(_ schema: String) -> String {
        "CREATE INDEX records_by_label ON \(schema).records USING hash (label_id) WHERE label_id IS NOT NULL"
    }

    /// The index of the records that name no label (reorders; rejections of
    /// no label), by list and seq (version 3): `trace --label` finds a list's
    /// reorders through it without reading its other records. It holds an
    /// entry for those records only, so it costs labelled appends nothing.
    /// `labelreplay upgrade` adds it to a version 3 schema made without it.
    static func unlabelledIndex(_ schema: String) -> String {
        "CREATE INDEX IF NOT EXISTS records_unlabelled ON \(schema).records (list, seq) WHERE label_id IS NULL"
    }

    /// The tables every version has, with their columns as version 1 defines
    /// them, to recognize a foreign table of the same name (later versions add
    /// columns: ``addedColumns``).
    static let columns: [String: Set<String>] = [
        "schema_info": ["singleton", "version", "created_at"],
        "lists": ["list", "log_id", "last_seq", "created_at"],
        "records": ["list", "seq", "time_ms", "kind", "label_id", "actor", "payload"]
    ]

    /// The batches table of versions 1 and 2 (one row per append; version 3
    /// keeps the batch id on the append's first record instead).
    static let batchesColumns: Set<String> = ["list", "batch_id", "first_seq", "count"]

    /// The columns each version adds: 2 the records' chained checksums and the
    /// head row's chain value, 3 the batch id on an append's first record and
    /// the checkpoints table, 4 the base of a list whose first records were cut off, 6 the
    /// checkpoints' history tree frontiers, 7 the batch ids of cut rows, 8 the
    /// checkpoints' chains.
    static let addedColumns: [Int64: [String: Set<String>]] = [
        2: ["lists": ["last_crc"], "records": ["crc"]],
        3: ["records": ["batch_id"], "checkpoints": ["list", "seq", "crc", "image", "created_at"]],
        4: ["lists": ["base_seq", "base_crc", "base"]],
        6: ["checkpoints": ["frontier"]],
        7: ["cut_batches": ["list", "seq", "batch_id"]],
        8: ["checkpoints": ["delta_on"]]
    ]

    /// Every table name any version has: version 1's, `batches` (versions 1
    /// and 2), and those later versions add — what marks a schema as a label
    /// store's, at whatever version.
    static let tableNames: Set<String> = Set(columns.keys).union(["batches"]).union(addedColumns.values.flatMap(\.keys))

    /// What a database holds of the schema.
    enum State: Equatable {
        /// No schema and none of its tables.
        case missing
        /// The schema at `version` (this build's, or an older one it reads), every table with its columns.
        case present(version: Int64)
    }

    /// Checks what `connection`'s database holds of the schema.
    ///
    /// - Throws: `unsupportedVersion` for a newer version; `notALog` when the
    ///   schema holds tables of these names with other columns, or some of them
    ///   without `schema_info`; the connection's failures as ``PostgresFailure``
    ///   wrapped by the caller.
    func inspect(_ connection: PostgresConnection, describe location: String) throws(PostgresStepFailure) -> State {
        let found: PostgresResult
        do {
            // The catalog itself: information_schema.columns takes ten times as long, and every open runs this.
            found = try connection.execute(
                """
                SELECT c.relname::text, a.attname::text FROM pg_catalog.pg_attribute a
                JOIN pg_catalog.pg_class c ON c.oid = a.attrelid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'f', 'm') AND a.attnum > 0 AND NOT a.attisdropped
                """,
                [.text(name)])
        } catch {
            throw .server(error)
        }
        var tables: [String: Set<String>] = [:]
        for row in 0..<found.rowCount {
            guard let table = found.text(row, 0), let column = found.text(row, 1) else { continue }
            tables[table, default: []].insert(column)
        }
        let ours = tables.filter { Self.tableNames.contains($0.key) }
        if ours.isEmpty { return .missing }
        for (table, expected) in Self.columns.sorted(by: { $0.key < $1.key }) {
            guard let columns = tables[table] else {
                throw .log(
                    EventLogError(
                        .notALog,
                        "\(location): the schema '\(name)' is not a label store's: it has \(ours.keys.sorted().joined(separator: ", ")) but no table '\(table)'"
                    ))
            }
            let missing = expected.subtracting(columns)
            if !missing.isEmpty {
                throw .log(
                    EventLogError(
                        .notALog,
                        "\(location): the table '\(name).\(table)' is not a label store's: it has no column \(missing.sorted().joined(separator: ", "))"
                    ))
            }
        }
        let version: Int64
        do {
            let result = try connection.execute("SELECT version FROM \(identifier).schema_info")
            guard result.rowCount == 1, let value = result.integer(0, 0) else {
                throw PostgresStepFailure.log(
                    EventLogError(.notALog, "\(location): '\(name).schema_info' holds \(result.rowCount) rows, not one version"))
            }
            version = value
        } catch let error as PostgresStepFailure {
            throw error
        } catch let error as PostgresFailure {
            throw .server(error)
        } catch {
            fatalError("unreachable: \(error)")
        }
        if version > Self.version {
            throw .log(
                EventLogError(
                    .unsupportedVersion,
                    "\(location): the schema '\(name)' is at version \(version); this build knows versions up to \(Self.version) (upgrade the library)"
                ))
        }
        if version < 1 {
            throw .log(EventLogError(.notALog, "\(location): '\(name).schema_info' holds version \(version), which no build wrote"))
        }
        var expected: [String: Set<String>] = version < 3 ? ["batches": Self.batchesColumns] : [:]
        for (added, tablesAdded) in Self.addedColumns where added <= version {
            for (table, columns) in tablesAdded { expected[table, default: []].formUnion(columns) }
        }
        for (table, columns) in expected.sorted(by: { $0.key < $1.key }) {
            let missing = columns.subtracting(tables[table] ?? [])
            if !missing.isEmpty {
                throw .log(
                    EventLogError(
                        .notALog,
                        tables[table] == nil
                            ? "\(location): the schema '\(name)' at version \(version) has no table '\(table)'"
                            : "\(location): the table '\(name).\(table)' of a version \(version) schema has no column \(missing.sorted().joined(separator: ", "))"
                    ))
            }
        }
        return .present(version: version)
    }
}

/// A step of talking to the server failed: either the server or the
/// connection (``PostgresFailure``, mapped by the log to an error naming the
/// location), or a check of what the server holds (already an `EventLogError`).
enum PostgresStepFailure: Error {
    case server(PostgresFailure)
    case log(EventLogError)
}
#endif
