import EventLog
import Foundation
import LabelProjection
import LabelStoreTestSupport
import Testing

@testable import labelreplay

/// The hand-written `--json` writers of `show`, `diff`, `trace` and `log`
/// (`JSONWritable`) against `JSONEncoder` as `JSONLines` configures it:
/// seeded random values, with hostile texts (quotes, backslashes, control
/// characters, slashes, non-BMP scalars), extreme numbers and times, and
/// every optional field present and absent, must come out as the same bytes.
struct JSONOutputTests {
    /// Seeded random values of the JSON types.
    struct Values {
        var rng: SeededGenerator

        init(seed: UInt64) { rng = SeededGenerator(seed: seed) }

        static let scalars: [Unicode.Scalar] =
            (0..<0x80).compactMap { Unicode.Scalar($0) }
            + ["/", "\"", "\\", "é", "😀", "\u{2028}", "\u{2029}", "\u{FEFF}", "\u{10FFFF}", "数", "\u{7F}", "\u{85}", "𝄞"]

        mutating func text() -> String {
            String(
                String.UnicodeScalarView(
                    (0..<Int.random(in: 0...16, using: &rng)).map { _ in Self.scalars.randomElement(using: &rng)! }))
        }

        mutating func maybe<T>(_ make: (inout Values) -> T) -> T? { Bool.random(using: &rng) ? make(&self) : nil }

        mutating func id() -> LabelID {
            let a = rng.next(), b = rng.next()
            return withUnsafeBytes(of: (a, b)) { LabelID(UUID(uuid: $0.loadUnaligned(as: uuid_t.self))) }
        }

        mutating func int() -> Int {
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: Int.random(in: 0...9, using: &rng)
            case 1: Int.random(in: .min ... .max, using: &rng)
            case 2: [Int.min, Int.max, -1, 0][Int.random(in: 0..<4, using: &rng)]
            default: Int.random(in: -1_000_000...1_000_000, using: &rng)
            }
        }

        mutating func uint64() -> UInt64 {
            Bool.random(using: &rng)
                ? UInt64.random(in: 0...UInt64.max, using: &rng) : [0, 1, UInt64.max][Int.random(in: 0..<3, using: &rng)]
        }

        mutating func bool() -> Bool { Bool.random(using: &rng) }

        mutating func ids() -> [LabelID] { (0..<Int.random(in: 0...4, using: &rng)).map { _ in id() } }

        mutating func record() -> EventRecord {
            let n = Int.random(in: 0...Int(LogLimits.maxIndex), using: &rng)
            let event: LabelEvent =
                switch Int.random(in: 0..<7, using: &rng) {
                case 0: .added(id: id(), title: text(), isEnabled: bool(), index: n)
                case 1: .renamed(id: id(), oldTitle: text(), newTitle: text())
                case 2: .toggled(id: id(), isEnabled: bool())
                case 3: .removed(id: id(), index: n, title: text(), isEnabled: bool())
                case 4: .moved(id: id(), from: n, to: Int.random(in: 0...9, using: &rng))
                case 5: .reordered(order: ids())
                default: .rejected(id: maybe { $0.id() }, command: text(), reason: text())
                }
            let ms =
                bool()
                ? Int64.random(in: -62_167_219_200_001...253_402_300_800_000, using: &rng) : Int64.random(in: .min ... .max, using: &rng)
            return EventRecord(
                seq: uint64(), timestamp: EventTimestamp(millisecondsSince1970: ms), actor: maybe { $0.text() }, note: maybe { $0.text() },
                event: event)
        }

        mutating func shownLabel() -> ShownLabel {
            ShownLabel(id: id(), title: text(), isEnabled: bool(), version: uint64(), position: int())
        }

        mutating func diffEntry() -> LabelDiffEntry {
            let kinds: [LabelDiffEntry.Kind] = [.added, .removed, .renamed, .toggled, .moved]
            return LabelDiffEntry(
                id: id(), change: kinds.randomElement(using: &rng)!, title: text(), oldTitle: maybe { $0.text() },
                newTitle: maybe { $0.text() }, oldIsEnabled: maybe { $0.bool() }, isEnabled: maybe { $0.bool() }, from: maybe { $0.int() },
                to: maybe { $0.int() })
        }

