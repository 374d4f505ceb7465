#if Postgres
import EventLog
import Foundation
import LabelStorePostgres
import LabelStoreTestSupport
import Testing

/// The server log itself: opening, appending, reading, and what it refuses.
@Suite struct PostgresLogTests {
    let server = PostgresTestServer.shared

    func entry(_ n: Int, title: String? = nil) -> LogEntry {
        LogEntry(.added(id: testID(n), title: title ?? "label \(n)", isEnabled: true, index: 0), actor: "tester")
    }

    @Test func anAppendIsReadBackAsTheSameRecordsWithGaplessSeqs() throws {
        let log = try server.open(server.location())
        defer { log.close() }
        #expect(log.lastSeq == 0)
        let first = try log.append([entry(1), entry(2)], expectedLastSeq: 0)
        let second = try log.append([entry(3)])
        #expect(first.map(\.seq) == [1, 2])
        #expect(second.map(\.seq) == [3])
        #expect(try log.read(from: 1, maxCount: 10) == first + second)
        #expect(try log.read(from: 2, maxCount: 1) == [first[1]])
        #expect(try log.read(from: 4, maxCount: 10).isEmpty)
        #expect(try log.refreshLastSeq() == 3)
    }

    @Test func aSecondConnectionSeesTheListAndItsLogID() throws {
        let location = server.location()
        let one = try server.open(location)
        defer { one.close() }
        let records = try one.append([entry(1)])
        let two = try server.open(location, create: false)
        defer { two.close() }
        #expect(two.logID == one.logID)
        #expect(two.lastSeq == 1)
        #expect(try two.read(from: 1, maxCount: 5) == records)
    }

    @Test func anAppendWithAStaleExpectationAppendsNothing() throws {
        let location = server.location()
        let one = try server.open(location)
        let two = try server.open(location)
        defer {
            one.close()
            two.close()
        }
        try one.append([entry(1)], expectedLastSeq: 0)
        let error = #expect(throws: EventLogError.self) { try two.append([entry(2)], expectedLastSeq: 0) }
        #expect(error?.code == .seqConflict)
        #expect(error?.lastGoodSeq == 1)
        #expect(error?.message.contains(location.list) == true)
        #expect(try two.refreshLastSeq() == 1)
        // Without an expectation, an append goes after whatever is there.
        let appended = try two.append([entry(3)])
        #expect(appended.map(\.seq) == [2])
        #expect(try one.read(from: 1, maxCount: 10).map(\.seq) == [1, 2])
    }

    @Test func anEntryBeyondALimitFailsTheWholeAppend() throws {
        let log = try server.open(server.location())
        defer { log.close() }
        let tooLong = String(repeating: "x", count: LogLimits.maxTitleBytes + 1)
        let error = #expect(throws: EventLogError.self) { try log.append([entry(1), entry(2, title: tooLong)]) }
        #expect(error?.code == .invalidEvent)
        #expect(error?.message.contains("entry 1") == true)
        #expect(try log.refreshLastSeq() == 0)
        #expect(try log.read(from: 1, maxCount: 10).isEmpty)
    }

    @Test func anEmptyAppendChangesNothingAndStillChecksItsExpectation() throws {
        let log = try server.open(server.location())
        defer { log.close() }
        try log.append([entry(1)])
        #expect(try log.append([], expectedLastSeq: 1).isEmpty)
        #expect(throws: EventLogError.self) { try log.append([], expectedLastSeq: 0) }
        try log.append([entry(2)], expectedLastSeq: 1)
        #expect(try log.refreshLastSeq() == 2)
    }

