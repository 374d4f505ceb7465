#if Postgres
import EventLog
import Foundation
import LabelProjection
import LabelStorePostgres
import LabelStoreTestSupport
import Synchronization
import Testing

/// The server dies, or kills a backend, while appends and follows are under
/// way: every acknowledged record is there once, and nothing is doubled.
/// Each test that stops the server runs its own (with fsync on).
@Suite(.serialized) struct ServerFaultTests {
    /// Appends one record at a time from `writers` threads, each record's note
    /// naming its writer and number, until `perWriter` each are acknowledged;
    /// `fault` runs meanwhile on the calling thread. Returns the acknowledged records.
    func appendThrough(
        _ server: PostgresTestServer, location: PostgresLocation, writers: Int, perWriter: Int, pace: Double = 0,
        fault: () throws -> Void
    ) throws -> (acknowledged: [EventRecord], failures: [String], reconnects: Int) {
        let acknowledged = Mutex<[EventRecord]>([])
        let reconnects = Atomic<Int>(0)
        let failures = Mutex<[String]>([])
        let done = DispatchGroup()
        for w in 0..<writers {
            let log = try server.open(location, reconnect: .seconds(60))
            done.enter()
            Thread {
                defer {
                    reconnects.add(log.statistics.reconnects.load(ordering: .relaxed), ordering: .relaxed)
                    log.close()
                    done.leave()
                }
                var n = 0
                while n < perWriter {
                    // An add at the top folds whatever came before it, so a follower can fold the history.
                    let event = LabelEvent.added(id: testID(100_000 * (w + 1) + n), title: "w\(w) #\(n)", isEnabled: true, index: 0)
                    let entry = LogEntry(event, actor: "w\(w)", note: "w\(w)-\(n)")
                    do {
                        let records = try log.append([entry])
                        acknowledged.withLock { $0 += records }
                        n += 1
                        if pace > 0 { Thread.sleep(forTimeInterval: pace) }
                    } catch {
                        // Not acknowledged: the same entry is tried again as a new append.
                        failures.withLock { $0.append("\(error)") }
                        Thread.sleep(forTimeInterval: 0.05)
                    }
                }
            }.start()
        }
        try fault()
        done.wait()
        return (acknowledged.withLock { $0 }, failures.withLock { $0 }, reconnects.load(ordering: .relaxed))
    }

    /// The stored history: gapless, and each acknowledged record in it at its seq, unchanged.
    func verify(_ server: PostgresTestServer, _ location: PostgresLocation, acknowledged: [EventRecord]) throws -> [EventRecord] {
        let reader = try server.open(location, create: false)
        defer { reader.close() }
        let stored = try reader.read(from: 1, maxCount: 1_000_000)
        #expect(stored.map(\.seq) == Array(1...UInt64(max(stored.count, 1))).prefix(stored.count).map { $0 })
        let bySeq = Dictionary(uniqueKeysWithValues: stored.map { ($0.seq, $0) })
        for record in acknowledged {
            #expect(bySeq[record.seq] == record, "acknowledged seq \(record.seq) (\(record.note ?? "")) is not stored as acknowledged")
        }
        let notes = stored.compactMap(\.note)
        #expect(Set(notes).count == notes.count, "a retried append was stored twice")
        return stored
    }

    @Test func anImmediateServerStopDuringAppendsLosesNoAcknowledgedRecordAndDoublesNone() throws {
        let server = try PostgresTestServer.startPrivate(fsync: true)
        defer { server.stop() }
        let location = server.location()
        try server.open(location).close()
        let progress = try server.open(location)
        defer { progress.close() }
        var crashes = 0
        let (acknowledged, failures, reconnects) = try appendThrough(server, location: location, writers: 3, perWriter: 150) {
            for target: UInt64 in [60, 180, 300] {
                while (try? progress.refreshLastSeq()) ?? 0 < target { Thread.sleep(forTimeInterval: 0.005) }
                try server.crash()
                crashes += 1
                Thread.sleep(forTimeInterval: 0.3)
                try server.restart()
            }
        }
        #expect(crashes == 3)
        #expect(reconnects >= 3, "the writers reconnected after the crashes")
        #expect(acknowledged.count == 450)
        let stored = try verify(server, location, acknowledged: acknowledged)
        #expect(stored.count == 450, "every acknowledged append once, and none that failed twice (\(failures.count) failures seen)")
    }

    @Test func aTerminatedBackendDuringAppendsAndFollowsLosesNothing() async throws {
        let server = PostgresTestServer.shared
        // Its own application name, so the terminations hit this test's backends only
        // (other suites share the server).
        let application = "fault-\(UInt32.random(in: 0...UInt32.max))"
        let location = try PostgresLocation(
            connection: server.conninfo + " application_name=\(application)", list: "t-\(UUID().uuidString.prefix(8))")
        let followerLog = try server.open(location)
        let follower = try LabelStore(storage: followerLog)
        let heard = Heard()
        let subscription = follower.subscribe(to: .everything) { n in heard.seqs.withLock { $0.append(n.seq) } }
        let followErrors = Tally()
        follower.startFollowing(wait: .milliseconds(100)) { error in
            followErrors.counts.withLock { $0[error.kind.rawValue, default: 0] += 1 }
        }
        let (acknowledged, _, reconnects) = try appendThrough(server, location: location, writers: 2, perWriter: 150, pace: 0.004) {
            for _ in 0..<8 {
                Thread.sleep(forTimeInterval: 0.05)
                // Every backend of the store's connections: appends, reads and the follower's LISTEN.
                try server.psql(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '\(application)'"
                )
            }
        }
        let stored = try verify(server, location, acknowledged: acknowledged)
        #expect(stored.count == 300)
        #expect(reconnects >= 1, "the writers' backends were terminated under them")
        let deadline = ContinuousClock.now.advanced(by: .seconds(30))
        while heard.seqs.withLock({ $0.count }) < 300, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(heard.seqs.withLock { $0 } == Array(1...300), "the follower heard every seq once, in order")
        let errors = followErrors.counts.withLock { $0 }
        #expect(errors.keys.allSatisfy { $0 == "unavailable" }, "the follower saw only lost connections: \(errors)")
        await follower.close()
        followerLog.close()
        _ = subscription
    }
}
#endif
