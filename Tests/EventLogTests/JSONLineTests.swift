import Foundation
import LabelStoreTestSupport
import Testing

@testable import EventLog

/// The fast JSON line reader `import` uses (`JSONLine`): it reads what `export`
/// writes, and every line it reads means exactly what `JSONDecoder` makes of it;
/// what it does not read it leaves to `JSONDecoder`.
@Suite("JSON lines")
struct JSONLineTests {
    static let encoder: JSONEncoder = {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return e
    }()

    /// `JSONLine.entry` of `text`'s bytes.
    static func fast(_ text: [UInt8]) -> LogEntry? { text.withUnsafeBytes { JSONLine.entry($0) } }

    /// `JSONDecoder`'s reading of `text`, or `nil` if it refuses it.
    static func slow(_ text: [UInt8]) -> LogEntry? { try? JSONDecoder().decode(LogEntry.self, from: Data(text)) }

    /// Fails unless the fast reader either declines `text` or agrees with `JSONDecoder`.
    static func agree(_ text: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        guard let fast = fast(text) else { return true }
        let slow = slow(text)
        #expect(slow == fast, "fast and JSONDecoder differ on \(String(decoding: text, as: UTF8.self))", sourceLocation: sourceLocation)
        return slow == fast
    }

    /// Records of every kind, with titles that need escapes and non-ASCII text.
    static func records() -> [EventRecord] {
        var entries = sampleEntries()
        entries.append(LogEntry(.added(id: LabelID(), title: "q\"uo\\te/s\n\t\u{1}\u{7F}é😀", isEnabled: true, index: 12_345)))
        entries.append(LogEntry(.renamed(id: LabelID(), oldTitle: "\u{2028}x", newTitle: ""), actor: "a\"b", note: "c\\d"))
        entries.append(LogEntry(.reordered(order: [])))
        entries.append(LogEntry(.reordered(order: (0..<50).map { _ in LabelID() })))
        var times = TimestampSamples.extremes.map(\.0)
        times.append(1_767_225_600_007)
        return entries.enumerated().map { i, entry in
            entry.record(seq: UInt64(i + 1), now: EventTimestamp(millisecondsSince1970: times[i % times.count]))
        }
    }

    @Test func everyExportedLineIsReadInPlaceAndAsJSONDecoderReadsIt() throws {
        for record in Self.records() {
            let line = Array(try Self.encoder.encode(record))
            let fast = try #require(Self.fast(line), "the fast reader declined an exported line: \(String(decoding: line, as: UTF8.self))")
            #expect(fast == Self.slow(line))
            #expect(fast.record(seq: record.seq, now: .now()) == record)
        }
    }

    @Test func anyOrderSpacingAndEscapesAreReadTheSame() throws {
        let id = "00000000-0000-4000-8000-00000000000A"
        let lines = [
            #"  { "title" : "A\u00e9\ud83d\ude00\/" , "kind":"added", "index":0,"isEnabled":false,"id":"\#(id)" }  "#,
            "{\"kind\":\"toggled\",\r\n\"id\":\"\(id.lowercased())\",\t\"isEnabled\":true,\"seq\":12}",
            #"{"kind":"rejected","reason":"r"}"#,
            #"{"kind":"moved","id":"\#(id)","from":0,"to":9007199254740993,"actor":"\u0000"}"#
        ]
        for line in lines {
            let bytes = Array(line.utf8)
            #expect(Self.fast(bytes) != nil, "declined: \(line)")
            #expect(Self.agree(bytes))
        }
    }

