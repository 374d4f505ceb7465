import Foundation
import LabelStoreTestSupport
import Testing

@testable import EventLog

@Suite("Codec")
struct CodecTests {
    @Test func crc32cMatchesTheStandardCheckValues() {
        #expect(CRC32C.checksum("123456789") == 0xE306_9283)
        #expect(CRC32C.checksum([UInt8]()) == 0)
        #expect(CRC32C.checksum([UInt8](repeating: 0, count: 32)) == 0x8A91_36AA)
        #expect(CRC32C.checksum([UInt8](repeating: 0xff, count: 32)) == 0x62A8_AB43)
        #expect(CRC32C.checksum(Array(0..<32)) == 0x46DD_794E)
    }

    @Test func crc32cIsTheSameInOneCallOrInPieces() {
        var rng = SeededGenerator(seed: 7)
        let bytes = (0..<1000).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let whole = CRC32C.checksum(bytes)
        for split in [0, 1, 7, 8, 9, 500, 999, 1000] {
            let first = Array(bytes[..<split]).withUnsafeBytes { CRC32C.update(0, $0) }
            let both = Array(bytes[split...]).withUnsafeBytes { CRC32C.update(first, $0) }
            #expect(both == whole, "split at \(split)")
        }
    }

    @Test func everyEventKindRoundTrips() throws {
        let records = sampleEntries().enumerated().map { i, entry in
            entry.record(seq: UInt64(i + 1), now: EventTimestamp(millisecondsSince1970: -5_000 + Int64(i) * 1_000_003))
        }
        #expect(Set(records.map(\.event.kind)) == Set(LabelEvent.Kind.allCases))
        for record in records {
            let decoded = try EventRecord.decode(payload: try record.encodedPayload())
            #expect(decoded == record)
        }
    }

    /// Titles by name, so the test log stays readable.
    static let titles: [String: String] = [
        "empty": "", "one letter": "a", "ascii": "Ring Two", "japanese": "日本語のラベル",
        "emoji, combining mark, RTL override": "👩🏽‍💻 e\u{301} \u{202E}rtl",
        "16 KiB of two-byte characters": String(repeating: "ü", count: LogLimits.maxTitleBytes / 2)
    ]

    @Test(arguments: titles.keys.sorted())
    func titlesRoundTripExactly(name: String) throws {
        let title = Self.titles[name]!
        let record = EventRecord(
            seq: 9, timestamp: EventTimestamp(millisecondsSince1970: 1), actor: title.isEmpty ? nil : "actor \(title.prefix(3))",
            note: title, event: .renamed(id: fixedID(3), oldTitle: title, newTitle: title + "!").self)
        // The note limit is smaller than the title limit; use it only when it fits.
        var r = record
        if title.utf8.count > LogLimits.maxNoteBytes { r.note = nil }
        if title.utf8.count + 1 > LogLimits.maxTitleBytes { r.event = .renamed(id: fixedID(3), oldTitle: title, newTitle: "x") }
        #expect(try EventRecord.decode(payload: try r.encodedPayload()) == r)
    }

    @Test func aTitleOverTheLimitIsRejectedBeforeEncoding() {
        let title = String(repeating: "x", count: LogLimits.maxTitleBytes + 1)
        let record = EventRecord(seq: 1, timestamp: .now(), event: .added(id: fixedID(1), title: title, isEnabled: true, index: 0))
        #expect(throws: EventLogError.self) { try record.encodedPayload() }
        do {
            _ = try record.encodedPayload()
        } catch {
            #expect(error.code == .invalidEvent)
            #expect(error.message.contains("16384"))
        }
    }

    @Test func invalidUTF8InATitleIsAClearDecodeError() throws {
        let record = EventRecord(
            seq: 1, timestamp: EventTimestamp(millisecondsSince1970: 0),
            event: .added(id: fixedID(1), title: "abc", isEnabled: true, index: 0))
        var payload = try record.encodedPayload()
        let at = payload.count - 2  // inside "abc"
        payload[at] = 0xff
        do {
            _ = try EventRecord.decode(payload: payload)
            Issue.record("decoded invalid UTF-8")
        } catch {
            #expect(error.code == .corruptRecord)
            #expect(error.message.contains("UTF-8"))
        }
    }

    @Test func truncatedOrPaddedPayloadsNeverDecode() throws {
        for entry in sampleEntries() {
            let payload = try entry.record(seq: 3, now: EventTimestamp(millisecondsSince1970: 77)).encodedPayload()
            for cut in 0..<payload.count {
                #expect(throws: EventLogError.self) { try EventRecord.decode(payload: payload[..<cut]) }
            }
            #expect(throws: EventLogError.self) { try EventRecord.decode(payload: payload + [0]) }
        }
    }

