import EventLog
import LabelStoreTestSupport
import Testing

@testable import LabelProjection

/// Trial application with rollback (how batches are validated): after any
/// run of applies, successful or not, the list is exactly what it was.
@Suite struct RollbackTests {
    @Test(arguments: [(4, 4, 51), (256, 64, 52)] as [(Int, Int, UInt64)])
    func rollingBackAnyRunOfEventsRestoresTheListExactly(leaf: Int, inner: Int, seed: UInt64) throws {
        var generator = LargeListReferenceTests.Generator(rng: SeededGenerator(seed: seed), target: 600)
        var model = ModelList()
        var list = LabelList(leafCapacity: leaf, innerCapacity: inner)
        for _ in 0..<1500 {
            let event = generator.event(model)
            try list.apply(record(model.lastSeq + 1, event))
            model.apply(event, seq: model.lastSeq + 1)
        }
        var rng = SeededGenerator(seed: seed &+ 7)
        for trial in 0..<300 {
            let before = list
            let slotIDs = list.slots.map(\.id)
            let steps = Int.random(in: 1...12, using: &rng)
            let failAt = Int.random(in: 0..<3, using: &rng) == 0 ? Int.random(in: 0..<steps, using: &rng) : nil
            var trialModel = model
            do {
                try list.withRollback { (work) throws(StoreError) in
                    for step in 0..<steps {
                        if step == failAt { throw StoreError(.invalidCommand, "stop here") }
                        let event = generator.event(trialModel)
                        do throws(ProjectionError) { try work.apply(record(trialModel.lastSeq + 1, event)) } catch {
                            throw StoreError.inconsistent(error)
                        }
                        trialModel.apply(event, seq: trialModel.lastSeq + 1)
                    }
                    #expect(trialModel.matches(work), "trial \(trial): inside the run the list is the folded state")
                }
                #expect(failAt == nil)
            } catch {
                #expect(failAt != nil && error.message == "stop here")
            }
            #expect(list == before, "trial \(trial): rolled back")
            #expect(list.slots.map(\.id) == slotIDs, "trial \(trial): slot numbering restored")
            #expect(list.journal == nil)
            if trial % 25 == 0 { list._checkInvariants() }
        }
        list._checkInvariants()
        #expect(model.matches(list))
    }

    @Test func aRefusedBatchLeavesTheStoreAsItWasAndAnAcceptedOneAppliesOnce() throws {
        let store = try makeStore()
        let a = try store.add("A"), b = try store.add("B")
        let before = store.snapshot
        let error = #expect(throws: StoreError.self) {
            try store.execute(batch: [.add(title: "C", id: testID(9)), .move(id: a, to: 1), .remove(id: testID(404))])
        }
        #expect(error?.batchIndex == 2 && store.snapshot == before && store.lastSeq == 2)
        let records = try store.execute(batch: [
            .add(title: "C", id: testID(9)), .move(id: a, to: 2), .rename(id: b, title: "B2"), .remove(id: testID(9))
        ])
        #expect(records.count == 4 && store.labels.map(\.title) == ["B2", "A"])
        #expect(store.removal(of: testID(9)) == 3 + 3)
        store.snapshot._checkInvariants()
    }
}
