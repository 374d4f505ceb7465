import EventLog
import Foundation
import LabelProjection
import Testing

@testable import LabelBenchKit

/// `store-writers`: the script, its check of what landed, the group sizes, and a tiny run of both variants.
@Suite struct StoreWritersTests {
    @Test func everyScriptedWriteAppendsOneEventAndTheCheckCatchesAMissingOne() throws {
        let script = StoreWriteScript(writers: 3, writesPerWriter: 40, labelsPerWriter: 4, seed: 11)
        #expect(script.seedEntries.count == 12 && script.writeCount == 120)
        let ticker = GroupTicker()
        let store = try LabelStore(storage: InMemoryEventLog(), options: LabelStore.Options(clock: { ticker.next() }))
        defer { store.close() }
        try store.append(entries: script.seedEntries)
        // Round-robin over the writers, one write at a time, except writer 1's last write.
        for index in 0..<40 {
            for writer in 0..<3 where !(writer == 1 && index == 39) {
                #expect(try store.execute(script.writers[writer][index].command).count == 1)
            }
        }
        #expect(throws: BenchError.self) { try script.verify(store) }
        try store.execute(script.writers[1][39].command)
        let records = try script.verify(store)
        #expect(records.count == 120)
        // One write at a time: every group is a single write.
        #expect(StoreWriteScript.groupSizes(records) == Array(repeating: 1, count: 120))
        // The peer's events are the store's, up to the index of an add (which depends on the interleaving).
        let kinds = records.map(\.event.kind)
        let scripted = script.writers.flatMap { $0 }.map(\.entry.event.kind)
        #expect(kinds.sorted { $0.code < $1.code } == scripted.sorted { $0.code < $1.code })
    }

    @Test func groupSizesFollowTheTimestamps() {
        let t = { (ms: Int64) in EventTimestamp(millisecondsSince1970: ms) }
        let records = [1, 1, 2, 3, 3, 3, 1].enumerated().map { seq, ms in
            EventRecord(seq: UInt64(seq + 1), timestamp: t(Int64(ms)), event: .toggled(id: LabelID(), isEnabled: true))
        }
        #expect(StoreWriteScript.groupSizes(records) == [2, 1, 3, 1])
        #expect(StoreWriteScript.groupSizes([]) == [])
    }

    @Test func tinyRunsOfBothVariantsCountEveryWrite() throws {
        try withScratch { scratch in
            var settings = BenchSettings()
            settings.repetitionsOverride = 1
            for writers in [StoreWritersWorkload.Writers.threads, .tasks] {
                let workload = StoreWritersWorkload(settings: settings, writers: writers, writesPerWriter: 6)
                let result = try Runner.run(workload, context: BenchContext(settings: settings, scratch: scratch))
                #expect(result.events == 48)
                #expect(result.ours.median > 0 && result.sqlite.median > 0)
                #expect(result.notes.count == 2)
                #expect(result.notes.contains { $0.contains("commit groups for 48 writes") })
            }
        }
    }
}
