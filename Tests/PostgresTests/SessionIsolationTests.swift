#if Postgres
import EventLog
import Foundation
import LabelProjection
import LabelStorePostgres
import LabelStoreTestSupport
import Synchronization
import Testing

/// A connection string (or a role, or the server) that makes `serializable` the
/// default isolation does not break appends: the protocol sets the isolation
/// its own transactions need (issue 45, item 4).
@Suite(.serialized) struct SessionIsolationTests {
    let server = PostgresTestServer.shared

    /// A fresh list on this server whose connection string makes every transaction serializable by default.
    func serializableLocation() throws -> PostgresLocation {
        try PostgresLocation(
            connection: server.conninfo + " options='-c default_transaction_isolation=serializable'",
            list: "ser-\(UUID().uuidString.prefix(8))")
    }

    @Test(arguments: ["optimistic", "pessimistic", "adaptive"])
    func everyWritePathAppendsUnderASerializableDefault(mode: String) throws {
        let location = try serializableLocation()
        let options = PostgresEventLog.Options(
            createIfMissing: true, pollInterval: .milliseconds(50), pessimistic: mode == "pessimistic",
            adaptiveLocking: mode == "adaptive")
        // Four writers on one list at once, each with its own handle: contention on the head row.
        let failures = Mutex<[String]>([])
        let setup = try PostgresEventLog(location: location, options: options)
        setup.close()
        let group = DispatchGroup()
        for writer in 0..<4 {
            group.enter()
            Thread {
                defer { group.leave() }
                do {
                    let log = try PostgresEventLog(location: location, options: options)
                    defer { log.close() }
                    let store = try LabelStore(storage: log)
                    for i in 0..<15 { try store.add("w\(writer) \(i)") }
                    store.close()
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }.start()
        }
        group.wait()
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        let reader = try PostgresEventLog(location: location, options: options)
        defer { reader.close() }
        #expect(try reader.read(from: 1, maxCount: 100).map(\.seq) == Array(1...60))
    }
}
#endif
