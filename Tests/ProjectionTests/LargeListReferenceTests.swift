import EventLog
import LabelStoreTestSupport
import Testing

@testable import LabelProjection

/// The fold and filtered views over lists of thousands of labels, against
/// plain arrays: random inserts, removes and moves at any position, with
/// positions checked after every event and the storage invariants checked
/// regularly.
@Suite struct LargeListReferenceTests {
    /// A valid random event for a list of `ids` (in order) with these titles and flags.
    struct Generator {
        var rng: SeededGenerator
        var nextID = 0
        let target: Int

        mutating func int(_ range: Range<Int>) -> Int { Int.random(in: range, using: &rng) }

        mutating func event(_ model: ModelList) -> LabelEvent {
            let count = model.rows.count
            var roll = int(0..<100)
            if count < target, roll >= 40, roll < 70 { roll = 0 }  // grow towards the target size first
            switch roll {
            case 0..<30:
                if !model.removedIDs.isEmpty, int(0..<4) == 0 {
                    let id = model.removedIDs[int(0..<model.removedIDs.count)]
                    return .added(id: id, title: "back \(nextID)", isEnabled: true, index: int(0..<(count + 1)))
                }
                nextID += 1
                return .added(
                    id: testID(nextID), title: titles[nextID % titles.count], isEnabled: nextID % 3 != 0, index: int(0..<(count + 1)))
            case 30..<55 where count > 0:
                let i = int(0..<count)
                let row = model.rows[i]
                return .removed(id: row.id, index: i, title: row.title, isEnabled: row.isEnabled)
            case 55..<85 where count > 1:
                let from = int(0..<count)
                var to = int(0..<count)
                if to == from { to = (to + 1) % count }
                return .moved(id: model.rows[from].id, from: from, to: to)
            case 85..<93 where count > 0:
                let row = model.rows[int(0..<count)]
                return .toggled(id: row.id, isEnabled: !row.isEnabled)
            case 93..<99 where count > 0:
                let row = model.rows[int(0..<count)]
                return .renamed(id: row.id, oldTitle: row.title, newTitle: titles[int(0..<titles.count)])
            case 99 where count > 0:
                var order = model.ids
                order.shuffle(using: &rng)
                return .reordered(order: order)
            default:
                nextID += 1
                return .added(id: testID(nextID), title: "fill", isEnabled: true, index: int(0..<(count + 1)))
            }
        }

        let titles = ["Ring", "Grid", "Tile", "ring two", "Amber", "Cobalt"]
    }

    @Test(arguments: [(8, 4, 31), (256, 64, 32)] as [(Int, Int, UInt64)])
    func fiveThousandLabelListAgreesWithThePlainArrayAtEveryPosition(leaf: Int, inner: Int, seed: UInt64) throws {
        var generator = Generator(rng: SeededGenerator(seed: seed), target: 5000)
        var model = ModelList()
        var list = LabelList(leafCapacity: leaf, innerCapacity: inner)
        let queries = [ViewQuery("ring"), ViewQuery(enabledOnly: true)]
        var views = queries.map { FilteredView(query: $0, list: list) }
        var mirrors: [[LabelID]] = queries.map { _ in [] }
        var probe = SeededGenerator(seed: seed &+ 1)
        for step in 0..<14_000 {
            let event = generator.event(model)
            let seq = model.lastSeq + 1
            let change = try list.apply(record(seq, event))
            model.apply(event, seq: seq)
            for i in views.indices {
                for viewChange in views[i].apply(change, in: list) { viewChange.apply(to: &mirrors[i]) }
            }
            #expect(list.count == model.rows.count)
            // Positions both ways, at random places and at the event's own label.
            for _ in 0..<4 where !model.rows.isEmpty {
                let p = Int.random(in: 0..<model.rows.count, using: &probe)
                let id = model.rows[p].id
                #expect(list.id(at: p) == id && list.position(of: id) == p, "step \(step): position \(p)")
            }
            if let id = event.labelID, let expected = model.index(id) { #expect(list.position(of: id) == expected) }
            if step % 500 == 0 || step == 13_999 {
                list._checkInvariants()
                #expect(model.matches(list), "step \(step): the list differs from the model")
                for (i, query) in queries.enumerated() {
                    let expected = model.rows.filter(query.matches).map(\.id)
                    #expect(mirrors[i] == expected, "step \(step): view \(query) rebuilt from its changes")
                    #expect(views[i].ids(in: list) == expected, "step \(step): view \(query)")
                    views[i].rows._checkInvariants()
                }
            }
        }
        #expect(model.rows.count > 4000, "the list must reach thousands of labels")
    }

    @Test func viewIndexAndMembershipFollowTheList() throws {
        var list = LabelList(leafCapacity: 4, innerCapacity: 4)
        for i in 0..<200 {
            try list.apply(record(UInt64(i + 1), .added(id: testID(i), title: i % 2 == 0 ? "even" : "odd", isEnabled: true, index: i / 2)))
        }
        let view = FilteredView(query: ViewQuery("even"), list: list)
        let expected = list.labels.filter { $0.title == "even" }.map(\.id)
        #expect(view.ids(in: list) == expected && view.count == 100)
        for (i, id) in expected.enumerated() { #expect(view.index(of: id, in: list) == i && view.contains(id, in: list)) }
        #expect(view.index(of: testID(1), in: list) == nil && !view.contains(testID(1), in: list))
        #expect(view.index(of: testID(9999), in: list) == nil)
    }
}
