import EventLog
import LabelProjection
import Testing

// The ```swift block of EventLog.docc/ProvingTheHistory.md, compiled and run.

// snippet: proving-check-kept-head
func checkAgainstKeptHead(logPath: String, kept: HistoryHead) throws -> HistoryHead {
    // Throws EventLogError.Code.historyDiverged if any record up to kept.seq changed.
    try HistoryProver.verify(HistoryRecords(path: logPath), extends: kept)
}
// end snippet

@Suite struct HistorySnippetTests {
    @Test func aKeptHeadChecksAgainstTheLogThatExtendsIt() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/labels.labellog"
            let store = try LabelStore.open(path: path, options: .init(createIfMissing: true))
            try store.add("Ring")
            let kept = try store.head
            try store.add("Tile")
            let now = try checkAgainstKeptHead(logPath: path, kept: kept)
            #expect(now == (try store.head) && now.seq == 2)
            #expect(throws: EventLogError.self) {
                try checkAgainstKeptHead(logPath: path, kept: HistoryHead(seq: 1, hash: .empty))
            }
            store.close()
        }
    }
}