    /// Regression (found by the fuzzer): an overlong varint decoded, so two byte strings meant the same record.
    @Test func overlongVarintsAreRejectedSoTheEncodingIsCanonical() throws {
        let record = EventRecord(
            seq: 5, timestamp: EventTimestamp(millisecondsSince1970: 0), event: .toggled(id: fixedID(1), isEnabled: true))
        let payload = try record.encodedPayload()
        #expect(payload[0] == 5)
        let overlong = [0x85, 0x00] + payload.dropFirst()
        do {
            _ = try EventRecord.decode(payload: overlong)
            Issue.record("decoded an overlong varint")
        } catch {
            #expect(error.message.contains("overlong varint"))
        }
    }

    /// The reader has a word-at-a-time path (8+ bytes left) and a byte loop;
    /// both must accept exactly the canonical varints, with the same errors.
    @Test func varintsDecodeAndFailTheSameWithOrWithoutBytesAfterThem() throws {
        func read(_ bytes: [UInt8]) -> Result<UInt64, DecodeFailure> {
            bytes.withUnsafeBytes { raw in
                var r = ByteReader(raw)
                return Result { () throws(DecodeFailure) -> UInt64 in try r.varint() }
            }
        }
        var values: [UInt64] = [0, 1, 127, 128, 300, 16_383, 16_384, UInt64(Int32.max), 1 << 48, 1 << 56 - 1, 1 << 56, 1 << 63, .max]
        for bits in 0..<64 { values += [1 << UInt64(bits), (1 << UInt64(bits)) - 1] }
        for value in values {
            var w = ByteWriter()
            w.varint(value)
            for padding in [0, 1, 8, 12] {
                guard case .success(let decoded) = read(w.bytes + Array(repeating: 0xAB, count: padding)) else {
                    Issue.record("\(value) with \(padding) bytes after it did not decode")
                    continue
                }
                #expect(decoded == value)
            }
            // Every overlong form (a zero group added at the top) is refused, by both paths.
            if w.bytes.count < 10 {
                var overlong = w.bytes
                overlong[overlong.count - 1] |= 0x80
                overlong.append(0)
                for padding in [0, 9] {
                    guard case .failure(let failure) = read(overlong + Array(repeating: 0x01, count: padding)) else {
                        Issue.record("overlong \(overlong) decoded")
                        continue
                    }
                    #expect(failure.reason == "overlong varint")
                }
            }
        }
        for padding in [0, 9] {
            guard
                case .failure(let tooBig) = read(
                    [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02] + Array(repeating: 0, count: padding)),
                case .failure(let tooLong) = read(Array(repeating: 0x80, count: 10) + [0x01] + Array(repeating: 0, count: padding)),
                case .failure(let cut) = read([0x80, 0x80])
            else {
                Issue.record("a bad varint decoded")
                continue
            }
            #expect(tooBig.reason == "varint overflows 64 bits")
            #expect(tooLong.reason == "varint overflows 64 bits")  // an eleventh byte is never reached
            #expect(cut.reason == "unexpected end of record in a varint")
        }
    }

    @Test func anAbsurdReorderCountIsRefusedWithoutAllocating() throws {
        var w = ByteWriter()
        w.varint(1)
        w.zigzag(0)
        w.u8(LabelEvent.Kind.reordered.code)
        w.u8(0)
        w.varint(UInt64(Int32.max))  // claims two billion ids in a few bytes
        do {
            _ = try EventRecord.decode(payload: w.bytes)
            Issue.record("decoded an absurd reorder")
        } catch {
            #expect(error.message.contains("reorder count"))
        }
    }

    @Test func kindNamesAndCodesAreStable() {
        #expect(LabelEvent.Kind.allCases.map(\.rawValue) == ["added", "renamed", "toggled", "removed", "moved", "reordered", "rejected"])
        #expect(LabelEvent.Kind.allCases.map(\.code) == [1, 2, 3, 4, 5, 6, 7])
        #expect(LabelEvent.Kind(code: 0) == nil && LabelEvent.Kind(code: 8) == nil)
    }

