#if Postgres
import EventLog
import Foundation
import LabelProjection
import LabelStorePostgres
import LabelStoreTestSupport
import Synchronization
import Testing

/// Followers survive a server that stops and starts again under them:
/// `log --follow`, `copy --follow` and `LabelStore.startFollowing` reconnect
/// within the reconnect window and go on with no seq skipped or repeated,
/// saying on standard error while they wait (issue 26, item 5).
@Suite(.serialized) struct FollowAcrossRestartTests {
    @Test func followersSurviveTwoImmediateRestarts() throws {
        let server = try PostgresTestServer.startPrivate()
        defer { server.stop() }
        let directory = TemporaryDirectory()
        let location = server.location()
        let writer = try server.open(location, reconnect: .seconds(60))
        defer { writer.close() }
        var seq = 0
        func appendThree() throws {
            for _ in 0..<3 {
                seq += 1
                try writer.append([LogEntry(.added(id: testID(seq), title: "restart \(seq)", isEnabled: true, index: 0))])
            }
        }
        try appendThree()

        let url = Self.url(server, list: location.list)
        let mirror = directory.file("mirror.labellog")
        let follow = try Background(try CLIOverServerTests.executable(), ["log", url, "--follow", "--json"], directory: directory.path)
        defer { follow.terminate() }
        let copy = try Background(try CLIOverServerTests.executable(), ["copy", url, mirror, "--follow"], directory: directory.path)
        defer { copy.terminate() }
        let store = try LabelStore(storage: try server.open(location, create: false))
        defer { store.close() }
        let heard = Mutex<[UInt64]>([])
        let subscription = store.subscribe(to: .everything) { note in heard.withLock { $0.append(note.seq) } }
        defer { subscription.cancel() }
        let errors = Mutex<[StoreError]>([])
        store.startFollowing(wait: .milliseconds(300)) { error in errors.withLock { $0.append(error) } }
        #expect(try CLIOverServerTests.waitUntil { CLIOverServerTests.lastSeq(of: mirror) == 3 })

        for _ in 0..<2 {
            try server.crash()
            // Down long enough for every follower to notice (they read the head row at least every second).
            Thread.sleep(forTimeInterval: 2)
            try server.restart()
            try appendThree()
        }
        #expect(try CLIOverServerTests.waitUntil { CLIOverServerTests.lastSeq(of: mirror) == 9 })
        #expect(try CLIOverServerTests.waitUntil { store.lastSeq == 9 })
        #expect(try CLIOverServerTests.waitUntil { follow.printed().components(separatedBy: "\"seq\":").count - 1 >= 6 })

        let followed = try follow.interrupt()
        let seqs = followed.output.split(separator: "\n").compactMap { line -> UInt64? in
            guard let range = line.range(of: "\"seq\":") else { return nil }
            return UInt64(line[range.upperBound...].prefix { $0.isNumber })
        }
        // `log --follow` prints what is appended after it starts: seqs 4…9, each once, in order.
        #expect(seqs == Array(4...9), "\(followed.output)")
        #expect(followed.output.contains("waiting for the server"), "\(followed.output)")
        #expect(followed.output.contains("the server is back after"), "\(followed.output)")
        let copied = try copy.interrupt()
        #expect(copied.status == 0, "\(copied.output)")
        #expect(try CLIOverServerTests.cli(["export", mirror]).output == (try CLIOverServerTests.cli(["export", url]).output))
        #expect(heard.withLock { $0 } == Array(4...9))
        #expect(errors.withLock { $0 }.isEmpty, "the store's follower gave up waiting: \(errors.withLock { $0 })")
    }

    /// A `postgresql://` URL for `list` on `server`.
    static func url(_ server: PostgresTestServer, list: String) -> String {
        var pairs: [String: String] = [:]
        for pair in server.conninfo.split(separator: " ") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { pairs[String(parts[0])] = String(parts[1]) }
        }
        return
            "postgresql:///\(pairs["dbname"] ?? "postgres")?host=\(pairs["host"] ?? "/tmp")&user=\(pairs["user"] ?? "postgres")&list=\(list)"
    }
}
#endif
