#if Postgres
import EventLog
import Foundation
import LabelProjection
import LabelStorePostgres
import LabelStoreTestSupport
import Testing

/// Schema version 1 lists (no checksums) are read with a warning and not
/// written; `labelreplay upgrade` migrates them in place, in one transaction
/// that a damaged list leaves untouched (issue 26, item 3).
@Suite(.serialized) struct SchemaUpgradeTests {
    let server = PostgresTestServer.shared

    /// A schema of its own holding lists `a` (`count` records) and `b` (2), turned into what a
    /// version 1 build made (its columns and version); returns the schema and the checksums version 2 gave.
    func versionOneSchema(count: Int = 5) throws -> (schema: String, crcs: String) {
        let (schema, crcs) = try versionTwoSchema(count: count)
        try server.psql(
            """
            ALTER TABLE \(schema).records DROP COLUMN crc;
            ALTER TABLE \(schema).lists DROP COLUMN last_crc;
            UPDATE \(schema).schema_info SET version = 1
            """)
        return (schema, crcs)
    }

    /// A schema of its own at this build's version holding lists `a` (`count` records) and `b`
    /// (2); returns the schema and the records' checksums.
    func currentSchema(count: Int) throws -> (schema: String, crcs: String) {
        let schema = "up_\(UUID().uuidString.prefix(8).lowercased())"
        for (list, n) in [("a", count), ("b", 2)] {
            let log = try server.open(server.location(list: list, schema: schema))
            for i in 1...n { try log.append([LogEntry(.added(id: testID(i), title: "\(list) \(i)", isEnabled: true, index: 0))]) }
            log.close()
        }
        let crcs = try server.psql("SELECT string_agg(list || seq || ':' || crc, ',' ORDER BY list, seq) FROM \(schema).records")
        return (schema, crcs)
    }

    /// A schema of its own holding lists `a` (`count` records) and `b` (2), turned into what a
    /// version 2 build made (a `batches` table, B-tree envelope indexes, no checkpoints table); returns the schema and the records' checksums.
    func versionTwoSchema(count: Int = 5) throws -> (schema: String, crcs: String) {
        let (schema, crcs) = try versionFourSchema(count: count)
        try server.psql(
            """
            CREATE TABLE \(schema).batches (
                list text NOT NULL, batch_id uuid NOT NULL, first_seq bigint NOT NULL, count integer NOT NULL CHECK (count >= 1),
                PRIMARY KEY (list, batch_id));
            INSERT INTO \(schema).batches (list, batch_id, first_seq, count)
                SELECT r.list, r.batch_id, r.seq,
                    coalesce(lead(r.seq) OVER (PARTITION BY r.list ORDER BY r.seq), l.last_seq + 1) - r.seq
                FROM \(schema).records r JOIN \(schema).lists l USING (list) WHERE r.batch_id IS NOT NULL;
            ALTER TABLE \(schema).records DROP COLUMN batch_id;
            CREATE INDEX records_by_actor ON \(schema).records (list, actor, seq) WHERE actor IS NOT NULL;
            DROP INDEX \(schema).records_by_label;
            DROP INDEX \(schema).records_unlabelled;
            CREATE INDEX records_by_label ON \(schema).records (list, label_id, seq) WHERE label_id IS NOT NULL;
            ALTER TABLE \(schema).lists RESET (fillfactor);
            DROP TABLE \(schema).checkpoints;
            ALTER TABLE \(schema).lists DROP COLUMN base_seq, DROP COLUMN base_crc, DROP COLUMN base;
            UPDATE \(schema).schema_info SET version = 2
            """)
        return (schema, crcs)
    }

    /// A schema of its own holding lists `a` (`count` records) and `b` (2), turned into what a
    /// version 7 build made (checkpoints without chains); returns the schema and the records' checksums.
    func versionSevenSchema(count: Int = 5) throws -> (schema: String, crcs: String) {
        let (schema, crcs) = try currentSchema(count: count)
        try server.psql(
            """
            ALTER TABLE \(schema).checkpoints DROP COLUMN delta_on;
            UPDATE \(schema).schema_info SET version = 7
            """)
        return (schema, crcs)
    }

