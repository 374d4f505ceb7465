import EventLog
import Foundation
import LabelStoreTestSupport
import Testing

@testable import LabelProjection

/// Seeded mutation fuzzing of JSON Lines import: each mutated line either
/// decodes and is validated by the store (accepted or refused with a named
/// error) or fails to decode with a DecodingError; nothing crashes, and the
/// store's state stays the fold of what it accepted.
/// `LABELSTORE_FUZZ_INPUTS=N` sets the count (default 100,000).
@Suite struct ImportFuzzTests {
    static let inputs = Int(ProcessInfo.processInfo.environment["LABELSTORE_FUZZ_INPUTS"] ?? "") ?? 100_000

    @Test func mutatedJSONLinesNeverCrashTheImportPath() throws {
        let storage = InMemoryEventLog()
        let store = try LabelStore(storage: storage)
        let ids = (1...6).map { testID($0) }
        for (i, id) in ids.enumerated() { try store.add("Label \(i)", isEnabled: i % 2 == 0, id: id) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let seeds: [[UInt8]] = try [
            LabelEvent.renamed(id: ids[0], oldTitle: "Label 0", newTitle: "Zero"),
            .toggled(id: ids[1], isEnabled: true),
            .moved(id: ids[2], from: 2, to: 0),
            .removed(id: ids[3], index: 3, title: "Label 3", isEnabled: false),
            .added(id: testID(50), title: "Fresh ✨", isEnabled: true, index: 1),
            .reordered(order: ids.reversed()),
            .rejected(id: ids[4], command: "rename", reason: "Edit skipped: label was removed.")
        ].map { event in
            Array(
                try encoder.encode(
                    EventRecord(
                        seq: 9, timestamp: EventTimestamp(millisecondsSince1970: 1_767_225_600_000),
                        actor: "fuzz", event: event)))
        }
        let tokens: [[UInt8]] = [
            Array("null".utf8), Array("-1".utf8), Array("1e309".utf8), Array("\"\"".utf8), Array("[]".utf8),
            Array("{}".utf8), Array("99999999999999999999".utf8), Array("\"\\u0000\"".utf8), Array("true".utf8)
        ]
        var rng = SeededGenerator(seed: 4242)
        var accepted = 0, refused = 0, undecodable = 0
        let decoder = JSONDecoder()
        for _ in 0..<Self.inputs {
            var line = seeds.randomElement(using: &rng)!
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                let at = Int.random(in: 0..<max(1, line.count), using: &rng)
                switch Int.random(in: 0..<5, using: &rng) {
                case 0 where !line.isEmpty: line[at] = UInt8.random(in: 0x20...0x7E, using: &rng)
                case 1 where !line.isEmpty: line.remove(at: at)
                case 2: line.insert(contentsOf: tokens.randomElement(using: &rng)!, at: min(at, line.count))
                case 3 where !line.isEmpty:
                    // Replace a value after a colon with a token: type confusion.
                    if let colon = line[at...].firstIndex(of: UInt8(ascii: ":")),
                        let end = line[(colon + 1)...].firstIndex(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "}") })
                    {
                        line.replaceSubrange((colon + 1)..<end, with: tokens.randomElement(using: &rng)!)
                    }
                default: line = Array(line.prefix(at))
                }
            }
            let entry: LogEntry
            do {
                entry = try decoder.decode(LogEntry.self, from: Data(line))
            } catch {
                #expect(error is DecodingError, "\(error)")
                undecodable += 1
                continue
            }
            do {
                _ = try store.append(entries: [entry])
                accepted += 1
            } catch {
                #expect(!error.message.isEmpty)
                refused += 1
            }
        }
        print("fuzz JSON import: \(Self.inputs) lines, \(accepted) accepted, \(refused) refused by the store, \(undecodable) undecodable")
        #expect(accepted + refused + undecodable == Self.inputs)
        #expect(refused > 0 && undecodable > 0)
        // The store is still exactly the fold of its log.
        #expect(try LabelList(replaying: storage.allRecords) == store.snapshot)
    }

    @Test func deeplyRepeatedReordersFoldInBoundedSpace() throws {
        let storage = InMemoryEventLog()
        let store = try LabelStore(storage: storage)
        var model: [LabelID] = []
        for i in 0..<1_000 { model.append(try store.add("L\(i)")) }
        var rng = SeededGenerator(seed: 9)
        for _ in 0..<300 {
            model.shuffle(using: &rng)
            try store.reorder(model)
        }
        #expect(store.labels.map(\.id) == model)
        #expect(store.count == 1_000)
        #expect(try LabelList(replaying: storage.allRecords) == store.snapshot)
    }
}
