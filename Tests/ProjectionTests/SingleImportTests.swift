import Foundation
import LabelProjection
import Testing

/// This file imports `LabelProjection` alone (not `EventLog`): it compiles
/// only because the module re-exports what an app names, and the test then
/// uses those names the way an app would.
@Suite struct SingleImportTests {
    @Test func oneImportNamesIDsEventsRecordsStoragesAndErrors() throws {
        let storage = InMemoryEventLog()
        let store = try LabelStore(storage: storage)
        let id: LabelID = try store.add("Ring")
        let records: [EventRecord] = try storage.read(from: 1, maxCount: 10)
        #expect(records.count == 1)
        #expect(records.first?.event == LabelEvent.added(id: id, title: "Ring", isEnabled: true, index: 0))
        #expect(records.first?.event.kind == EventKind.added)
        let entry = LogEntry(.toggled(id: id, isEnabled: false), actor: "test")
        #expect(try store.append(entries: [entry]).map(\.seq) == [2])
        let options = LogWriter.Options(durability: Durability.groupCommit)
        #expect(options.durability == .groupCommit)
        let missing = "/nonexistent-\(UUID())/l.labellog"
        #expect {
            try LabelStore.open(path: missing)
        } throws: { error in
            guard let error = error as? StoreError, case .storage(let cause) = error.code else { return false }
            return cause.code == EventLogError.Code.fileNotFound
        }
    }
}