    /// A schema of its own holding lists `a` (`count` records) and `b` (2), turned into what a
    /// version 6 build made (no table of cut rows' batch ids); returns the schema and the records' checksums.
    func versionSixSchema(count: Int = 5) throws -> (schema: String, crcs: String) {
        let (schema, crcs) = try versionSevenSchema(count: count)
        try server.psql(
            """
            DROP TABLE \(schema).cut_batches;
            UPDATE \(schema).schema_info SET version = 6
            """)
        return (schema, crcs)
    }

    /// A schema of its own holding lists `a` (`count` records) and `b` (2), turned into what a
    /// version 5 build made (checkpoints without a frontier column); returns the schema and the records' checksums.
    func versionFiveSchema(count: Int = 5) throws -> (schema: String, crcs: String) {
        let (schema, crcs) = try versionSixSchema(count: count)
        try server.psql(
            """
            ALTER TABLE \(schema).checkpoints DROP COLUMN frontier;
            UPDATE \(schema).schema_info SET version = 5
            """)
        return (schema, crcs)
    }

    /// A schema of its own holding lists `a` (`count` records) and `b` (2), turned into what a
    /// version 4 build made (each head row at its list's end); returns the schema and the records' checksums.
    func versionFourSchema(count: Int = 5) throws -> (schema: String, crcs: String) {
        let (schema, crcs) = try versionFiveSchema(count: count)
        try server.psql(
            """
            UPDATE \(schema).lists l SET last_seq = r.seq, last_crc = r.crc
            FROM (SELECT DISTINCT ON (list) list, seq, crc FROM \(schema).records ORDER BY list, seq DESC) r
            WHERE r.list = l.list;
            UPDATE \(schema).schema_info SET version = 4
            """)
        return (schema, crcs)
    }

    /// A schema of its own holding lists `a` (`count` records) and `b` (2), turned into what a
    /// version 3 build made (no base columns); returns the schema and the records' checksums.
    func versionThreeSchema(count: Int = 5) throws -> (schema: String, crcs: String) {
        let (schema, crcs) = try versionFourSchema(count: count)
        try server.psql(
            """
            ALTER TABLE \(schema).lists DROP COLUMN base_seq, DROP COLUMN base_crc, DROP COLUMN base;
            UPDATE \(schema).schema_info SET version = 3
            """)
        return (schema, crcs)
    }

