import EventLog
import Foundation
import LabelProjection
import LabelStoreTestSupport
import Testing

@testable import labelreplay

/// `show`'s and `diff`'s text tables, written straight into bytes, and
/// `diff`'s comparison, made of position arrays: each against the plain
/// definition it replaced, on seeded random input.
struct TableAndDiffTests {
    /// The table as lines made of `String`s (the definition the byte writer keeps).
    static func plainRender(_ table: Table, indent: String) -> [String] {
        let columnCount = table.rows.map(\.count).max() ?? 0
        var widths = [Int](repeating: 0, count: columnCount)
        for row in table.rows {
            for (i, cell) in row.enumerated() { widths[i] = max(widths[i], Table.width(of: cell)) }
        }
        return table.rows.map { row in
            var line = indent
            for (i, cell) in row.enumerated() {
                let padding = String(repeating: " ", count: widths[i] - Table.width(of: cell))
                let right = i < table.alignments.count && table.alignments[i] == .right
                line += right ? padding + cell : cell + padding
                if i < row.count - 1 { line += "  " }
            }
            while line.last == " " { line.removeLast() }
            return line
        }
    }

    @Test func tablesAreRenderedAsTheirStringDefinitionRendersThem() {
        var rng = SeededGenerator(seed: 21)
        // Spaces, wide and zero-width scalars, colour sequences, and a prepended space (U+0600 joins the space after it).
        let pieces = ["a", "Zz", " ", "  ", "é", "数", "😀", "e\u{301}", "\u{1B}[31m", "\u{1B}[0m", "\u{600}", "\u{600} ", "-", "42"]
        for _ in 0..<400 {
            let alignments: [Table.Alignment] = (0..<Int.random(in: 0...4, using: &rng)).map { _ in
                Bool.random(using: &rng) ? .left : .right
            }
            var table = Table(alignments)
            for _ in 0..<Int.random(in: 0...6, using: &rng) {
                table.append(
                    (0..<Int.random(in: 0...5, using: &rng)).map { _ in
                        (0..<Int.random(in: 0...4, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined()
                    })
            }
            let indent = ["", "  ", " "].randomElement(using: &rng)!
            let rendered = table.render(indent: indent)
            let plain = Self.plainRender(table, indent: indent)
            #expect(rendered == plain, "\(table.rows)")
            if rendered != plain { break }
        }
    }

    @Test func shortIDsAreTheFirstEightDigitsOfTheID() {
        for _ in 0..<200 {
            let id = LabelID()
            #expect(EventText.shortID(id) == String(id.description.prefix(8)))
        }
    }

    /// The changes from `a` to `b` by the definition: id lookups, a set of the labels that stayed.
    static func plainCompare(_ a: LabelList, _ b: LabelList, removedAs: [LabelID: (title: String, isEnabled: Bool)]) -> [LabelDiffEntry] {
        let aIDs = a.ids, bIDs = b.ids
        let aPosition = Dictionary(uniqueKeysWithValues: aIDs.enumerated().map { ($1, $0) })
        let bPosition = Dictionary(uniqueKeysWithValues: bIDs.enumerated().map { ($1, $0) })
        let common = aIDs.filter { bPosition[$0] != nil }
        let stayed = Set(Diff.longestIncreasingRun(common.map { bPosition[$0]! }).map { common[$0] })
        var changes: [LabelDiffEntry] = []
        for (position, id) in bIDs.enumerated() {
            let new = b.label(id)!
            guard let old = a.label(id), let oldPosition = aPosition[id] else {
                changes.append(LabelDiffEntry(id: id, change: .added, title: new.title, isEnabled: new.isEnabled, to: position))
                continue
            }
            if old.title != new.title {
                changes.append(LabelDiffEntry(id: id, change: .renamed, title: new.title, oldTitle: old.title, newTitle: new.title))
            }
            if old.isEnabled != new.isEnabled {
                changes.append(
                    LabelDiffEntry(id: id, change: .toggled, title: new.title, oldIsEnabled: old.isEnabled, isEnabled: new.isEnabled))
            }
            if !stayed.contains(id) {
                changes.append(LabelDiffEntry(id: id, change: .moved, title: new.title, from: oldPosition, to: position))
            }
        }
        for (position, id) in aIDs.enumerated() where bPosition[id] == nil {
            let old = a.label(id)!
            let last = removedAs[id] ?? (old.title, old.isEnabled)
            changes.append(LabelDiffEntry(id: id, change: .removed, title: last.title, isEnabled: last.isEnabled, from: position))
        }
        return changes
    }

    @Test func diffsListTheChangesTheirDefinitionLists() throws {
        var rng = SeededGenerator(seed: 22)
        for _ in 0..<40 {
            // A random valid history: adds, renames, toggles, moves, removes, reorders.
            var order: [LabelID] = []
            var titles: [LabelID: String] = [:]
            var enabled: [LabelID: Bool] = [:]
            var events: [LabelEvent] = []
            for _ in 0..<Int.random(in: 0...120, using: &rng) {
                let r = Int.random(in: 0..<10, using: &rng)
                if order.isEmpty || r < 3 {
                    let id = LabelID(), at = Int.random(in: 0...order.count, using: &rng)
                    order.insert(id, at: at)
                    titles[id] = "t\(Int.random(in: 0...3, using: &rng))"
                    enabled[id] = Bool.random(using: &rng)
                    events.append(.added(id: id, title: titles[id]!, isEnabled: enabled[id]!, index: at))
                    continue
                }
                let at = Int.random(in: 0..<order.count, using: &rng), id = order[at]
                switch r {
                case 3:
                    let new = "t\(Int.random(in: 0...3, using: &rng))"
                    guard new != titles[id] else { continue }
                    events.append(.renamed(id: id, oldTitle: titles[id]!, newTitle: new))
                    titles[id] = new
                case 4:
                    enabled[id]!.toggle()
                    events.append(.toggled(id: id, isEnabled: enabled[id]!))
                case 5, 6:
                    let to = Int.random(in: 0..<order.count, using: &rng)
                    guard to != at else { continue }
                    order.insert(order.remove(at: at), at: to)
                    events.append(.moved(id: id, from: at, to: to))
                case 7, 8:
                    order.remove(at: at)
                    events.append(.removed(id: id, index: at, title: titles[id]!, isEnabled: enabled[id]!))
                default:
                    order.shuffle(using: &rng)
                    events.append(.reordered(order: order))
                }
            }
            let records = events.enumerated().map {
                EventRecord(seq: UInt64($0 + 1), timestamp: EventTimestamp(millisecondsSince1970: Int64($0)), event: $1)
            }
            let cut = Int.random(in: 0...records.count, using: &rng)
            let a = try LabelList(replaying: records[..<cut]), b = try LabelList(replaying: records)
            var removedAs: [LabelID: (title: String, isEnabled: Bool)] = [:]
            for record in records[cut...] {
                if case .removed(let id, _, let title, let isEnabled) = record.event { removedAs[id] = (title, isEnabled) }
            }
            let changes = Diff.compare(a, b, removedAs: { removedAs }).map(\.jsonText)
            let plain = Self.plainCompare(a, b, removedAs: removedAs).map(\.jsonText)
            #expect(changes == plain)
            if changes != plain { break }
            // `b`'s labels in a list of another history, whose slots are numbered otherwise: matched by id.
            let live = b.labels
            var added: [LabelEvent] = live.shuffled(using: &rng).enumerated().map {
                .added(id: $1.id, title: $1.title, isEnabled: $1.isEnabled, index: $0)
            }
            if live.count > 1 { added.append(.reordered(order: live.map(\.id))) }
            let other = try LabelList(
                replaying: added.enumerated().map {
                    EventRecord(seq: UInt64($0 + 1), timestamp: EventTimestamp(millisecondsSince1970: Int64($0)), event: $1)
                })
            #expect(
                other.labels.map { [$0.id.description, $0.title, "\($0.isEnabled)"] }
                    == live.map { [$0.id.description, $0.title, "\($0.isEnabled)"] })
            let otherChanges = Diff.compare(a, other, removedAs: { removedAs }).map(\.jsonText)
            #expect(otherChanges == Self.plainCompare(a, other, removedAs: removedAs).map(\.jsonText))
        }
    }
}
