import EventLog
import Foundation
import LabelProjection
import LabelStoreTestSupport

/// Logs for the timeline tests: a seeded random history of any length (a UI's
/// edits: adds, renames, toggles, moves, removals, rare reverses, and edits
/// refused after a removal), and a history of hostile titles.
enum TimelineFixtures {
    /// Writes `events` records to a new log at `path`: the list grows to about
    /// `labels` labels and then hovers there; times advance 0–40 ms per event
    /// from 2026-01-01. The same seed writes the same log.
    static func randomHistory(at path: String, events: Int, labels target: Int = 2000, seed: UInt64 = 12) throws {
        let options = LabelStore.Options(durability: .noSync, createIfMissing: true)
        let store = try LabelStore.open(path: path, options: options)
        defer { store.close() }
        try randomEntries(events, labels: target, seed: seed) { try store.append(entries: $0) }
    }

    /// The same history as ``randomHistory(at:events:labels:seed:)`` as JSON Lines records for
    /// `labelreplay import` (so a release build can write a long one quickly).
    static func randomHistoryJSONLines(to path: String, events: Int, labels target: Int = 2000, seed: UInt64 = 12) throws {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let file = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? file.close() }
        let encoder = JSONEncoder()
        var seq: UInt64 = 0
        try randomEntries(events, labels: target, seed: seed) { entries in
            var text = Data()
            for entry in entries {
                seq += 1
                let record = EventRecord(seq: seq, timestamp: entry.timestamp!, actor: entry.actor, note: entry.note, event: entry.event)
                text += try encoder.encode(record)
                text.append(0x0A)
            }
            try file.write(contentsOf: text)
        }
    }

    /// The entries of a random history, in batches of 2,000.
    private static func randomEntries(_ events: Int, labels target: Int, seed: UInt64, _ write: ([LogEntry]) throws -> Void) throws {
        var random = SeededGenerator(seed: seed)
        var order: [LabelID] = []
        var titles: [LabelID: String] = [:]
        var enabled: [LabelID: Bool] = [:]
        var removed: [LabelID] = []
        var time = StepClock.start
        let actors = ["row-ui", "filter-ui", "sync", "importer", "setup"]
        let words = ["Ring", "Tile", "Grid", "Amber", "Copper", "Cobalt", "Slate", "Fern", "Onyx", "Pearl", "Sage", "Umber"]
        var batch: [LogEntry] = []
        func title() -> String { "\(words.randomElement(using: &random)!) \(Int.random(in: 1...99_999, using: &random))" }
        for _ in 0..<events {
            time += Int64.random(in: 0...40, using: &random)
            let roll = Int.random(in: 0..<1000, using: &random)
            let grow = order.count < target ? 300 : 90
            let event: LabelEvent
            if order.count < 2 || roll < grow {
                let id = randomID(&random)
                let name = title(), on = Bool.random(using: &random), at = Int.random(in: 0...order.count, using: &random)
                order.insert(id, at: at)
                titles[id] = name
                enabled[id] = on
                event = .added(id: id, title: name, isEnabled: on, index: at)
            } else if roll < grow + 80, order.count > target / 2 {
                let at = Int.random(in: 0..<order.count, using: &random)
                let id = order.remove(at: at)
                removed.append(id)
                event = .removed(id: id, index: at, title: titles[id]!, isEnabled: enabled[id]!)
            } else if roll < grow + 95, let id = removed.randomElement(using: &random) {
                event = .rejected(
                    id: id, command: "toggle \(id)", reason: "Edit skipped: label was removed. (label \(id))")
            } else if roll == 999 {
                order.reverse()
                event = .reordered(order: order)
            } else if roll < grow + 300 {
                let at = Int.random(in: 0..<order.count, using: &random)
                var to = Int.random(in: 0..<order.count - 1, using: &random)
                if to >= at { to += 1 }
                let id = order.remove(at: at)
                order.insert(id, at: to)
                event = .moved(id: id, from: at, to: to)
            } else if roll < grow + 600 {
                let id = order.randomElement(using: &random)!
                let old = titles[id]!, new = title()
                titles[id] = new
                event = .renamed(id: id, oldTitle: old, newTitle: new)
            } else {
                let id = order.randomElement(using: &random)!
                enabled[id]!.toggle()
                event = .toggled(id: id, isEnabled: enabled[id]!)
            }
            let note = Int.random(in: 0..<10, using: &random) == 0 ? "batch \(Int.random(in: 1...50, using: &random))" : nil
            batch.append(
                LogEntry(
                    event, timestamp: EventTimestamp(millisecondsSince1970: time), actor: actors.randomElement(using: &random), note: note))
            if batch.count == 2000 {
                try write(batch)
                batch.removeAll(keepingCapacity: true)
            }
        }
        if !batch.isEmpty { try write(batch) }
    }

    /// A version-4 id drawn from `random`.
    static func randomID(_ random: inout SeededGenerator) -> LabelID {
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &random) }
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        let uuid = bytes.withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) }
        return LabelID(UUID(uuid: uuid))
    }

    /// Titles, actors and notes that try to become markup or script, or to mislead. (No U+0000: no
    /// record may hold one since the string rule, docs/FORMAT.md; a control character stands in.)
    static let hostileTitles = [
        "</script><script>document.title='pwned'</script>", "<img src=x onerror=\"document.title='pwned'\">",
        "javascript:alert(1)", "\u{202E}evil\u{202C} rtl", "line\nbreak\u{1B}[31m red", "a\u{2028}b\u{2029}c",
        "<!-- open comment", "]]><svg onload=alert(1)>", "&lt;already escaped&gt; & \"quotes\" 'single'", "\u{7}bel"
    ]

    /// A log whose labels have ``hostileTitles`` (added by a hostile actor with a hostile note, then one renamed,
    /// one removed and edited after its removal).
    static func hostileHistory(at path: String) throws {
        try makeLog(at: path, recordRejections: true) { store in
            for (n, title) in hostileTitles.enumerated() {
                try store.add(
                    title, id: testID(n + 1),
                    options: stamped(Int64(n), actor: "<b onmouseover=alert(1)>actor</b>", note: "</script><!-- \(title)"))
            }
            try store.rename(testID(1), to: hostileTitles[1] + " renamed", options: stamped(20, actor: "\u{202E}rotca"))
            try store.remove(testID(2), options: stamped(21, actor: "javascript:void(0)"))
            _ = try? store.rename(testID(2), to: "</script>again", options: stamped(22, actor: "filter-ui"))
        }
    }
}
