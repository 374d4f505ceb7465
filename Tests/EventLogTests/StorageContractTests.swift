import EventLog
import Foundation
import LabelStoreTestSupport
import Testing

/// The storage contract (``StorageContract``) against the file log and the
/// in-memory log; PostgresTests runs the same checks against the server log.
@Suite struct StorageContractTests {
    static var memory: StorageContract {
        StorageContract(
            name: "in-memory log", make: { InMemoryEventLog() }, another: { $0 })
    }

    static func file(in directory: TemporaryDirectory) -> StorageContract {
        StorageContract(name: "file log") {
            try LogWriter.open(
                path: directory.file("contract-\(UUID().uuidString).labellog"), options: .init(durability: .noSync, createIfMissing: true))
        }
    }

    @Test(arguments: StorageContract.checks) func theInMemoryLogKeepsTheContract(check: String) throws {
        try Self.memory.check(check)
    }

    @Test(arguments: StorageContract.checks) func theFileLogKeepsTheContract(check: String) throws {
        let directory = TemporaryDirectory()
        try Self.file(in: directory).check(check)
    }
}