    @Test func aVersionThreeListIsReadOnlyAndUpgradeGivesItsListsBaseColumns() throws {
        let (schema, crcs) = try versionThreeSchema()
        let log = try server.open(server.location(list: "a", schema: schema), create: false)
        #expect(log.isReadOnly && log.schemaVersion == 3 && log.base == nil)
        #expect(try log.read(from: 1, maxCount: 10).count == 5)
        #expect(throws: EventLogError.self, "a version 3 list is not cut") { try log.cutHistory(through: 2, archiveTo: nil) }
        log.close()
        let upgraded = try CLIOverServerTests.cli(["upgrade", url(schema), "--json"])
        #expect(
            upgraded.status == 0 && upgraded.output.contains(#""fromVersion":3"#) && upgraded.output.contains(#""toVersion":8"#),
            "\(upgraded)")
        #expect(try server.psql("SELECT string_agg(list || seq || ':' || crc, ',' ORDER BY list, seq) FROM \(schema).records") == crcs)
        #expect(
            try server.psql("SELECT string_agg(list || ':' || base_seq || ':' || (base IS NULL), ',' ORDER BY list) FROM \(schema).lists")
                == "a:0:true,b:0:true")
        let writable = try server.open(server.location(list: "a", schema: schema), create: false)
        defer { writable.close() }
        #expect(!writable.isReadOnly)
        try writable.cutHistory(through: 2, archiveTo: nil)
        #expect(try writable.read(from: 1, maxCount: 10).map(\.seq) == [3, 4, 5])
    }

    @Test func aVersionSixListIsReadOnlyAndUpgradeLetsACutKeepTheBatchIDsOfTheRowsItRemoves() throws {
        let (schema, crcs) = try versionSixSchema()
        do {
            let log = try server.open(server.location(list: "a", schema: schema), create: false)
            defer { log.close() }
            #expect(log.isReadOnly && log.schemaVersion == 6)
            #expect(try log.read(from: 1, maxCount: 10).count == 5)
            #expect(try log.batchID(atSeq: 1) != nil, "a version 6 schema's batch ids are read without the table")
            #expect(throws: EventLogError.self, "a version 6 list is not cut") { try log.cutHistory(through: 2, archiveTo: nil) }
        }
        let upgraded = try CLIOverServerTests.cli(["upgrade", url(schema), "--json"])
        #expect(
            upgraded.status == 0 && upgraded.output.contains(#""fromVersion":6"#) && upgraded.output.contains(#""toVersion":8"#),
            "\(upgraded)")
        #expect(try server.psql("SELECT string_agg(list || seq || ':' || crc, ',' ORDER BY list, seq) FROM \(schema).records") == crcs)
        let writable = try server.open(server.location(list: "a", schema: schema), create: false)
        defer { writable.close() }
        #expect(!writable.isReadOnly && writable.schemaVersion == 8)
        let batch = UUID()
        _ = try writable.append([LogEntry(.toggled(id: testID(1), isEnabled: false))], expectedLastSeq: 5, batchID: batch)
        let ids = "SELECT string_agg(seq || ':' || batch_id, ',' ORDER BY seq) FROM \(schema)"
        let before = try server.psql("\(ids).records WHERE list = 'a' AND batch_id IS NOT NULL")
        try writable.cutHistory(through: 6, archiveTo: nil)
        #expect(try writable.batchID(atSeq: 6) == batch, "the cut row's batch id is kept")
        #expect(try server.psql("\(ids).cut_batches WHERE list = 'a'") == before, "every cut row's batch id, and only the cut list's")
        #expect(try server.psql("SELECT count(*) FROM \(schema).records WHERE list = 'a'") == "0")
    }

    /// A version 7 list's checkpoints are full images; a build of version 8
    /// reads the list but not them (it is read only) until `upgrade`, after
    /// which a store opens from them and writes deltas on them.
    @Test func aVersionSevenListIsReadOnlyAndUpgradeLetsItsCheckpointsStartChains() throws {
        let schema = "up_\(UUID().uuidString.prefix(8).lowercased())"
        let location = server.location(list: "a", schema: schema)
        let options = PostgresEventLog.Options(createIfMissing: true, checkpointInterval: 16, checkpointFullEvery: 1)
        do {
            let log = try PostgresEventLog(location: location, options: options)
            defer { log.close() }
            try log.append((0..<100).map { LogEntry(.added(id: testID($0 + 1), title: "label \($0)", isEnabled: true, index: $0)) })
            let store = try LabelStore(storage: log)
            for i in 0..<40 { try store.toggle(testID(i + 1)) }
            store.waitForHistoryFiles()
        }
        try server.psql(
            """
            ALTER TABLE \(schema).checkpoints DROP COLUMN delta_on;
            UPDATE \(schema).schema_info SET version = 7
            """)
        // Two full images, as a version 7 build writes them (at 112 and 128, or just after when the first was still being written).
        let fullSeqs = try server.psql("SELECT string_agg(seq::text, ',' ORDER BY seq) FROM \(schema).checkpoints").split(separator: ",")
            .compactMap { UInt64($0) }
        try #require(fullSeqs.count == 2, "\(fullSeqs)")
        let newestFull = fullSeqs[1]
        do {
            let log = try server.open(location, create: false)
            defer { log.close() }
            #expect(log.isReadOnly && log.schemaVersion == 7 && log.checkpointInterval == 0)
            #expect(try log.checkpoint(atOrBefore: 140).checkpoint == nil, "a read-only list's checkpoints are not read")
            #expect(try LabelStore(storage: log).snapshot.count == 100)
        }
        let upgraded = try CLIOverServerTests.cli(["upgrade", url(schema), "--json"])
        #expect(
            upgraded.status == 0 && upgraded.output.contains(#""fromVersion":7"#) && upgraded.output.contains(#""toVersion":8"#),
            "\(upgraded)")
        let log = try PostgresEventLog(
            location: location, options: .init(checkpointInterval: 16, checkpointFullEvery: 4))
        defer { log.close() }
        #expect(!log.isReadOnly && log.schemaVersion == 8)
        #expect(try log.checkpoint(atOrBefore: 140).checkpoint?.seq == newestFull, "the old full image is read")
        let store = try LabelStore(storage: log)
        for i in 0..<40 { try store.toggle(testID(i + 41)) }
        store.waitForHistoryFiles()
        let rows = try server.psql(
            "SELECT string_agg(seq || ':' || coalesce(delta_on::text, 'full'), ',' ORDER BY seq) FROM \(schema).checkpoints"
        )
        .split(separator: ",").map { $0.split(separator: ":").map(String.init) }
        let added = rows.filter { UInt64($0[0])! > newestFull }
        try #require(added.count >= 2, "\(rows)")
        #expect(added[0][1] == String(newestFull), "the first delta is on the checkpoint the store opened from: \(rows)")
        #expect(zip(added, added.dropFirst()).allSatisfy { $1[1] == $0[0] }, "the next ones on the one before: \(rows)")
        let last = UInt64(added[added.count - 1][0])!
        let reference = try LabelStore.storageCheckpoint(of: log, atOrBefore: last)
        #expect(reference.list?.lastSeq == last && reference.skipped.isEmpty, "\(reference.skipped)")
        var folded = LabelList()
        try log.forEachRecord(from: 1, through: last) { record in
            try folded.replay(record)
            return true
        }
        #expect(reference.list == folded)
    }

    @Test func aVersionFiveListIsReadOnlyAndUpgradeGivesItsCheckpointsTheirFrontierColumn() throws {
        let (schema, crcs) = try versionFiveSchema()
        do {
            let log = try server.open(server.location(list: "a", schema: schema), create: false)
            defer { log.close() }
            #expect(log.isReadOnly && log.schemaVersion == 5)
            #expect(try log.read(from: 1, maxCount: 10).count == 5)
            #expect(try log.checkpointHeads(in: 1...5).isEmpty)
            #expect(throws: EventLogError.self, "a version 5 list is not written") {
                try log.append([LogEntry(.toggled(id: testID(1), isEnabled: false))])
            }
        }
        let upgraded = try CLIOverServerTests.cli(["upgrade", url(schema), "--json"])
        #expect(
            upgraded.status == 0 && upgraded.output.contains(#""fromVersion":5"#) && upgraded.output.contains(#""toVersion":8"#),
            "\(upgraded)")
        #expect(try server.psql("SELECT string_agg(list || seq || ':' || crc, ',' ORDER BY list, seq) FROM \(schema).records") == crcs)
        #expect(
            try server.psql(
                "SELECT data_type FROM information_schema.columns WHERE table_schema = '\(schema)' AND table_name = 'checkpoints' AND column_name = 'frontier'"
            ) == "bytea")
        let writable = try server.open(server.location(list: "a", schema: schema), create: false)
        defer { writable.close() }
        #expect(!writable.isReadOnly && writable.schemaVersion == 8)
        var tree = HistoryTreeBuilder()
        for record in try writable.read(from: 1, maxCount: 10) { tree.append(payload: try record.storedPayload()) }
        #expect(try writable.storeCheckpoint(seq: 5, image: [1, 2, 3], frontier: tree))
        #expect(try writable.checkpointHeads(in: 1...5).map(\.head) == [tree.head])
    }

    @Test func aVersionFourListIsReadOnlyAndUpgradeLeavesItsHeadRowAsItsCommittedLength() throws {
        let (schema, crcs) = try versionFourSchema()
        let log = try server.open(server.location(list: "a", schema: schema), create: false)
        #expect(log.isReadOnly && log.schemaVersion == 4)
        #expect(try log.read(from: 1, maxCount: 10).count == 5)
        do {
            try log.append([LogEntry(.toggled(id: testID(1), isEnabled: false))])
            Issue.record("a version 4 list was written by a build whose appends no longer move its head row")
        } catch {
            #expect(error.code == .unsupportedVersion && error.message.contains("head row"), "\(error)")
        }
        log.close()
        let upgraded = try CLIOverServerTests.cli(["upgrade", url(schema), "--json"])
        #expect(
            upgraded.status == 0 && upgraded.output.contains(#""fromVersion":4"#) && upgraded.output.contains(#""toVersion":8"#),
            "\(upgraded)")
        #expect(try server.psql("SELECT string_agg(list || seq || ':' || crc, ',' ORDER BY list, seq) FROM \(schema).records") == crcs)
        let writable = try server.open(server.location(list: "a", schema: schema), create: false)
        defer { writable.close() }
        #expect(!writable.isReadOnly && writable.schemaVersion == 8)
        // Seq 6 is no mark: the head row keeps saying 5, and the list ends at its last row.
        try writable.append([LogEntry(.toggled(id: testID(1), isEnabled: false))])
        #expect(try server.psql("SELECT last_seq FROM \(schema).lists WHERE list = 'a'") == "5")
        #expect(try writable.refreshLastSeq() == 6)
        #expect(try writable.read(from: 1, maxCount: 10).map(\.seq) == [1, 2, 3, 4, 5, 6])
        let verified = try CLIOverServerTests.cli(["verify", url(schema)])
        #expect(verified.status == 0, "\(verified)")
    }

    func url(_ schema: String, list: String = "a") -> String { CLIOverServerTests.url(list: list, schema: schema) }

    @Test func aVersionOneListIsReadOnlyWithAWarning() throws {
        let (schema, _) = try versionOneSchema()
        let log = try server.open(server.location(list: "a", schema: schema), create: false)
        defer { log.close() }
        #expect(log.isReadOnly && log.schemaVersion == 1)
        #expect(try log.read(from: 1, maxCount: 10).count == 5)
        do {
            try log.append([LogEntry(.toggled(id: testID(1), isEnabled: false))])
            Issue.record("a version 1 list was written")
        } catch {
            #expect(error.code == .unsupportedVersion && error.message.contains("labelreplay upgrade"), "\(error)")
        }
        let shown = try CLIOverServerTests.cli(["log", url(schema), "--json"])
        #expect(shown.status == 0 && shown.errors.contains("is at version 1") && shown.errors.contains("labelreplay upgrade"), "\(shown)")
        let verified = try CLIOverServerTests.cli(["verify", url(schema)])
        #expect(verified.status == 0 && verified.output.contains("schema version 1: its rows have no checksums"), "\(verified)")
        let written = try CLIOverServerTests.cli(["add", url(schema), "Amber"])
        #expect(written.status == 1 && written.errors.contains("upgrade"), "\(written)")
    }

    @Test func upgradeGivesEveryRowTheChecksumVersionTwoWroteAndTheListIsWritable() throws {
        let (schema, crcs) = try versionOneSchema()
        let upgraded = try CLIOverServerTests.cli(["upgrade", url(schema), "--json"])
        #expect(upgraded.status == 0, "\(upgraded)")
        #expect(
            upgraded.output.contains(#""fromVersion":1"#) && upgraded.output.contains(#""toVersion":8"#)
                && upgraded.output.contains(#""lists":2"#) && upgraded.output.contains(#""records":7"#), "\(upgraded)")
        #expect(try server.psql("SELECT string_agg(list || seq || ':' || crc, ',' ORDER BY list, seq) FROM \(schema).records") == crcs)
        let log = try server.open(server.location(list: "a", schema: schema), create: false)
        defer { log.close() }
        #expect(!log.isReadOnly)
        try log.append([LogEntry(.toggled(id: testID(1), isEnabled: false))])
        #expect(try log.read(from: 1, maxCount: 10).count == 6)
        let again = try CLIOverServerTests.cli(["upgrade", url(schema)])
        #expect(again.status == 0 && again.output.contains("already at version 8; nothing changed"), "\(again)")
    }

    @Test func aVersionTwoListIsReadOnlyAndUpgradeMovesEachBatchIDOntoItsFirstRecord() throws {
        let (schema, crcs) = try versionTwoSchema()
        let batches = try server.psql(
            "SELECT string_agg(list || first_seq || ':' || batch_id, ',' ORDER BY list, first_seq) FROM \(schema).batches")
        let log = try server.open(server.location(list: "a", schema: schema), create: false)
        #expect(log.isReadOnly && log.schemaVersion == 2)
        #expect(try log.read(from: 1, maxCount: 10).count == 5)
        do {
            try log.append([LogEntry(.toggled(id: testID(1), isEnabled: false))])
            Issue.record("a version 2 list was written")
        } catch {
            #expect(error.code == .unsupportedVersion && error.message.contains("labelreplay upgrade"), "\(error)")
        }
        log.close()
        let upgraded = try CLIOverServerTests.cli(["upgrade", url(schema), "--json"])
        #expect(
            upgraded.status == 0 && upgraded.output.contains(#""fromVersion":2"#) && upgraded.output.contains(#""toVersion":8"#),
            "\(upgraded)")
        #expect(
            try server.psql(
                "SELECT string_agg(list || seq || ':' || batch_id, ',' ORDER BY list, seq) FROM \(schema).records WHERE batch_id IS NOT NULL"
            )
                == batches)
        #expect(try server.psql("SELECT string_agg(list || seq || ':' || crc, ',' ORDER BY list, seq) FROM \(schema).records") == crcs)
        #expect(
            try server.psql("SELECT count(*) FROM information_schema.tables WHERE table_schema = '\(schema)' AND table_name = 'batches'")
                == "0")
        #expect(
            try server.psql(
                "SELECT count(*) FROM information_schema.tables WHERE table_schema = '\(schema)' AND table_name = 'checkpoints'") == "1",
            "the upgrade creates the checkpoints table")
        #expect(
            try server.psql(
                "SELECT string_agg(indexname || ' ' || split_part(indexdef, ' USING ', 2), '; ' ORDER BY indexname) FROM pg_indexes WHERE schemaname = '\(schema)' AND tablename = 'records'"
            )
                == "records_by_label hash (label_id) WHERE (label_id IS NOT NULL); records_pkey btree (list, seq); records_unlabelled btree (list, seq) WHERE (label_id IS NULL)"
        )
        let reopened = try server.open(server.location(list: "a", schema: schema), create: false)
        defer { reopened.close() }
        #expect(!reopened.isReadOnly)
        try reopened.append([LogEntry(.toggled(id: testID(1), isEnabled: false))])
        #expect(try reopened.read(from: 1, maxCount: 10).count == 6)
    }

    @Test func aCurrentSchemaWithoutTheUnlabelledIndexGainsItByUpgradeAndReadsReordersEitherWay() throws {
        let schema = "up_\(UUID().uuidString.prefix(8).lowercased())"
        let log = try server.open(server.location(list: "a", schema: schema))
        defer { log.close() }
        for i in 1...4 { try log.append([LogEntry(.added(id: testID(i), title: "a \(i)", isEnabled: true, index: 0))]) }
        try log.append([LogEntry(.reordered(order: [testID(2), testID(1), testID(4), testID(3)]))])
        try log.append([LogEntry(.renamed(id: testID(1), oldTitle: "a 1", newTitle: "one"))])
        try log.append([LogEntry(.reordered(order: [testID(1), testID(2), testID(3), testID(4)]))])
        try server.psql("DROP INDEX \(schema).records_unlabelled")
        #expect(try log.reorderSeqs(after: 0, through: 7) == [5, 7], "read by the list's key without the index")
        let upgraded = try CLIOverServerTests.cli(["upgrade", url(schema), "--json"])
        #expect(upgraded.status == 0 && upgraded.output.contains(#""fromVersion":8"#), "\(upgraded)")
        #expect(
            try server.psql("SELECT count(*) FROM pg_indexes WHERE schemaname = '\(schema)' AND indexname = 'records_unlabelled'")
                == "1")
        #expect(try log.reorderSeqs(after: 0, through: 7) == [5, 7])
        #expect(try log.reorderSeqs(after: 5, through: 6) == [])
    }

    @Test func aDamagedListStopsTheUpgradeNamingItAndNothingChangesUntilItIsRunAgain() throws {
        let (schema, crcs) = try versionOneSchema()
        let saved = try server.psql("SELECT encode(payload, 'hex') FROM \(schema).records WHERE list = 'a' AND seq = 3")
        let row = try server.psql("SELECT time_ms || ',' || kind || ',' || label_id FROM \(schema).records WHERE list = 'a' AND seq = 3")
        try server.psql("DELETE FROM \(schema).records WHERE list = 'a' AND seq = 3")
        let refused = try CLIOverServerTests.cli(["upgrade", url(schema)])
        #expect(
            refused.status == 1 && refused.errors.contains("list 'a': seq 3 is missing") && refused.errors.contains("nothing was upgraded"),
            "\(refused)")
        #expect(try server.psql("SELECT version FROM \(schema).schema_info") == "1")
        #expect(
            try server.psql("SELECT count(*) FROM information_schema.columns WHERE table_schema = '\(schema)' AND column_name = 'crc'")
                == "0")
        // The row put back (from a backup, say), the same command finishes the job.
        let parts = row.split(separator: ",")
        try server.psql(
            "INSERT INTO \(schema).records (list, seq, time_ms, kind, label_id, payload) VALUES ('a', 3, \(parts[0]), \(parts[1]), '\(parts[2])', decode('\(saved)', 'hex'))"
        )
        let upgraded = try CLIOverServerTests.cli(["upgrade", url(schema)])
        #expect(upgraded.status == 0 && upgraded.output.contains("from version 1 to 8"), "\(upgraded)")
        #expect(try server.psql("SELECT string_agg(list || seq || ':' || crc, ',' ORDER BY list, seq) FROM \(schema).records") == crcs)
    }
}
#endif
