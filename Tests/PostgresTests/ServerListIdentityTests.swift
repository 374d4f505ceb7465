#if Postgres
import EventLog
import Foundation
import LabelProjection
import LabelStorePostgres
import LabelStoreTestSupport
import Testing

/// A list deleted and created again is another history (another `log_id`):
/// nothing opened before reads it, appends to it or follows into it
/// (issue 26, item 1).
@Suite(.serialized) struct ServerListIdentityTests {
    let server = PostgresTestServer.shared

    /// Deletes the list's rows and creates it again (a new `log_id`) with `records` added labels.
    func recreate(_ location: PostgresLocation, records: Int) throws -> UUID {
        try server.psql(
            """
            DELETE FROM labelstore.records WHERE list = '\(location.list)';
            DELETE FROM labelstore.lists WHERE list = '\(location.list)'
            """)
        let fresh = try server.open(location)
        defer { fresh.close() }
        for i in 0..<records {
            try fresh.append([LogEntry(.added(id: testID(500 + i), title: "new \(i)", isEnabled: true, index: 0))])
        }
        return fresh.logID
    }

    func expectReplaced(_ error: EventLogError, old: UUID, new: UUID, list: String) {
        #expect(
            error.code == .listReplaced && error.message.contains(list) && error.message.contains(old.uuidString)
                && error.message.contains(new.uuidString), "\(error)")
    }

    @Test func aStaleHandleNeitherAppendsToNorReadsNorFollowsARecreatedList() throws {
        let location = server.location()
        let stale = try server.open(location)
        defer { stale.close() }
        try stale.append([LogEntry(.added(id: testID(1), title: "old", isEnabled: true, index: 0))])
        let old = stale.logID
        let new = try recreate(location, records: 1)
        do {
            try stale.append([LogEntry(.added(id: testID(2), title: "stale write", isEnabled: true, index: 0))], expectedLastSeq: 1)
            Issue.record("a stale handle appended to the recreated list")
        } catch {
            expectReplaced(error, old: old, new: new, list: location.list)
        }
        do {
            try stale.append([LogEntry(.added(id: testID(3), title: "stale write", isEnabled: true, index: 0))])
            Issue.record("a stale handle appended to the recreated list")
        } catch {
            expectReplaced(error, old: old, new: new, list: location.list)
        }
        do {
            _ = try stale.read(from: 1, maxCount: 10)
            Issue.record("a stale handle read the recreated list")
        } catch {
            expectReplaced(error, old: old, new: new, list: location.list)
        }
        do {
            _ = try stale.waitForAppends(after: 0, timeout: .milliseconds(100))
            Issue.record("a stale handle followed the recreated list")
        } catch {
            expectReplaced(error, old: old, new: new, list: location.list)
        }
        let fresh = try server.open(location, create: false)
        defer { fresh.close() }
        #expect(try fresh.read(from: 1, maxCount: 10).map(\.event) == [.added(id: testID(500), title: "new 0", isEnabled: true, index: 0)])
    }

    @Test func aPessimisticStaleHandleIsRefusedToo() throws {
        let location = server.location()
        let stale = try PostgresEventLog(location: location, options: .init(createIfMissing: true, pessimistic: true))
        defer { stale.close() }
        try stale.append([LogEntry(.added(id: testID(1), title: "old", isEnabled: true, index: 0))])
        let new = try recreate(location, records: 0)
        do {
            _ = try stale.appendExclusively { _ in [LogEntry(.added(id: testID(2), title: "stale", isEnabled: true, index: 0))] }
            Issue.record("a stale pessimistic handle appended to the recreated list")
        } catch {
            expectReplaced(error, old: stale.logID, new: new, list: location.list)
        }
    }

    @Test func copyFollowAndLogFollowStopWhenTheListIsRecreated() throws {
        let directory = TemporaryDirectory()
        let location = server.location()
        let url = CLIOverServerTests.url(list: location.list)
        #expect(try CLIOverServerTests.cli(["init", url]).status == 0)
        #expect(try CLIOverServerTests.cli(["add", url, "Amber"]).status == 0)
        let old = try server.open(location, create: false).logID
        let mirror = directory.file("mirror.labellog")
        let copy = try Background(try CLIOverServerTests.executable(), ["copy", url, mirror, "--follow"], directory: directory.path)
        defer { copy.terminate() }
        let follow = try Background(try CLIOverServerTests.executable(), ["log", url, "--follow"], directory: directory.path)
        defer { follow.terminate() }
        #expect(try CLIOverServerTests.waitUntil { CLIOverServerTests.lastSeq(of: mirror) == 1 })
        let new = try recreate(location, records: 2)
        for (name, child) in [("copy --follow", copy), ("log --follow", follow)] {
            guard let (status, output) = child.exitByItself() else {
                Issue.record("\(name) went on following a recreated list")
                continue
            }
            #expect(
                status == 1 && output.contains("was deleted and created again") && output.contains(old.uuidString), "\(name): \(output)")
            #expect(output.contains(new.uuidString), "\(name): \(output)")
        }
        // The mirror kept the old history only.
        #expect(CLIOverServerTests.lastSeq(of: mirror) == 1)
    }
}
#endif
