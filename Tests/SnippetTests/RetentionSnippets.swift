import EventLog
import LabelProjection
import Testing

// The ```swift block of LabelProjection.docc/Extensions/LabelStore.Retention.md, compiled and run.

func openKeepingTheLastMillionRecords(path: String) throws -> LabelStore {
    // snippet: retention-open
    var options = LabelStore.Options()
    options.retention = LabelStore.Retention(keep: .lastRecords(1_000_000))
    let store = try LabelStore.open(path: path, options: options)
    if let cut = store.retentionReport?.cut {
        print("archived seqs \(cut.cut); the log starts at seq \(cut.firstSeq)")
    }
    // end snippet
    return store
}

@Suite struct RetentionSnippetTests {
    @Test func aStoreWithRetentionOpensAndReportsThatNothingWasDue() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/labels.labellog"
            let created = try LabelStore.open(path: path, options: .init(createIfMissing: true))
            try created.add("Ring")
            created.close()
            let store = try openKeepingTheLastMillionRecords(path: path)
            #expect(store.retentionReport != nil && store.retentionReport?.cut == nil && store.retentionReport?.error == nil)
            #expect(store.snapshot.count == 1)
            store.close()
        }
    }
}
