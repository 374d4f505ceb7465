#if Postgres
import EventLog
import Foundation
import LabelStorePostgres
import LabelStoreTestSupport
import Synchronization
import Testing

/// An append whose reply is lost is never answered with a guess: it is
/// looked up once the session that sent it has ended, or the error says the
/// outcome is unknown (issue 26, item 4). The reply is lost after the
/// reconnect window has passed, as when a commit waits on a slow synchronous
/// standby longer than `reconnectTimeout` and then the connection drops.
@Suite(.serialized) struct LostReplyTests {
    let server = PostgresTestServer.shared

    func entry(_ n: Int) -> LogEntry { LogEntry(.added(id: testID(n), title: "lost reply \(n)", isEnabled: true, index: 0)) }

    /// A log holding `entry(1)` whose next append is sent, waits 600 ms without reading the reply,
    /// and drops the connection; its reconnect window (200 ms) has passed by then.
    func droppingLog(_ location: PostgresLocation, on server: PostgresTestServer) throws -> PostgresEventLog {
        let log = try server.open(location, reconnect: .milliseconds(200))
        try log.append([entry(1)])
        log.faults.dropAfterMilliseconds.store(600, ordering: .relaxed)
        log.faults.dropAfterSendingAppends.store(1, ordering: .relaxed)
        return log
    }

    @Test func aCommittedAppendWhoseReplyIsLostIsReturnedNotReportedFailed() throws {
        let location = server.location()
        let log = try droppingLog(location, on: server)
        defer { log.close() }
        let records = try log.append([entry(2), entry(3)])
        #expect(records.map(\.seq) == [2, 3])
        #expect(log.statistics.batchesFound.load(ordering: .relaxed) == 1)
        let reader = try server.open(location, create: false)
        defer { reader.close() }
        #expect(try reader.read(from: 1, maxCount: 10).map(\.event) == [entry(1), entry(2), entry(3)].map(\.event))
    }

    @Test func anAppendStillWaitingWhenItsReplyIsLostIsEndedAndReportedNotCommitted() throws {
        let location = server.location()
        let log = try droppingLog(location, on: server)
        defer { log.close() }
        let holder = try ListWriteHolder.hold(location, on: server, name: "holder-\(location.list)")
        // The append waits for the holder's row at seq 2; its reply is lost while it waits.
        do {
            try log.append([entry(2)])
            Issue.record("the append returned although another session held the list")
        } catch {
            #expect(error.code == .connectionFailed, "\(error)")
            #expect(error.message.contains("nothing of the append is committed: the session that sent it has ended"), "\(error)")
        }
        try server.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '\(holder)'")
        // Whatever happens to the lock now, the append said "not committed" and stays so.
        let reader = try server.open(location, create: false)
        defer { reader.close() }
        try reader.append([entry(3)], expectedLastSeq: 1)
        #expect(try reader.read(from: 1, maxCount: 10).map(\.event) == [entry(1), entry(3)].map(\.event))
    }

    @Test func aLostReplyWithTheServerGoneIsAnUnknownOutcomeNamingTheBatch() throws {
        let server2 = try PostgresTestServer.startPrivate()
        defer { server2.stop() }
        let location = server2.location()
        let log = try droppingLog(location, on: server2)
        defer { log.close() }
        _ = try ListWriteHolder.hold(location, on: server2, name: "holder-\(location.list)")
        let outcome = Mutex<EventLogError?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            do throws(EventLogError) {
                try log.append([entry(2)])
            } catch {
                outcome.withLock { $0 = error }
            }
            done.signal()
        }.start()
        // Once the append waits for the lock, the server goes away (an immediate stop).
        let waiting = "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'labelstore' AND wait_event_type = 'Lock'"
        while try server2.psql(waiting) != "1" { usleep(20_000) }
        try server2.crash()
        done.wait()
        let error = try #require(outcome.withLock { $0 })
        #expect(error.code == .outcomeUnknown, "\(error)")
        #expect(error.message.contains("batch") && error.message.contains("Do not append the same entries again blindly"), "\(error)")
        try server2.restart()
    }
}
#endif
