import EventLog
import LabelStoreTestSupport
import Testing

@testable import LabelProjection

/// The fold (`LabelList.apply`) against a plain-array model, and its consistency checks.
@Suite struct LabelListFoldTests {
    /// Produces a random event for `model`: valid, or deliberately broken with the code the fold must report.
    func randomEvent(_ model: ModelList, nextID: inout Int, _ rng: inout SeededGenerator) -> (LabelEvent, ProjectionError.Code?) {
        let titles = ["Amber", "Cobalt", "Grid", "Tile", "Ring", "Café", "ring two"]
        let count = model.rows.count
        let live = model.rows
        let removed = model.removedIDs
        func pickLive() -> Label? { live.isEmpty ? nil : live[Int.random(in: 0..<live.count, using: &rng)] }
        var kind = Int.random(in: 0..<20, using: &rng)
        if count >= 40, kind <= 4 { kind = 10 }  // keep the list small so every step can be checked in full
        switch kind {
        case 0...4:
            if Bool.random(using: &rng), let r = removed.randomElement(using: &rng) {
                return (.added(id: r, title: "back", isEnabled: true, index: Int.random(in: 0...count, using: &rng)), nil)
            }
            nextID += 1
            return (
                .added(
                    id: testID(nextID), title: titles.randomElement(using: &rng)!, isEnabled: Bool.random(using: &rng),
                    index: Int.random(in: 0...count, using: &rng)), nil
            )
        case 5:
            guard let l = pickLive() else {
                return (.added(id: testID(999_999), title: "x", isEnabled: true, index: count + 1), .indexOutOfRange)
            }
            return (.added(id: l.id, title: "dup", isEnabled: true, index: 0), .duplicateID)
        case 6...7:
            guard let l = pickLive() else { return (.renamed(id: testID(888_888), oldTitle: "a", newTitle: "b"), .unknownID) }
            if Int.random(in: 0..<4, using: &rng) == 0 {
                return (.renamed(id: l.id, oldTitle: l.title + "?", newTitle: "x"), .titleMismatch)
            }
            return (.renamed(id: l.id, oldTitle: l.title, newTitle: titles.randomElement(using: &rng)!), nil)
        case 8...9:
            guard let l = pickLive() else { return (.toggled(id: testID(888_888), isEnabled: true), .unknownID) }
            if Int.random(in: 0..<4, using: &rng) == 0 { return (.toggled(id: l.id, isEnabled: l.isEnabled), .stateMismatch) }
            return (.toggled(id: l.id, isEnabled: !l.isEnabled), nil)
        case 10...11:
            guard let l = pickLive() else {
                if let r = removed.first { return (.removed(id: r, index: 0, title: "", isEnabled: true), .removedID) }
                return (.removed(id: testID(888_888), index: 0, title: "", isEnabled: true), .unknownID)
            }
            let i = model.index(l.id)!
            switch Int.random(in: 0..<6, using: &rng) {
            case 0 where count > 1:
                return (.removed(id: l.id, index: (i + 1) % count, title: l.title, isEnabled: l.isEnabled), .indexMismatch)
            case 1: return (.removed(id: l.id, index: i, title: l.title, isEnabled: !l.isEnabled), .stateMismatch)
            case 2: return (.removed(id: l.id, index: count, title: l.title, isEnabled: l.isEnabled), .indexOutOfRange)
            default: return (.removed(id: l.id, index: i, title: l.title, isEnabled: l.isEnabled), nil)
            }
        case 12...14:
            guard let l = pickLive() else { return (.reordered(order: [testID(777_777)]), .notAPermutation) }
            let from = model.index(l.id)!
            if count < 2 { return (.moved(id: l.id, from: from, to: from), .invalidEvent) }
            var to = Int.random(in: 0..<count, using: &rng)
            if to == from { to = (from + 1) % count }
            if Int.random(in: 0..<5, using: &rng) == 0 { return (.moved(id: l.id, from: from, to: count), .indexOutOfRange) }
            return (.moved(id: l.id, from: from, to: to), nil)
        case 15...17:
            var order = model.ids
            order.shuffle(using: &rng)
            return (.reordered(order: order), nil)
        case 18:
            guard count > 0 else { return (.reordered(order: [testID(777_777)]), .notAPermutation) }
            var order = model.ids
            if Bool.random(using: &rng) { order.removeLast() } else { order.append(order[0]) }
            return (.reordered(order: order), .notAPermutation)
        default:
            return (.rejected(id: pickLive()?.id, command: "rename", reason: "Edit skipped: label was removed."), nil)
        }
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func foldAgreesWithPlainArrayModelAndRejectsInconsistentEventsWithoutChangingState(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        var model = ModelList()
        var list = LabelList()
        var nextID = 0
        var rejections = 0
        for _ in 0..<3000 {
            let (event, expected) = randomEvent(model, nextID: &nextID, &rng)
            let seq = model.lastSeq + 1
            let before = list
            do {
                let change = try list.apply(record(seq, event))
                #expect(expected == nil, "seq \(seq): \(event) should have failed with \(String(describing: expected))")
                model.apply(event, seq: seq)
                #expect(change.seq == seq)
                #expect(change.enabledCountBefore == before.enabledCount && change.enabledCountAfter == list.enabledCount)
                #expect(change.membershipChanged == (before.ids != list.ids))
            } catch {
                rejections += 1
                #expect(error.code == expected, "seq \(seq): \(event) failed with \(error.code), expected \(String(describing: expected))")
                #expect(error.seq == seq && error.message.contains("seq \(seq)"))
                #expect(list == before, "a failed apply must leave the list unchanged")
            }
            #expect(model.matches(list), "after seq \(seq) the fold differs from the model")
        }
        #expect(rejections > 100, "the generator must exercise the error paths")
    }

    @Test func applyRefusesASeqThatDoesNotFollowTheLastOne() throws {
        var list = LabelList()
        #expect(throws: ProjectionError.self) { try list.apply(record(2, .added(id: testID(1), title: "A", isEnabled: true, index: 0))) }
        try list.apply(record(1, .added(id: testID(1), title: "A", isEnabled: true, index: 0)))
        let error = #expect(throws: ProjectionError.self) { try list.apply(record(1, .toggled(id: testID(1), isEnabled: false))) }
        #expect(error?.code == .seqOutOfOrder)
        #expect(list.lastSeq == 1 && list.enabledCount == 1)
    }

    @Test func changeReportsTitleAndEnabledValuesIncludingAddAndRemove() throws {
        var list = LabelList()
        let id = testID(1)
        let add = try list.apply(record(1, .added(id: id, title: "Amber", isEnabled: true, index: 0)))
        #expect(add.title == ValueChange(id: id, old: nil, new: "Amber"))
        #expect(add.isEnabled == ValueChange(id: id, old: nil, new: true))
        let rename = try list.apply(record(2, .renamed(id: id, oldTitle: "Amber", newTitle: "Copper")))
        #expect(rename.title == ValueChange(id: id, old: "Amber", new: "Copper"))
        #expect(rename.isEnabled == nil && !rename.membershipChanged && !rename.enabledCountChanged)
        let same = try list.apply(record(3, .renamed(id: id, oldTitle: "Copper", newTitle: "Copper")))
        #expect(same.changesNothing && list.labelVersion(id) == 2)
        let remove = try list.apply(record(4, .removed(id: id, index: 0, title: "Copper", isEnabled: true)))
        #expect(remove.title == ValueChange(id: id, old: "Copper", new: nil))
        #expect(remove.enabledCountBefore == 1 && remove.enabledCountAfter == 0)
        #expect(list.removal(of: id) == 4 && list.knownIDs == [id])
    }

    @Test func versionsFollowTitleAndEnabledChangesButNotMoves() throws {
        let a = testID(1), b = testID(2)
        let list = try LabelList(replaying: [
            record(1, .added(id: a, title: "A", isEnabled: true, index: 0)),
            record(2, .added(id: b, title: "B", isEnabled: false, index: 1)),
            record(3, .toggled(id: b, isEnabled: true)),
            record(4, .moved(id: a, from: 0, to: 1)),
            record(5, .reordered(order: [a, b]))
        ])
        #expect(list.labelVersion(a) == 1 && list.labelVersion(b) == 3)
        #expect(list.listVersion == 5)
        #expect(list.ids == [a, b] && list.enabledCount == 2)
    }
}
