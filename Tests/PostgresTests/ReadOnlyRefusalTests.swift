#if Postgres
import EventLog
import Foundation
import LabelStorePostgres
import LabelStoreTestSupport
import Synchronization
import Testing

/// A write refused as read-only (SQLSTATE 25006, as a standby or a fenced
/// primary answers, and as every server before version 14 does without
/// saying beforehand that it is read-only) is "reconnect elsewhere": nothing
/// of it took effect, so it is sent again on a new connection within the
/// reconnect window, never lost or doubled (issue 29, item 4). Here a trigger
/// on a schema of the test's own refuses the head row's update with that
/// SQLSTATE while a row says so.
@Suite(.serialized) struct ReadOnlyRefusalTests {
    let server = PostgresTestServer.shared

    /// A log on a fresh schema whose head row updates are refused with 25006 while `schema.refuse` has a row.
    func refusingLog(reconnect: Duration) throws -> (PostgresEventLog, String) {
        let schema = "ro_\(UUID().uuidString.prefix(8).lowercased())"
        let location = server.location(schema: schema)
        let log = try server.open(location, reconnect: reconnect)
        try server.psql(
            """
            CREATE TABLE \(schema).refuse (why text);
            CREATE FUNCTION \(schema).refuse_writes() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF EXISTS (SELECT 1 FROM \(schema).refuse) THEN
                    RAISE EXCEPTION 'cannot execute UPDATE in a read-only transaction' USING ERRCODE = '25006';
                END IF;
                RETURN NEW;
            END $$;
            CREATE TRIGGER refuse BEFORE UPDATE ON \(schema).lists FOR EACH ROW EXECUTE FUNCTION \(schema).refuse_writes();
            """)
        return (log, schema)
    }

    func entry(_ n: Int) -> LogEntry { LogEntry(.added(id: testID(n), title: "read-only \(n)", isEnabled: true, index: 0)) }

    @Test func aWriteRefusedAsReadOnlyIsSentAgainOnANewConnectionAndLandsOnce() throws {
        let (log, schema) = try refusingLog(reconnect: .seconds(30))
        defer { log.close() }
        let first = try log.append([entry(1)])
        try server.psql("INSERT INTO \(schema).refuse VALUES ('fenced')")
        let outcome = Mutex<Result<[EventRecord], EventLogError>?>(nil)
        let done = DispatchGroup()
        done.enter()
        Thread {
            defer { done.leave() }
            let result = Result { () throws(EventLogError) in try log.append([entry(2)], expectedLastSeq: 1) }
            outcome.withLock { $0 = result }
        }.start()
        let deadline = ContinuousClock.now.advanced(by: .seconds(10))
        while log.statistics.readOnlyRefusals.load(ordering: .relaxed) < 2, ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
        #expect(log.statistics.readOnlyRefusals.load(ordering: .relaxed) >= 2, "refused, and sent again on a new connection")
        #expect(outcome.withLock { $0 } == nil, "not answered while every server refuses writes")
        try server.psql("DELETE FROM \(schema).refuse")
        done.wait()
        let second = try #require(try outcome.withLock { $0 }?.get())
        #expect(second.map(\.seq) == [2])
        let reader = try server.open(log.location, create: false)
        defer { reader.close() }
        #expect(try reader.read(from: 1, maxCount: 10) == first + second, "once, unchanged")
    }

    @Test func aWriteRefusedAsReadOnlyForTheWholeWindowFailsAsReadOnlyHavingWrittenNothing() throws {
        let (log, schema) = try refusingLog(reconnect: .milliseconds(500))
        defer { log.close() }
        try log.append([entry(1)])
        try server.psql("INSERT INTO \(schema).refuse VALUES ('fenced')")
        #expect {
            try log.append([entry(2)], expectedLastSeq: 1)
        } throws: { error in
            guard let error = error as? EventLogError else { return false }
            return error.code == .readOnlyServer && error.message.contains("no server that accepts writes")
                && error.message.contains("SQLSTATE 25006")
        }
        try server.psql("DELETE FROM \(schema).refuse")
        #expect(try log.refreshLastSeq() == 1, "nothing was written")
    }
}
#endif
#if Postgres
import LabelProjection

/// A server that accepts no writes is `readOnlyServer` (kind `readOnly`, not
/// `unavailable`, which apps retry), named as what it is: at once when waiting
/// cannot help, after the reconnect window when a failover could (issue 45, item 3).
@Suite(.serialized) struct ReadOnlyServerTests {
    @Test func aSessionTheConnectionStringMakesReadOnlyIsRefusedAtOnceAsReadOnly() throws {
        let server = PostgresTestServer.shared
        let location = server.location()
        try server.open(location).close()
        let readOnly = try PostgresLocation(
            connection: server.conninfo + " options='-c default_transaction_read_only=on'", list: location.list)
        let log = try PostgresEventLog(location: readOnly, options: .init(reconnectTimeout: .seconds(30)))
        let store = try LabelStore(storage: log)
        defer { store.close() }
        let start = ContinuousClock.now
        let refused = #expect(throws: StoreError.self) { try store.add("never") }
        #expect(ContinuousClock.now - start < .seconds(10), "at once, not after the 30 s window")
        #expect(refused?.kind == .readOnly, "\(String(describing: refused))")
        #expect(refused?.message.contains("no server that accepts writes was found") == true, "\(String(describing: refused))")
        #expect(refused?.message.contains("the connection string sets default_transaction_read_only") == true)
        #expect(try log.refreshLastSeq() == 0, "nothing was written")
        // The CLI says the same, at once, exit 1.
        let url = CLIOverServerTests.url(list: location.list) + "&options=-c%20default_transaction_read_only%3Don"
        let cliStart = ContinuousClock.now
        let cli = try runCommand(try CLIOverServerTests.executable(), ["add", url, "never"])
        #expect(ContinuousClock.now - cliStart < .seconds(10))
        #expect(cli.status == 1 && cli.errors.contains("no server that accepts writes was found"), "\(cli)")
        #expect(!cli.errors.contains("waiting for"), "\(cli)")
    }

    @Test func aFencedPrimaryIsWaitedForWithinTheWindowThenReportedAsReadOnly() throws {
        let server = try PostgresTestServer.startPrivate()
        defer { server.stop() }
        let location = server.location()
        try server.open(location).close()
        try server.psql("ALTER SYSTEM SET default_transaction_read_only = on")
        try server.psql("SELECT pg_reload_conf()")
        let log = try PostgresEventLog(location: location, options: .init(reconnectTimeout: .seconds(1)))
        defer { log.close() }
        let start = ContinuousClock.now
        let refused = #expect(throws: EventLogError.self) {
            try log.append([LogEntry(.added(id: testID(1), title: "fenced", isEnabled: true, index: 0))])
        }
        #expect(ContinuousClock.now - start >= .seconds(1), "a fenced primary may be unfenced by a failover: waited")
        #expect(refused?.code == .readOnlyServer && refused?.message.contains("fenced") == true, "\(String(describing: refused))")
        try server.psql("ALTER SYSTEM RESET default_transaction_read_only")
        try server.psql("SELECT pg_reload_conf()")
        #expect(try log.refreshLastSeq() == 0, "nothing was written")
    }
}
#endif
