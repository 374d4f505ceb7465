#if Postgres
import EventLog
import Foundation
import LabelStorePostgres
import LabelStoreTestSupport
import Testing

/// The storage contract (``StorageContract``), as the file and in-memory logs
/// keep it (EventLogTests), against the server log: with NOTIFY and without.
@Suite struct PostgresContractTests {
    static func contract(notify: Bool) -> StorageContract {
        let server = PostgresTestServer.shared
        return StorageContract(
            name: notify ? "server log" : "server log without NOTIFY",
            make: { try server.open(server.location(), notify: notify) },
            another: { first in
                let log = first as! PostgresEventLog
                return try server.open(log.location, notify: notify, create: false)
            })
    }

    @Test(arguments: StorageContract.checks) func theServerLogKeepsTheContract(check: String) throws {
        try Self.contract(notify: true).check(check)
    }

    @Test(arguments: ["wait", "shared writers"]) func theServerLogKeepsTheContractWithoutNotify(check: String) throws {
        try Self.contract(notify: false).check(check)
    }
}
#endif
