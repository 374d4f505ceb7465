import LabelStoreTestSupport
import Testing

@testable import LabelProjection

/// The counted B+-tree against a plain array: every edit, every position, every
/// structural invariant, with tiny nodes (deep trees, constant splits and
/// merges) and with the production sizes.
@Suite struct LabelOrderTests {
    /// Random inserts, removes, moves and the occasional bulk replace, checked
    /// against an array after every step.
    @Test(arguments: [(4, 4, 1), (5, 4, 2), (8, 6, 3), (256, 64, 4)] as [(Int, Int, UInt64)])
    func randomEditsMatchAPlainArrayAndKeepTheInvariants(leaf: Int, inner: Int, seed: UInt64) {
        var rng = SeededGenerator(seed: seed)
        var order = LabelOrder(leafCapacity: leaf, innerCapacity: inner)
        var model: [UInt32] = []
        var absent: [UInt32] = Array(0..<3000)
        var grew = false
        for step in 0..<6000 {
            // Grow to ~1,500, then shrink to empty, then grow again: exercises splits and merges.
            let phase = (step / 1500) % 2 == 0
            let roll = Int.random(in: 0..<100, using: &rng)
            if model.isEmpty || (phase && roll < 60) || (!phase && roll < 20), !absent.isEmpty {
                let slot = absent.remove(at: Int.random(in: 0..<absent.count, using: &rng))
                let at = Int.random(in: 0...model.count, using: &rng)
                order.insert(slot, at: at)
                model.insert(slot, at: at)
            } else if roll < 85 || model.count < 2 {
                let at = Int.random(in: 0..<model.count, using: &rng)
                let removed = order.remove(at: at)
                #expect(removed == model.remove(at: at), "step \(step): remove(at: \(at))")
                absent.append(removed)
            } else if roll < 99 {
                let from = Int.random(in: 0..<model.count, using: &rng), to = Int.random(in: 0..<model.count, using: &rng)
                order.move(from: from, to: to)
                model.insert(model.remove(at: from), at: to)
            } else {
                model.shuffle(using: &rng)
                order.replace(with: model)
            }
            grew = grew || order.height >= 3
            order._checkInvariants()
            #expect(order.count == model.count)
            for _ in 0..<3 where !model.isEmpty {
                let p = Int.random(in: 0..<model.count, using: &rng)
                #expect(order[p] == model[p], "step \(step): slot at \(p)")
                #expect(order.position(of: model[p]) == p, "step \(step): position of \(model[p])")
            }
            if let gone = absent.last { #expect(order.position(of: gone) == nil && !order.contains(gone)) }
            if step % 97 == 0 { #expect(order.elements == model, "step \(step): elements") }
        }
        #expect(order.elements == model)
        if leaf < 16 { #expect(grew, "small nodes must build a tree at least three inner levels high") }
    }

    @Test func bulkBuildKeepsEveryNodeWithinItsFillBounds() {
        for n in [0, 1, 3, 4, 5, 17, 64, 65, 1000, 4097] {
            let order = LabelOrder(Array(0..<UInt32(n)).reversed(), leafCapacity: 4, innerCapacity: 4)
            order._checkInvariants()
            #expect(order.elements == Array(0..<UInt32(n)).reversed())
            #expect(order.count == n)
        }
    }

    @Test func partitionPointFindsTheFirstSlotOfAMonotonePredicate() {
        var rng = SeededGenerator(seed: 9)
        let slots = Array(0..<UInt32(2000)).shuffled(using: &rng)
        let order = LabelOrder(slots, leafCapacity: 4, innerCapacity: 5)
        var rank = [Int](repeating: 0, count: slots.count)
        for (i, slot) in slots.enumerated() { rank[Int(slot)] = i }
        for boundary in [0, 1, 2, 3, 999, 1000, 1998, 1999, 2000] {
            #expect(order.partitionPoint { rank[Int($0)] >= boundary } == boundary)
        }
        #expect(LabelOrder().partitionPoint { _ in true } == 0)
    }

    @Test func neighboursAreTheSlotsJustBeforeAPositionWithinItsLeaf() {
        let slots = Array(0..<UInt32(500)).reversed().map { $0 }
        let order = LabelOrder(slots, leafCapacity: 8, innerCapacity: 4)
        #expect(order.neighbours(before: 0, limit: 5).isEmpty)
        for position in 1...500 {
            let near = Array(order.neighbours(before: position, limit: 5))
            #expect(!near.isEmpty && near.count <= 5)
            #expect(near == Array(slots[(position - near.count)..<position]), "neighbours before \(position)")
        }
    }

    @Test func fenwickTreeCountsThePrefixOfRemainingOnes() {
        var tree = FenwickTree(ones: 10)
        #expect(tree.prefixSum(10) == 10 && tree.prefixSum(4) == 4)
        tree.add(-1, at: 2)
        tree.add(-1, at: 9)
        #expect(tree.prefixSum(2) == 2 && tree.prefixSum(3) == 2 && tree.prefixSum(10) == 8)
        #expect(FenwickTree(ones: 0).prefixSum(0) == 0)
    }
}