    @Test func openingWithoutCreateNamesTheMissingSchemaOrList() throws {
        let schema = "t_missing_\(UInt32.random(in: 0...UInt32.max))"
        let noSchema = #expect(throws: EventLogError.self) {
            try server.open(server.location(schema: schema), create: false)
        }
        #expect(noSchema?.code == .schemaMissing)
        #expect(noSchema?.message.contains(schema) == true)
        let existing = try server.open(server.location())
        existing.close()
        let location = server.location(list: "never-created")
        let noList = #expect(throws: EventLogError.self) { try server.open(location, create: false) }
        #expect(noList?.code == .listNotFound)
        #expect(noList?.message.contains("never-created") == true)
    }

    @Test func aNewerSchemaVersionIsRefused() throws {
        let schema = "t_newer_\(UInt32.random(in: 0...UInt32.max))"
        let log = try server.open(server.location(schema: schema))
        log.close()
        try server.psql("UPDATE \(schema).schema_info SET version = 99")
        let error = #expect(throws: EventLogError.self) { try server.open(server.location(schema: schema), create: false) }
        #expect(error?.code == .unsupportedVersion)
        #expect(error?.message.contains("version 99") == true)
    }

    @Test func aForeignTableOfTheSameNameIsRefusedAndLeftAlone() throws {
        let schema = "t_foreign_\(UInt32.random(in: 0...UInt32.max))"
        try server.psql(
            "CREATE SCHEMA \(schema); CREATE TABLE \(schema).records (id serial PRIMARY KEY, body text); INSERT INTO \(schema).records (body) VALUES ('theirs')"
        )
        let error = #expect(throws: EventLogError.self) { try server.open(server.location(schema: schema), create: true) }
        #expect(error?.code == .notALog)
        #expect(error?.message.contains("records") == true)
        #expect(try server.psql("SELECT body FROM \(schema).records") == "theirs")
    }

    @Test func aDamagedPayloadIsAnErrorNamingListAndSeq() throws {
        let location = server.location()
        let log = try server.open(location)
        defer { log.close() }
        try log.append([entry(1), entry(2), entry(3)])
        try server.psql(
            "UPDATE labelstore.records SET payload = substring(payload from 1 for 5) WHERE list = '\(location.list)' AND seq = 2")
        let error = #expect(throws: EventLogError.self) { try log.read(from: 1, maxCount: 10) }
        #expect(error?.code == .corruptRecord)
        #expect(error?.message.contains("seq 2") == true)
        #expect(error?.message.contains(location.list) == true)
        #expect(error?.lastGoodSeq == 1)
    }

    @Test func aRowWhosePayloadHoldsAnotherSeqOrAMissingSeqIsNeverSkipped() throws {
        let location = server.location()
        let log = try server.open(location)
        defer { log.close() }
        try log.append([entry(1), entry(2), entry(3), entry(4)])
        // Swap the payloads of seqs 2 and 3.
        try server.psql(
            """
            UPDATE labelstore.records r SET payload = o.payload FROM labelstore.records o
            WHERE r.list = '\(location.list)' AND o.list = r.list AND ((r.seq = 2 AND o.seq = 3) OR (r.seq = 3 AND o.seq = 2))
            """)
        let swapped = #expect(throws: EventLogError.self) { try log.read(from: 1, maxCount: 10) }
        #expect(swapped?.code == .corruptRecord)
        #expect(swapped?.message.contains("seq 2") == true)
        try server.psql("DELETE FROM labelstore.records WHERE list = '\(location.list)' AND seq = 2")
        let gap = #expect(throws: EventLogError.self) { try log.read(from: 1, maxCount: 10) }
        #expect(gap?.code == .seqGap)
        #expect(gap?.message.contains("seq 2 is missing") == true)
    }

    @Test func anUnreachableServerAndARefusedLoginAreClearErrorsWithoutThePassword() throws {
        let nowhere = try PostgresLocation(connection: "host=/tmp/no-such-server-dir password=hunter2 connect_timeout=2", list: "x")
        let unreachable = #expect(throws: EventLogError.self) { try PostgresEventLog(location: nowhere) }
        #expect(unreachable?.code == .connectionFailed)
        #expect(unreachable?.description.contains("hunter2") == false)
        #expect(unreachable?.description.contains("password=***") == true)

        let stranger = try PostgresLocation(connection: server.conninfo + " user=nobody_here password=hunter2", list: "x")
        let refused = #expect(throws: EventLogError.self) { try PostgresEventLog(location: stranger) }
        #expect(refused?.code == .authenticationFailed)
        #expect(refused?.description.contains("hunter2") == false)
    }

    @Test func aURLNamesItsListAndHidesItsPassword() throws {
        let location = try PostgresLocation(url: "postgres://app:s3cret@db.example.com:5433/labels?list=inbox&sslmode=require")
        #expect(location.list == "inbox")
        #expect(location.schema == "labelstore")
        #expect(location.connection == "postgres://app:s3cret@db.example.com:5433/labels?sslmode=require")
        #expect(location.description == "postgres://app@db.example.com:5433/labels?sslmode=require&list=inbox")
        let noList = #expect(throws: EventLogError.self) { try PostgresLocation(url: "postgresql://app:s3cret@host/db") }
        #expect(noList?.code == .invalidLocation)
        #expect(noList?.message.contains("s3cret") == false)
        #expect(throws: EventLogError.self) { try PostgresLocation(url: "postgres://host/db?list=x&schema=") }
    }
}
#endif