        mutating func viewChange() -> TracedViewChange {
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: TracedViewChange(.inserted(id: id(), at: int()))
            case 1: TracedViewChange(.removed(id: id(), at: int()))
            case 2: TracedViewChange(.moved(id: id(), from: int(), to: int()))
            default: TracedViewChange(.updated(id: id(), at: int()))
            }
        }

        mutating func notification() -> TracedNotification {
            var traced = TracedNotification(dependency: text())
            traced.id = maybe { $0.id() }
            traced.oldTitle = maybe { $0.text() }
            traced.newTitle = maybe { $0.text() }
            traced.oldIsEnabled = maybe { $0.bool() }
            traced.newIsEnabled = maybe { $0.bool() }
            traced.query = maybe { ViewQuery($0.text(), enabledOnly: $0.bool()) }
            traced.changes = maybe { values in (0..<Int.random(in: 0...3, using: &values.rng)).map { _ in values.viewChange() } }
            traced.rows = maybe { $0.ids() }
            traced.oldCount = maybe { $0.int() }
            traced.newCount = maybe { $0.int() }
            return traced
        }

        mutating func tracedEvent() -> TracedEvent {
            TracedEvent(
                seq: uint64(), record: record(), notified: (0..<Int.random(in: 0...4, using: &rng)).map { _ in notification() },
                notNotified: (0..<Int.random(in: 0...3, using: &rng)).map { _ in text() }, count: int(), enabledCount: int())
        }
    }

    /// Whether `value` is written as `JSONEncoder` encodes it; records the difference when not.
    @discardableResult
    static func writtenAsEncoded(_ value: some JSONWritable) throws -> Bool {
        let encoded = try JSONLines().line(value)
        let written = value.jsonText
        #expect(written == encoded)
        return written == encoded
    }

    @Test func showListsAreWrittenExactlyAsJSONEncoderWritesThem() throws {
        var values = Values(seed: 13)
        try Self.writtenAsEncoded(ShownList(seq: 0, count: 0, labels: []))
        for _ in 0..<300 {
            let list = ShownList(
                seq: values.uint64(), count: values.int(),
                labels: (0..<Int.random(in: 0...8, using: &values.rng)).map { _ in values.shownLabel() })
            guard try Self.writtenAsEncoded(list) else { break }
        }
    }

    @Test func diffsAreWrittenExactlyAsJSONEncoderWritesThem() throws {
        var values = Values(seed: 14)
        try Self.writtenAsEncoded(ListDiff(from: 0, to: 0, changes: []))
        for _ in 0..<300 {
            let diff = ListDiff(
                from: values.uint64(), to: values.uint64(),
                changes: (0..<Int.random(in: 0...8, using: &values.rng)).map { _ in values.diffEntry() })
            guard try Self.writtenAsEncoded(diff) else { break }
        }
    }

    @Test func tracedEventsAreWrittenExactlyAsJSONEncoderWritesThem() throws {
        var values = Values(seed: 15)
        for _ in 0..<500 {
            guard try Self.writtenAsEncoded(values.tracedEvent()) else { break }
        }
        // Every field of a notification at once, and none.
        var full = TracedNotification(dependency: "view")
        full.id = values.id()
        full.oldTitle = "a\"/\\\u{0}\u{1F}"
        full.newTitle = "😀"
        full.oldIsEnabled = false
        full.newIsEnabled = true
        full.query = ViewQuery("ring/\"", enabledOnly: true)
        full.changes = [TracedViewChange(.moved(id: values.id(), from: Int.min, to: Int.max))]
        full.rows = []
        full.oldCount = -1
        full.newCount = 0
        try Self.writtenAsEncoded(full)
        try Self.writtenAsEncoded(TracedNotification(dependency: ""))
    }

    @Test func logRecordsAreWrittenExactlyAsJSONEncoderWritesThem() throws {
        var values = Values(seed: 16)
        for _ in 0..<1_000 {
            guard try Self.writtenAsEncoded(values.record()) else { break }
        }
    }
}
