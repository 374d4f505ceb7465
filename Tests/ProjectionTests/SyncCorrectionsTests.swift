import EventLog
import Foundation
import LabelStoreTestSupport
import Testing

@testable import LabelProjection

/// A synced store's correction after a sync (``SyncCorrections``): the
/// events it appends turn its list into the new one exactly — ids, titles
/// byte for byte, `isEnabled`, order — for random pairs of lists of one
/// history, and nothing when they are the same.
@Suite struct SyncCorrectionsTests {
    /// A random run of `count` commands on `list`, from ids it knows and new ones.
    static func edit(_ list: inout LabelList, count: Int, random: inout SeededGenerator) throws {
        for _ in 0..<count {
            let ids = list.ids
            let command: LabelCommand
            switch ids.isEmpty ? 0 : random.next() % 6 {
            case 0:
                command = .add(
                    title: "t\(random.next() % 50)", isEnabled: random.next() % 2 == 0, at: Int(random.next() % UInt64(ids.count + 1)))
            case 1: command = .rename(id: ids[Int(random.next() % UInt64(ids.count))], title: "t\(random.next() % 50)")
            case 2: command = .toggle(id: ids[Int(random.next() % UInt64(ids.count))])
            case 3: command = .remove(id: ids[Int(random.next() % UInt64(ids.count))])
            case 4: command = .move(id: ids[Int(random.next() % UInt64(ids.count))], to: Int(random.next() % UInt64(ids.count)))
            default: command = .reverse
            }
            for event in try list.events(for: command) {
                _ = try list.apply(EventRecord(seq: list.lastSeq + 1, timestamp: EventTimestamp(millisecondsSince1970: 0), event: event))
            }
        }
    }

    static func shape(_ list: LabelList) -> [String] { list.labels.map { "\($0.id) \($0.title) \($0.isEnabled)" } }

    @Test(arguments: [UInt64(1), 2, 3, 4])
    func theCorrectionTurnsOneListIntoTheOther(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        for _ in 0..<200 {
            var common = LabelList()
            try Self.edit(&common, count: Int(random.next() % 12), random: &random)
            var old = common
            var new = common
            try Self.edit(&old, count: Int(random.next() % 6), random: &random)
            try Self.edit(&new, count: Int(random.next() % 6), random: &random)
            var corrected = old
            let events = SyncCorrections.events(from: old, to: new)
            for event in events {
                _ = try corrected.apply(
                    EventRecord(seq: corrected.lastSeq + 1, timestamp: EventTimestamp(millisecondsSince1970: 0), event: event))
            }
            #expect(Self.shape(corrected) == Self.shape(new))
            #expect(SyncCorrections.events(from: new, to: new).isEmpty)
        }
    }
}
