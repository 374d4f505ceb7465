#if Postgres
import EventLog
import Foundation
import LabelStorePostgres
import LabelStoreTestSupport
import Synchronization
import Testing

/// Opening a list retries a server that cannot be reached within the
/// reconnect window, as a reconnect does, for the library and every command
/// (issue 45, item 2): a server restarting under a host that starts is
/// waited for, and said so.
@Suite(.serialized) struct OpenRetryTests {
    /// Restarts `server` after `delay`, on a thread of its own.
    func restart(_ server: PostgresTestServer, after delay: TimeInterval) -> DispatchGroup {
        let done = DispatchGroup()
        done.enter()
        Thread {
            Thread.sleep(forTimeInterval: delay)
            try? server.restart()
            done.leave()
        }.start()
        return done
    }

    @Test func openingWaitsForAServerThatIsDownWithinTheReconnectWindow() throws {
        let server = try PostgresTestServer.startPrivate()
        defer { server.stop() }
        let location = server.location()
        let created = try server.open(location)
        try created.append([LogEntry(.added(id: testID(1), title: "before", isEnabled: true, index: 0))])
        created.close()

        // The library's open: waits, says it lost and found the server.
        try server.crash()
        var restarted = restart(server, after: 1.5)
        let events = Mutex<[String]>([])
        let log = try PostgresEventLog(
            location: location,
            options: .init(
                reconnectTimeout: .seconds(30),
                onConnectionEvent: { event in
                    events.withLock {
                        switch event {
                        case .lost: $0.append("lost")
                        case .restored: $0.append("restored")
                        }
                    }
                }))
        #expect(try log.refreshLastSeq() == 1)
        log.close()
        restarted.wait()
        #expect(events.withLock { $0 } == ["lost", "restored"])

        // Every command: a read and a write while the server is down for a moment.
        let url = FollowAcrossRestartTests.url(server, list: location.list)
        for arguments in [["show", url, "--json"], ["add", url, "after"]] {
            try server.crash()
            restarted = restart(server, after: 1.5)
            let result = try runCommand(try CLIOverServerTests.executable(), arguments)
            restarted.wait()
            #expect(result.status == 0, "\(arguments[0]): \(result)")
            #expect(result.errors.contains("waiting for the server"), "\(arguments[0]) says it waits: \(result.errors)")
        }

        // A window shorter than the outage: unavailable, after the window, not at once.
        try server.crash()
        let start = ContinuousClock.now
        let refused = #expect(throws: EventLogError.self) {
            try PostgresEventLog(location: location, options: .init(reconnectTimeout: .milliseconds(600)))
        }
        #expect(refused?.code == .connectionFailed, "\(String(describing: refused))")
        #expect(ContinuousClock.now - start >= .milliseconds(600))
        try server.restart()
        let reader = try server.open(location, create: false)
        defer { reader.close() }
        #expect(try reader.read(from: 1, maxCount: 10).map(\.seq) == [1, 2], "the add landed once")
    }
}
#endif
