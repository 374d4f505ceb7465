import EventLog
import LabelStoreTestSupport
import Testing

@testable import LabelProjection

/// Titles are stored as bytes in one arena: renamed and removed titles are
/// reclaimed by compaction, rollbacks restore the arena, and titles compare
/// byte for byte, as the log records them.
@Suite struct TitleArenaTests {
    @Test(arguments: [41, 42] as [UInt64])
    func compactionReclaimsRenamedAndRemovedTitlesAndTheListStillMatchesTheModel(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        var list = LabelList()
        list.titles.minimumGarbage = 0
        var model = ModelList()
        var compactions = 0
        var next = 0
        for step in 1...3000 {
            let rows = model.rows
            let event: LabelEvent
            switch rows.isEmpty ? 0 : Int.random(in: 0..<10, using: &rng) {
            case 0, 1:
                next += 1
                event = .added(
                    id: testID(next), title: "title \(next) " + String(repeating: "é", count: next % 20),
                    isEnabled: true, index: Int.random(in: 0...rows.count, using: &rng))
            case 2:
                let i = Int.random(in: 0..<rows.count, using: &rng)
                event = .removed(id: rows[i].id, index: i, title: rows[i].title, isEnabled: rows[i].isEnabled)
            case 3:
                event = .toggled(id: rows[0].id, isEnabled: !rows[0].isEnabled)
            default:
                let row = rows[Int.random(in: 0..<rows.count, using: &rng)]
                event = .renamed(
                    id: row.id, oldTitle: row.title, newTitle: "renamed at \(step) ✨ " + String(repeating: "x", count: step % 30))
            }
            let before = list.titles.bytes.count
            try list.apply(record(UInt64(step), event))
            model.apply(event, seq: UInt64(step))
            if list.titles.bytes.count < before { compactions += 1 }
            #expect(list.titles.garbage <= max(list.titles.liveBytes, 64) + LogLimits.maxTitleBytes, "garbage is bounded by the live bytes")
        }
        list._checkInvariants()
        #expect(model.matches(list))
        #expect(compactions > 10, "renames and removes triggered compactions (\(compactions))")
        // The compacted list snapshots and decodes to the same state.
        let bytes = list.snapshotBytes(logID: testID(9), fingerprint: 0)
        let decoded = try bytes.withUnsafeBytes { try LabelList.decodeSnapshot($0).list }
        #expect(decoded == list && decoded.titles.garbage == 0 && decoded.titles.liveBytes == list.titles.liveBytes)
    }

    @Test func aRolledBackBatchLeavesTheArenaExactlyAsItWas() throws {
        var list = LabelList()
        try list.apply(record(1, .added(id: testID(1), title: "Amber and more than fifteen bytes", isEnabled: true, index: 0)))
        try list.apply(record(2, .added(id: testID(2), title: "Cobalt", isEnabled: false, index: 1)))
        let original = list
        let arena = (list.titles.bytes, list.titles.garbage)
        _ = try? list.withRollback { (trial) throws(StoreError) in
            do throws(ProjectionError) {
                try trial.apply(record(3, .renamed(id: testID(1), oldTitle: "Amber and more than fifteen bytes", newTitle: "Copper")))
                try trial.apply(record(4, .removed(id: testID(2), index: 1, title: "Cobalt", isEnabled: false)))
                try trial.apply(record(5, .added(id: testID(3), title: "Dune", isEnabled: true, index: 0)))
            } catch { throw StoreError.inconsistent(error) }
            #expect(trial.titles.garbage > 0 && trial.label(testID(1))?.title == "Copper")
            throw StoreError(.invalidCommand, "refuse the batch")
        }
        #expect(list == original)
        #expect(list.titles.bytes == arena.0 && list.titles.garbage == arena.1)
        #expect(list.label(testID(1))?.title == "Amber and more than fifteen bytes")
        list._checkInvariants()
    }

    @Test func titlesCompareByteForByteNotByCanonicalEquivalence() throws {
        let composed = "Caf\u{E9}"  // é as one scalar
        let decomposed = "Cafe\u{301}"  // e + combining acute
        #expect(composed == decomposed, "Swift's String equality treats them as equal")
        var list = LabelList()
        try list.apply(record(1, .added(id: testID(1), title: composed, isEnabled: true, index: 0)))
        #expect(throws: ProjectionError.self) {
            try list.apply(record(2, .renamed(id: testID(1), oldTitle: decomposed, newTitle: "Bar")))
        }
        #expect(Array(list.label(testID(1))!.title.utf8) == Array(composed.utf8))
        // A rename to the canonically equal but different bytes is a real change.
        let change = try list.apply(record(2, .renamed(id: testID(1), oldTitle: composed, newTitle: decomposed)))
        #expect(change.after?.version == 2 && Array(list.label(testID(1))!.title.utf8) == Array(decomposed.utf8))
    }
}