    @Test func timestampsFormatAndParseAsISO8601() {
        let t = EventTimestamp(millisecondsSince1970: 1_764_495_302_125)
        #expect(t.iso8601 == "2025-11-30T09:35:02.125Z")
        #expect(EventTimestamp(iso8601: t.iso8601) == t)
        #expect(EventTimestamp(iso8601: "2025-11-30T10:35:02.125+01:00") == t)
        #expect(EventTimestamp(iso8601: "1970-01-01T00:00:00Z")?.millisecondsSince1970 == 0)
        #expect(EventTimestamp(iso8601: "1969-12-31T23:59:59.999Z")?.millisecondsSince1970 == -1)
        #expect(EventTimestamp(millisecondsSince1970: -1).iso8601 == "1969-12-31T23:59:59.999Z")
        #expect(EventTimestamp(iso8601: "2025-11-30")?.iso8601 == "2025-11-30T00:00:00.000Z")
        // Regression (found by the JSON import fuzzer): more than three fraction digits crashed the parser.
        #expect(EventTimestamp(iso8601: "2025-11-30T09:35:02.12599Z") == t)
        #expect(EventTimestamp(iso8601: "2025-11-30T09:35:02.1Z")?.millisecondsSince1970 == 1_764_495_302_100)
        for bad in ["", "yesterday", "2025-13-01", "2025-11-30T25:00", "2025-11-30T10:00:00.Z", "2025-11-30T10:00:00Zjunk"] {
            #expect(EventTimestamp(iso8601: bad) == nil, "\(bad)")
        }
    }

    @Test func eventRecordsAndIDsAreCodableValues() throws {
        let id = fixedID(5)
        let data = try JSONEncoder().encode(id)
        #expect(String(decoding: data, as: UTF8.self) == "\"\(id.description)\"")
        #expect(try JSONDecoder().decode(LabelID.self, from: data) == id)
        #expect(LabelID(id.description.uppercased()) == id)
        #expect(LabelID("not-a-uuid") == nil)
    }
}

@Suite("CRC-32C implementations")
struct CRCImplementationTests {
    @Test func hardwareAndPortableChecksumsAgreeOnEveryLengthAndAlignment() {
        var rng = SeededGenerator(seed: 99)
        let bytes = (0..<4096).map { _ in UInt8.random(in: 0...255, using: &rng) }
        bytes.withUnsafeBytes { raw in
            for start in 0..<9 {
                for length in [0, 1, 3, 7, 8, 9, 15, 16, 17, 63, 64, 65, 1000, 4096 - start] {
                    let slice = UnsafeRawBufferPointer(rebasing: raw[start..<start + length])
                    let seed = UInt32(start * 7919)
                    #expect(CRC32C.update(seed, slice) == CRC32C.portableUpdate(seed, slice), "start \(start) length \(length)")
                }
            }
        }
        #expect(Array("123456789".utf8).withUnsafeBytes { CRC32C.portableUpdate(0, $0) } == 0xE306_9283)
    }
}

@Suite("UTF-8 validation")
struct UTF8ValidationTests {
    /// The decoder's validator must agree with the standard library's on every input.
    @Test func theValidatorAgreesWithTheStandardLibraryOnRandomAndTrickyBytes() {
        var rng = SeededGenerator(seed: 8)
        var inputs: [[UInt8]] = [
            [0xC0, 0x80], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xF8, 0x88, 0x80, 0x80, 0x80],
            [0xE2, 0x82], [0xF0, 0x9F, 0x98], Array("e\u{301} 👩🏽‍💻 日本".utf8), [0x7F], [0xC2, 0x80], [0xEF, 0xBF, 0xBF],
            [0xF4, 0x8F, 0xBF, 0xBF]
        ]
        for _ in 0..<20_000 {
            let length = Int.random(in: 0...24, using: &rng)
            inputs.append(
                (0..<length).map { _ in
                    Bool.random(using: &rng) ? UInt8.random(in: 0...0x7F, using: &rng) : UInt8.random(in: 0x80...0xFF, using: &rng)
                })
        }
        for input in inputs {
            let expected = String(validating: input, as: UTF8.self) != nil
            #expect(input.withUnsafeBytes { ByteReader.isValidUTF8($0) } == expected, "\(input)")
        }
    }

    /// Mostly-valid text is where the word-at-a-time skipping matters: one
    /// damaged byte at any offset, on either side of a word boundary.
    @Test func theValidatorFindsOneBadByteAnywhereInMostlyASCIIText() {
        var rng = SeededGenerator(seed: 81)
        let pieces = ["a", "Ring ", "Büro", "東京", "🏷️", "Crème ", "Ωμέγα", "x1234567", "\u{7F}", "\u{80}", "\u{10FFFF}"]
        for _ in 0..<6_000 {
            var text = ""
            while text.utf8.count < Int.random(in: 0...70, using: &rng) { text += pieces.randomElement(using: &rng)! }
            var bytes = Array(text.utf8)
            #expect(bytes.withUnsafeBytes { ByteReader.isValidUTF8($0) }, "\(bytes)")
            guard !bytes.isEmpty else { continue }
            bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            let expected = String(validating: bytes, as: UTF8.self) != nil
            #expect(bytes.withUnsafeBytes { ByteReader.isValidUTF8($0) } == expected, "\(bytes)")
        }
    }
}