    @Test func whatItDoesNotReadItLeavesToJSONDecoder() throws {
        let id = "00000000-0000-4000-8000-000000000001"
        let declined = [
            #"{"kind":"added","id":"\#(id)","title":null,"isEnabled":true,"index":0}"#,  // null
            #"{"kind":"added","id":"\#(id)","title":"T","isEnabled":true,"index":1.0}"#,  // a fraction
            #"{"kind":"added","id":"\#(id)","title":"T","isEnabled":true,"index":-1}"#,  // a sign
            #"{"kind":"added","id":"\#(id)","title":"T","isEnabled":true,"index":01}"#,  // a leading zero (not JSON)
            #"{"kind":"added","id":"\#(id)","title":"T","title":"U","isEnabled":true,"index":0}"#,  // a repeated field
            #"{"kind":"added","id":"\#(id)","title":"T","isEnabled":true,"index":0,"extra":1}"#,  // an unknown field
            #"{"kind":"added","id":"\#(id)","title":"\ud800","isEnabled":true,"index":0}"#,  // a lone surrogate
            #"{"kind":"added","id":"\#(id)","title":"T","isEnabled":1,"index":0}"#,  // a number for a bool
            #"{"kind":"added","id":"{\#(id)}","title":"T","isEnabled":true,"index":0}"#,  // not a canonical id
            #"{"kind":"toggled","id":"\#(id)","isEnabled":true,"time":"2026-13-01T00:00:00.000Z"}"#,  // a bad time
            #"{"kind":"toggled","id":"\#(id)","isEnabled":true} x"#,  // trailing text
            #"{"kind":"toggled","id":"\#(id)"}"#,  // a missing field
            #"{"kind":"exploded","id":"\#(id)"}"#,  // an unknown kind
            #"["kind"]"#, "{", ""
        ]
        for line in declined { #expect(Self.fast(Array(line.utf8)) == nil, "read: \(line)") }
        // Raw control characters and invalid UTF-8 inside a string are not JSON.
        #expect(Self.fast(Array(#"{"kind":"rejected","reason":"a"#.utf8) + [0x0A] + Array(#""}"#.utf8)) == nil)
        #expect(Self.fast(Array(#"{"kind":"rejected","reason":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8)) == nil)
    }

    /// Random damage to exported lines (bytes dropped, changed, inserted, swapped):
    /// whatever the fast reader still reads, `JSONDecoder` reads the same way.
    @Test func damagedLinesAreReadAsJSONDecoderReadsThemOrDeclined() throws {
        var rng = SeededGenerator(seed: 7)
        let lines = try Self.records().map { Array(try Self.encoder.encode($0)) }
        let alphabet = Array(#"{}[]:,"\ u0123456789abcdefABCDEF-.etrunlsfx"#.utf8) + [0x00, 0x0A, 0x80, 0xC3, 0xFF]
        var read = 0
        var disagreements = 0
        for _ in 0..<20_000 {
            var line = lines.randomElement(using: &rng)!
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                guard !line.isEmpty else { break }
                let at = Int.random(in: 0..<line.count, using: &rng)
                switch Int.random(in: 0..<4, using: &rng) {
                case 0: line.remove(at: at)
                case 1: line[at] = alphabet.randomElement(using: &rng)!
                case 2: line.insert(alphabet.randomElement(using: &rng)!, at: at)
                default: line.swapAt(at, Int.random(in: 0..<line.count, using: &rng))
                }
            }
            if Self.fast(line) != nil { read += 1 }
            if !Self.agree(line) { disagreements += 1 }
        }
        #expect(disagreements == 0)
        #expect(read > 1000, "the damage left many lines readable, so the comparison means something: \(read)")
    }

    @Test func canonicalTimesReadAsTheFullReaderReadsThem() throws {
        var rng = SeededGenerator(seed: 8)
        for _ in 0..<20_000 {
            // Four-digit years, including days no month has (the full reader takes day ≤ 31) and leap seconds.
            let ms = Int64.random(in: -62_167_219_200_000...253_402_300_799_999, using: &rng)
            var text = Array(EventTimestamp(millisecondsSince1970: ms).iso8601.utf8)
            if Bool.random(using: &rng) { text[9] = UInt8(ascii: "0") + UInt8.random(in: 0...9, using: &rng) }
            if Bool.random(using: &rng) { text[8] = UInt8(ascii: "0") + UInt8.random(in: 0...3, using: &rng) }
            if Bool.random(using: &rng) { text[17] = UInt8(ascii: "0") + UInt8.random(in: 5...6, using: &rng) }
            // The full reader alone reads the lowercase `t`/`z` form, which the canonical one declines.
            var lower = text
            lower[10] = UInt8(ascii: "t")
            lower[23] = UInt8(ascii: "z")
            let canonical = text.withUnsafeBytes { EventTimestamp.canonical($0) }
            #expect(lower.withUnsafeBytes { EventTimestamp.canonical($0) } == nil)
            let full = lower.withUnsafeBytes { EventTimestamp.parse(utf8: $0) }
            #expect(canonical.map { .time($0) } ?? .malformed == full, "\(String(decoding: text, as: UTF8.self))")
        }
    }

    /// `JSONLine.write` of `record`'s view: what `export` prints.
    static func written(_ record: EventRecord) throws -> [UInt8] {
        var payload = ByteWriter(capacity: 64)
        record.encodePayload(into: &payload)
        return try payload.bytes.withUnsafeBytes { raw in
            var out: [UInt8] = []
            JSONLine.write(try EventRecordView.parse(payload: raw), to: &out)
            return out
        }
    }

    @Test func recordsAreWrittenFromTheirViewsExactlyAsJSONEncoderWritesThem() throws {
        for record in Self.records() {
            #expect(try Self.written(record) == Array(try Self.encoder.encode(record)), "\(record)")
        }
        var rng = SeededGenerator(seed: 9)
        let scalars: [Unicode.Scalar] = (0..<0x80).compactMap { Unicode.Scalar($0) } + ["é", "😀", "\u{2028}", "\u{FEFF}", "\u{10FFFF}", "数"]
        func text() -> String {
            String(String.UnicodeScalarView((0..<Int.random(in: 0...12, using: &rng)).map { _ in scalars.randomElement(using: &rng)! }))
        }
        func maybe() -> String? { Bool.random(using: &rng) ? text() : nil }
        for i in 0..<5_000 {
            let id = LabelID()
            let n = Int.random(in: 0...Int(LogLimits.maxIndex), using: &rng)
            let event: LabelEvent =
                switch i % 7 {
                case 0: .added(id: id, title: text(), isEnabled: Bool.random(using: &rng), index: n)
                case 1: .renamed(id: id, oldTitle: text(), newTitle: text())
                case 2: .toggled(id: id, isEnabled: Bool.random(using: &rng))
                case 3: .removed(id: id, index: n, title: text(), isEnabled: Bool.random(using: &rng))
                case 4: .moved(id: id, from: n, to: Int.random(in: 0...9, using: &rng))
                case 5: .reordered(order: (0..<Int.random(in: 0...3, using: &rng)).map { _ in LabelID() })
                default: .rejected(id: Bool.random(using: &rng) ? id : nil, command: text(), reason: text())
                }
            let ms =
                Bool.random(using: &rng)
                ? Int64.random(in: -62_167_219_200_001...253_402_300_800_000, using: &rng) : Int64.random(in: .min ... .max, using: &rng)
            let record = EventRecord(
                seq: UInt64.random(in: 1...UInt64.max >> 1, using: &rng), timestamp: EventTimestamp(millisecondsSince1970: ms),
                actor: maybe(), note: maybe(), event: event)
            let written = try Self.written(record)
            let encoded = Array(try Self.encoder.encode(record))
            #expect(written == encoded, "\(String(decoding: written, as: UTF8.self)) ≠ \(String(decoding: encoded, as: UTF8.self))")
            if written != encoded { break }
        }
    }
}
