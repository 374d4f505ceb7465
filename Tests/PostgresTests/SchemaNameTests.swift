#if Postgres
import EventLog
import Foundation
import LabelStorePostgres
import LabelStoreTestSupport
import Testing

/// A schema's name is quoted wherever SQL names it: reserved words (`user`,
/// `order`) and names that need quotes work like any other.
@Suite struct SchemaNameTests {
    let server = PostgresTestServer.shared

    func entry(_ n: Int) -> LogEntry {
        LogEntry(.added(id: testID(n), title: "label \(n)", isEnabled: true, index: 0), actor: "tester")
    }

    /// Creates the schema `name` with a list, appends, reads back, reopens and follows.
    func roundTrip(schema name: String) throws {
        let location = server.location(schema: name)
        let log = try server.open(location)
        defer { log.close() }
        let appended = try log.append([entry(1), entry(2)], expectedLastSeq: 0)
        #expect(try log.read(from: 1, maxCount: 10) == appended)
        let again = try server.open(location, create: false)
        defer { again.close() }
        #expect(again.logID == log.logID && again.lastSeq == 2)
        try log.append([entry(3)])
        #expect(try again.waitForAppends(after: 2, timeout: .seconds(10)))
        #expect(try again.refreshLastSeq() == 3)
        let quoted = "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        #expect(try server.psql("SELECT count(*) FROM \(quoted).records WHERE list = '\(location.list)'") == "3")
    }

    @Test func reservedWordsAreSchemaNames() throws {
        for name in ["user", "order", "select"] {
            // Another test run may have made them already: a list of its own in each.
            try roundTrip(schema: name)
        }
    }

    @Test func aNameThatNeedsQuotesIsASchemaName() throws {
        try roundTrip(schema: "Team \"A\"-\(UUID().uuidString.prefix(6))")
    }

    @Test func aReservedWordSchemaWorksThroughAURL() throws {
        let location = try PostgresLocation(
            connection: server.conninfo, list: "url-\(UUID().uuidString.prefix(8))", schema: "order")
        let url = try PostgresLocation(url: "postgres://h/db?list=x&schema=order")
        #expect(url.schema == "order")
        let log = try server.open(location)
        defer { log.close() }
        #expect(try log.append([entry(1)]).map(\.seq) == [1])
    }

    @Test func anEmptyOrOverlongSchemaNameIsRefused() throws {
        for bad in ["", String(repeating: "s", count: 64), "a\u{0}b"] {
            let error = #expect(throws: EventLogError.self) { try PostgresLocation(connection: "host=h", list: "x", schema: bad) }
            #expect(error?.code == .invalidLocation)
        }
    }
}
#endif
