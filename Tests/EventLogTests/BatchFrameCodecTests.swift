import Foundation
import LabelStoreTestSupport
import Testing

@testable import EventLog

/// The batch frame body of log file format 4 (docs/FORMAT.md, "Batch frames
/// (version 4)"): what it round-trips, what it costs, what it refuses.
@Suite("BatchFrameCodec")
struct BatchFrameCodecTests {
    // MARK: Round trips

    @Test func randomRunsOfRecordsRoundTripByteForByte() throws {
        var kinds = Set<EventKind>()
        for seed in 1...300 as ClosedRange<UInt64> {
            var random = RandomRecords(seed: seed)
            let records = random.run(count: Int(seed % 40) + 1)
            kinds.formUnion(records.map(\.event.kind))
            let decoded = try BatchFrameDecoder.decode(try BatchFrameEncoder.encode(records))
            #expect(decoded == records, "seed \(seed)")
            // `==` on records compares texts as Unicode (é == e + U+0301); the payloads compare bytes.
            #expect(try decoded.map { try $0.encodedPayload() } == records.map { try $0.encodedPayload() }, "seed \(seed)")
        }
        #expect(kinds == Set(EventKind.allCases))
    }

    @Test func theCanonicalPayloadOfEachRecordIsItsFormat2Payload() throws {
        for seed in 1...100 as ClosedRange<UInt64> {
            var random = RandomRecords(seed: seed &* 7_919)
            let records = random.run(count: Int(seed % 25) + 1)
            let body = try BatchFrameEncoder.encode(records)
            #expect(try BatchFrameDecoder.canonicalPayloads(body) == records.map { try $0.encodedPayload() }, "seed \(seed)")
            var visited: [(EventRecord, [UInt8])] = []
            try body.withBytes { raw throws(EventLogError) in
                try BatchFrameDecoder.forEachCanonicalPayload(in: raw) { record, payload in visited.append((record, Array(payload))) }
            }
            #expect(visited.map(\.0) == records)
            for (record, payload) in visited { #expect(try EventRecord.decode(payload: payload) == record) }
        }
    }

    @Test func aDecodedBodyEncodesToTheSameBytes() throws {
        for seed in 1...100 as ClosedRange<UInt64> {
            var random = RandomRecords(seed: seed &+ 1_000)
            let body = try BatchFrameEncoder.encode(random.run(count: Int(seed % 50) + 1))
            #expect(try BatchFrameEncoder.encode(try BatchFrameDecoder.decode(body)) == body, "seed \(seed)")
        }
    }

    @Test func titlesEqualAsTextButNotAsBytesStayApart() throws {
        let a = fixedID(1)
        let composed = "Caf\u{E9} Cr\u{E8}me", decomposed = "Cafe\u{301} Cre\u{300}me"
        #expect(composed == decomposed)  // as Swift compares strings
        let records = run(
            [
                .added(id: a, title: composed, isEnabled: true, index: 0),
                .renamed(id: a, oldTitle: decomposed, newTitle: composed),
                .removed(id: a, index: 0, title: decomposed, isEnabled: true)
            ], actors: ["\u{C5}sa", "A\u{30A}sa", nil])
        let body = try BatchFrameEncoder.encode(records)
        // Neither title matches the last stated one byte for byte: no same-title bit.
        #expect(try BatchFrameDecoder.canonicalPayloads(body) == records.map { try $0.encodedPayload() })
        #expect(try BatchFrameEncoder.encode(BatchFrameDecoder.decode(body)) == body)
    }

    @Test func theExampleOfTheSpecIsTheEncodersBytes() throws {
        // docs/FORMAT.md, "Batch frames (version 4)", "Example", written out by hand.
        let a = fixedID(1)
        let records = [
            EventRecord(
                seq: 7, timestamp: ms(1_000), actor: "ana", event: .added(id: a, title: "Work Home", isEnabled: true, index: 0)),
            EventRecord(seq: 8, timestamp: ms(1_250), event: .renamed(id: a, oldTitle: "Work Home", newTitle: "Home Work")),
            EventRecord(
                seq: 9, timestamp: ms(1_250), actor: "ana", event: .removed(id: a, index: 0, title: "Home Work", isEnabled: true))
        ]
        let idBytes: [UInt8] = [0x01, 0x01, 0x02, 0x03, 0x04, 0x05, 0x40, 0x07, 0x80, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x01]
        let header: [UInt8] = [0x07, 0x03, 0xd0, 0x0f]
        let added: [UInt8] = [0x09, 0x00, 0x00, 0x03, 0x61, 0x6e, 0x61, 0x00]
        let addedRest: [UInt8] = [0x00, 0x01, 0x02, 0x08, 0x57, 0x6f, 0x72, 0x6b, 0x08, 0x48, 0x6f, 0x6d, 0x65]
        let renamed: [UInt8] = [0x22, 0xf4, 0x03, 0x01, 0x02, 0x03, 0x01]
        let removed: [UInt8] = [0x2c, 0x00, 0x01, 0x01, 0x00, 0x01]
        let expected = header + added + idBytes + addedRest + renamed + removed
        #expect(try BatchFrameEncoder.encode(records) == expected)
        #expect(try BatchFrameDecoder.decode(expected) == records)
        #expect(expected.count == 54)
        #expect(try records.map { try $0.encodedPayload().count }.reduce(0, +) == 115)
    }

    @Test(arguments: EventKind.allCases)
    func aFrameOfOneRecordRoundTrips(kind: EventKind) throws {
        var random = RandomRecords(seed: UInt64(kind.code))
        var record: EventRecord
        repeat { record = random.run(count: 1)[0] } while record.event.kind != kind
        let body = try BatchFrameEncoder.encode([record])
        #expect(try BatchFrameDecoder.decode(body) == [record])
        #expect(try BatchFrameDecoder.canonicalPayloads(body) == [try record.encodedPayload()])
    }

    @Test func aFrameOfAThousandRecordsRoundTrips() throws {
        var random = RandomRecords(seed: 1_000)
        let records = random.run(count: 1_000, firstSeq: 123_456_789)
        let body = try BatchFrameEncoder.encode(records)
        #expect(try BatchFrameDecoder.decode(body) == records)
        #expect(try BatchFrameDecoder.canonicalPayloads(body) == records.map { try $0.encodedPayload() })
    }

    @Test func aFrameOfTheMostRecordsRoundTripsAndOneMoreIsRefused() throws {
        let n = BatchFrame.maxRecords
        let records = (0..<n).map { (i: Int) -> EventRecord in
            let event = LabelEvent.toggled(id: fixedID(UInt8(i % 200)), isEnabled: i % 3 == 0)
            return EventRecord(seq: UInt64(i + 1), timestamp: ms(Int64(i)), event: event)
        }
        #expect(try BatchFrameDecoder.decode(try BatchFrameEncoder.encode(records)) == records)
        let oneMore = records + [EventRecord(seq: UInt64(n + 1), timestamp: ms(0), event: .toggled(id: fixedID(1), isEnabled: true))]
        #expect(invalidEvent { try BatchFrameEncoder.encode(oneMore) }?.message.contains("at most \(n) records") == true)
    }

    @Test func fieldsAtTheirLimitsRoundTrip() throws {
        let max = LogLimits.maxTitleBytes
        let titles = [
            String(repeating: "x", count: max),  // one word of the largest size
            String(repeating: " ", count: max),  // the most words: all empty
            String(repeating: "ab ", count: max / 3) + "a",  // many references to one word
            String(repeating: "\u{1F3F7}", count: max / 4),  // four-byte characters up to the limit
            String(repeating: "\t \u{A0}", count: max / 4)  // tabs and no-break spaces inside words
        ]
        for title in titles { #expect(title.utf8.count <= max && title.utf8.count > max - 4) }
        let a = fixedID(1), b = fixedID(2)
        var records = run(
            titles.enumerated().flatMap { i, title -> [LabelEvent] in
                [
                    .added(id: a, title: title, isEnabled: true, index: LogLimits.maxIndex),
                    .renamed(id: a, oldTitle: title, newTitle: titles[(i + 1) % titles.count]),
                    .removed(id: a, index: LogLimits.maxIndex, title: title, isEnabled: false)
                ]
            } + [
                .moved(id: b, from: LogLimits.maxIndex, to: 0),
                .rejected(
                    id: nil, command: String(repeating: "c", count: LogLimits.maxReasonBytes),
                    reason: String(repeating: "r", count: LogLimits.maxReasonBytes))
            ], actors: [String(repeating: "\u{E9}", count: LogLimits.maxActorBytes / 2)],
            firstSeq: UInt64.max - 16)
        records[0].note = String(repeating: "n", count: LogLimits.maxNoteBytes)
        // Times at both ends of Int64: deltas wrap.
        for i in records.indices { records[i].timestamp = ms(i % 2 == 0 ? Int64.min : Int64.max) }
        #expect(records.last?.seq == UInt64.max)
        let body = try BatchFrameEncoder.encode(records)
        #expect(try BatchFrameDecoder.decode(body) == records)
        #expect(try BatchFrameDecoder.canonicalPayloads(body) == records.map { try $0.encodedPayload() })
        #expect(try BatchFrameEncoder.encode(BatchFrameDecoder.decode(body)) == body)
    }

    // MARK: What the same-title bit saves

    @Test func aRemovalOfALabelRenamedInTheFrameCostsNoTitleBytes() throws {
        let a = fixedID(1)
        let old = (0..<40).map { "old\($0)" }.joined(separator: " "), new = (0..<40).map { "new\($0)" }.joined(separator: " ")
        let added: LabelEvent = .added(id: a, title: old, isEnabled: true, index: 0)
        let renamed: LabelEvent = .renamed(id: a, oldTitle: old, newTitle: new)
        let before = try BatchFrameEncoder.encode(run([added, renamed], spacing: 0))
        let removal = try BatchFrameEncoder.encode(
            run([added, renamed, .removed(id: a, index: 0, title: new, isEnabled: true)], spacing: 0))
        // The removal adds its kind byte, a zero delta, an id reference, index 0 and a bool: five bytes, no title.
        #expect(removal.count - before.count == 5)
        #expect(removal[before.count] == EventKind.removed.code | BatchFrame.sameTitleFlag)
        // A removal stating another title than the last stated one pays for it.
        let other = try BatchFrameEncoder.encode(run([added, renamed, .removed(id: a, index: 0, title: old, isEnabled: true)], spacing: 0))
        #expect(other.count - before.count > 40)
        #expect(other[before.count] == EventKind.removed.code)
    }

    @Test func aRenameOfALabelStatedInTheFrameCostsNoOldTitleBytes() throws {
        let a = fixedID(1), b = fixedID(2)
        let title = "Quarterly budget review 2026"
        let added = try BatchFrameEncoder.encode(run([.added(id: a, title: title, isEnabled: true, index: 0)], spacing: 0))
        let renamed = try BatchFrameEncoder.encode(
            run([.added(id: a, title: title, isEnabled: true, index: 0), .renamed(id: a, oldTitle: title, newTitle: "")], spacing: 0))
        // Kind, delta, id reference, the new (empty) title's word count: four bytes.
        #expect(renamed.count - added.count == 4)
        #expect(renamed[added.count] == EventKind.renamed.code | BatchFrame.sameTitleFlag)
        // Another label with the same title has no last stated title of its own: its words are references, no flag.
        let other = try BatchFrameEncoder.encode(
            run([.added(id: a, title: title, isEnabled: true, index: 0), .renamed(id: b, oldTitle: title, newTitle: "")], spacing: 0))
        #expect(other[added.count] == EventKind.renamed.code)
        #expect(other.count - added.count == 4 + 16 + 1 + 4)  // + a literal id, + 4 word references
    }

    // MARK: What the encoder refuses

    @Test func theEncoderRefusesWhatAFrameCannotHold() throws {
        func record(_ seq: UInt64, _ title: String = "t") -> EventRecord {
            EventRecord(seq: seq, timestamp: ms(0), event: .added(id: fixedID(1), title: title, isEnabled: true, index: 0))
        }
        #expect(invalidEvent { try BatchFrameEncoder.encode([EventRecord]()) }?.message.contains("at least one record") == true)
        #expect(invalidEvent { try BatchFrameEncoder.encode([record(4), record(6)]) }?.message.contains("consecutive seqs") == true)
        #expect(invalidEvent { try BatchFrameEncoder.encode([record(4), record(4)]) }?.message.contains("expected 5") == true)
        #expect(invalidEvent { try BatchFrameEncoder.encode([record(0), record(1)]) }?.message.contains("seq must be at least 1") == true)
        #expect(invalidEvent { try BatchFrameEncoder.encode([record(UInt64.max), record(0)]) } != nil)
        let long = String(repeating: "x", count: LogLimits.maxTitleBytes + 1)
        #expect(invalidEvent { try BatchFrameEncoder.encode([record(1), record(2, long)]) }?.message.contains("16384") == true)
        // U+0000: refused for an append, kept as it is when re-encoding records read from an old file.
        let nul = [record(1, "a\u{0}b")]
        #expect(invalidEvent { try BatchFrameEncoder.encode(nul) }?.message.contains("U+0000") == true)
        #expect(try BatchFrameDecoder.decode(try BatchFrameEncoder.encode(nul, allowingNUL: true)) == nul)
        // On a refusal, the output is as it was.
        var out = ByteWriter()
        out.u8(0xAB)
        #expect(throws: EventLogError.self) { try BatchFrameEncoder.encode([record(1), record(3)], into: &out) }
        #expect(out.bytes == [0xAB])
    }

    @Test func payloadsOver64MiBInAllAreRefusedByTheEncoderAndTheDecoder() throws {
        // Each record decodes to a title of 16,383 bytes from three bytes of word references: what the body does not bound.
        let word = String(repeating: "w", count: 8_191)
        let n = BatchFrame.maxCanonicalBytes / 16_400 + 10
        let records = (0..<n).map { i in
            EventRecord(
                seq: UInt64(i + 1), timestamp: ms(0),
                event: .added(id: fixedID(1), title: word + " " + word, isEnabled: true, index: i % 100))
        }
        #expect(invalidEvent { try BatchFrameEncoder.encode(records) }?.message.contains("at most \(BatchFrame.maxCanonicalBytes)") == true)
        // The same records coded by hand: the first states the id and the word, every later one is eight bytes of references.
        func body(count: Int) -> [UInt8] {
            var first: [UInt8] = [EventKind.added.code, 0x00, 0x00] + fixedID(1).bytes + [0x00, 0x01, 0x02] + Body.varint(16_382)
            first += [UInt8](repeating: 0x77, count: 8_191) + [0x01]
            return Body.frame(
                first + (1..<count).flatMap { i in [EventKind.added.code, 0x00, 0x01, UInt8(i % 100), 0x01, 0x02, 0x01, 0x01] },
                count: count)
        }
        #expect(try BatchFrameDecoder.decode(body(count: 1_000)) == Array(records.prefix(1_000)))
        #expect(corruption(body(count: n))?.message.contains("canonical payloads reach") == true)
    }

    // MARK: Sizes

    @Test func aRealisticEditingStreamTakesWellUnderFormat2() throws {
        var stream = EditingStream(seed: 0x1A_BE15_EED5, liveLabels: 100_000)
        var batch = 0, format2 = 0
        for frame in 0..<5 {
            let records = stream.next(1_000, firstSeq: UInt64(100_001 + frame * 1_000))
            let body = try BatchFrameEncoder.encode(records)
            #expect(try BatchFrameDecoder.decode(body) == records)
            batch += body.count
            format2 += try records.map { try $0.encodedPayload().count + 12 }.reduce(0, +)
        }
        let perEvent = Double(batch) / 5_000, format2PerEvent = Double(format2) / 5_000
        print("batch frames of 1,000: \(perEvent) bytes/event; format 2: \(format2PerEvent) bytes/event")
        #expect(perEvent < 0.75 * format2PerEvent)
    }

    // MARK: Corruption

    @Test func everyTruncationOfASmallBodyIsCorruption() throws {
        let records = sampleEntries().enumerated().map { i, entry in entry.record(seq: UInt64(i + 1), now: ms(1_000 + Int64(i))) }
        let body = try BatchFrameEncoder.encode(records)
        for length in 0..<body.count {
            #expect(corruption(Array(body[..<length])) != nil, "\(length) of \(body.count) bytes")
        }
        #expect(corruption(body + [0]) != nil)
        #expect(try BatchFrameDecoder.decode(body) == records)
    }

    @Test func randomByteFlipsEitherThrowOrDecodeToRecordsThatEncodeToTheFlippedBytes() throws {
        var decodedCount = 0
        for seed in 1...1_500 as ClosedRange<UInt64> {
            var random = RandomRecords(seed: seed &* 31)
            let body = try BatchFrameEncoder.encode(random.run(count: Int(seed % 12) + 1))
            var flipped = body
            for _ in 0...Int.random(in: 0...2, using: &random.rng) {
                let at = Int.random(in: 0..<flipped.count, using: &random.rng)
                flipped[at] = UInt8.random(in: 0...255, using: &random.rng)
            }
            do {
                let decoded = try BatchFrameDecoder.decode(flipped)
                decodedCount += 1
                // A body that decodes is canonical: it is the one body of what it decodes to.
                #expect(try BatchFrameEncoder.encode(decoded, allowingNUL: true) == flipped, "seed \(seed)")
            } catch {
                #expect(error.code == .corruptRecord, "seed \(seed)")
                #expect(error.message.contains("at byte"), "seed \(seed)")
            }
        }
        print("byte flips: \(decodedCount) of 1500 bodies still decoded")
    }

    @Test func countsBeyondTheBytesLeftThrowBeforeAnythingIsAllocated() throws {
        var huge = Body()
        huge.header(seq: 1, count: 1 << 40, time: 0)
        #expect(corruption(huge.bytes)?.message.contains("record count 1099511627776 exceeds the limit 65536") == true)
        var many = Body()
        many.header(seq: 1, count: 60_000, time: 0)
        many.bytes += [UInt8](repeating: 0, count: 30)
        #expect(corruption(many.bytes)?.message.contains("needs at least 180000 bytes") == true)
        // A reorder, a title and a word that claim more than the body holds.
        let reorder = Body.one(EventKind.reordered.code, fields: Body.varint(UInt64(LogLimits.maxReorderCount)) + [0x00])
        #expect(corruption(reorder)?.message.contains("reorder count 4194300 needs at least 4194300 bytes") == true)
        let overReorder = Body.one(EventKind.reordered.code, fields: Body.varint(UInt64(LogLimits.maxReorderCount + 1)) + [0x00])
        #expect(corruption(overReorder)?.message.contains("exceeds the limit") == true)
        let title = Body.one(EventKind.added.code, fields: [0x00] + fixedID(1).bytes + [0x00, 0x01] + Body.varint(16_385) + [0x00])
        #expect(corruption(title)?.message.contains("16385 words needs at least 16385 bytes") == true)
        let overTitle = Body.one(EventKind.added.code, fields: [0x00] + fixedID(1).bytes + [0x00, 0x01] + Body.varint(16_386) + [0x00])
        #expect(corruption(overTitle)?.message.contains("title word count 16386 exceeds the limit 16385") == true)
        let word = Body.one(EventKind.added.code, fields: [0x00] + fixedID(1).bytes + [0x00, 0x01, 0x01] + Body.varint(1 << 50))
        #expect(corruption(word)?.message.contains("is 562949953421312 bytes; the limit is 16384") == true)
    }

    /// Bodies made by hand from docs/FORMAT.md, "Corruption", one fault each.
    static let corruptions: [(String, [UInt8], String)] = {
        let id = fixedID(1).bytes
        let toggled = EventKind.toggled.code, renamed = EventKind.renamed.code, removed = EventKind.removed.code
        let added = EventKind.added.code, rejected = EventKind.rejected.code
        let addA: [UInt8] = [added, 0x00, 0x00] + id + [0x00, 0x01, 0x01, 0x02, 0x61]  // added A "a"
        let xs = [UInt8](repeating: 0x78, count: 8_191)  // a literal word of 8,191 bytes follows its code, 16,382
        return [
            ("first seq 0", [0x00, 0x01, 0x00, toggled, 0x00, 0x00] + id + [0x01], "first seq 0"),
            ("record count 0", [0x01, 0x00, 0x00, 0x00, 0x00, 0x00], "record count 0"),
            ("an overlong varint", [0x81, 0x00, 0x01, 0x00, toggled, 0x00, 0x00] + id + [0x01], "overlong varint"),
            (
                "seqs past 2^64 - 1",
                Body.varint(UInt64.max) + [0x02, 0x00] + [toggled, 0x00, 0x00] + id + [0x01, toggled, 0x00, 0x01, 0x01],
                "run past"
            ),
            ("kind 0", Body.frame([0x00, 0x00, 0x00] + id + [0x01]), "unknown event kind 0"),
            ("bit 6", Body.frame([toggled | 0x40, 0x00, 0x00] + id + [0x01]), "flag bits 0x40"),
            ("bit 7", Body.frame([toggled | 0x80, 0x00, 0x00] + id + [0x01]), "flag bits 0x80"),
            ("bit 5 on a toggle", Body.frame([toggled | 0x20, 0x00, 0x00] + id + [0x01]), "flag bits 0x20"),
            ("bit 5 without a stated title", Body.frame([renamed | 0x20, 0x00, 0x00] + id + [0x00]), "no title stated earlier"),
            ("a first delta of 1", Body.frame([toggled, 0x02, 0x00] + id + [0x01]), "time delta is 1, not 0"),
            ("an even id code", Body.frame([toggled, 0x00, 0x02] + id + [0x01]), "id code 2"),
            ("an id reference too far", Body.frame([toggled, 0x00, 0x01, 0x01]), "id reference 0 names no id"),
            (
                "a literal id twice", Body.frame([toggled, 0x00, 0x00] + id + [0x01, toggled, 0x00, 0x00] + id + [0x00], count: 2),
                "is id 0 of the frame already"
            ),
            ("bool 2", Body.frame([toggled, 0x00, 0x00] + id + [0x02]), "isEnabled byte is 2"),
            ("a trailing byte", Body.frame([toggled, 0x00, 0x00] + id + [0x01, 0x00]), "1 bytes follow the last record"),
            ("an index over 2^31 - 1", Body.frame([added, 0x00, 0x00] + id + Body.varint(1 << 31) + [0x01, 0x00]), "exceeds the limit"),
            ("an even string code", Body.frame([toggled | BatchFrame.actorFlag, 0x00, 0x02, 0x00] + id + [0x01]), "actor code 2"),
            (
                "a string reference too far", Body.frame([toggled | BatchFrame.actorFlag, 0x00, 0x01, 0x00] + id + [0x01]),
                "actor reference 0 names no string"
            ),
            (
                "a literal string twice",
                Body.frame(
                    [toggled | BatchFrame.actorFlag | BatchFrame.noteFlag, 0x00, 0x00, 0x01, 0x61, 0x00, 0x01, 0x61, 0x00] + id + [0x01]),
                "literal note is string 0 of the frame already"
            ),
            (
                "a note referenced as an actor over its limit",
                Body.frame(
                    [toggled | BatchFrame.noteFlag, 0x00, 0x00] + Body.varint(2_000) + [UInt8](repeating: 0x6e, count: 2_000) + [0x00] + id
                        + [0x01, toggled | BatchFrame.actorFlag, 0x00, 0x01, 0x01, 0x00], count: 2),
                "actor is string 0, of 2000 bytes; the limit is 1024"
            ),
            (
                "invalid UTF-8 in a string", Body.frame([toggled | BatchFrame.actorFlag, 0x00, 0x00, 0x01, 0xff, 0x00] + id + [0x01]),
                "not valid UTF-8"
            ),
            ("invalid UTF-8 in a word", Body.frame([added, 0x00, 0x00] + id + [0x00, 0x01, 0x01, 0x02, 0xc3]), "not valid UTF-8"),
            (
                "a literal word with a space", Body.frame([added, 0x00, 0x00] + id + [0x00, 0x01, 0x01, 0x06, 0x61, 0x20, 0x62]),
                "holds a space"
            ),
            ("one empty word", Body.frame([added, 0x00, 0x00] + id + [0x00, 0x01, 0x01, 0x00]), "one empty word"),
            ("a word reference too far", Body.frame([added, 0x00, 0x00] + id + [0x00, 0x01, 0x01, 0x01]), "word reference 0 names no word"),
            (
                "a literal word twice", Body.frame([added, 0x00, 0x00] + id + [0x00, 0x01, 0x02, 0x02, 0x61, 0x02, 0x61]),
                "is word 0 of the frame already"
            ),
            (
                "a title of more than 16,384 bytes",
                Body.frame([added, 0x00, 0x00] + id + [0x00, 0x01, 0x03] + Body.varint(16_382) + xs + [0x01, 0x01]),
                "over 16384 bytes"
            ),
            (
                "a stated title coded in full", Body.frame(addA + [removed, 0x00, 0x01, 0x00, 0x01, 0x01, 0x01], count: 2),
                "is the label's last stated title"
            ),
            ("a rejection's has-id 2", Body.frame([rejected, 0x00, 0x02]), "has-id byte is 2")
        ]
    }()

    @Test func eachDocumentedCorruptionIsRefusedAndNamed() throws {
        for (fault, body, reason) in Self.corruptions {
            let error = corruption(body)
            #expect(error?.code == .corruptRecord, "\(fault)")
            #expect(error?.message.contains(reason) == true, "\(fault): \(error?.message ?? "decoded")")
        }
        // What the faults broke decodes when repaired: the toggle, and a removal that uses the flag.
        #expect(try BatchFrameDecoder.decode(Body.frame([EventKind.toggled.code, 0x00, 0x00] + fixedID(1).bytes + [0x01])).count == 1)
        let addA: [UInt8] = [EventKind.added.code, 0x00, 0x00] + fixedID(1).bytes + [0x00, 0x01, 0x01, 0x02, 0x61]
        let removal = try BatchFrameDecoder.decode(Body.frame(addA + [EventKind.removed.code | 0x20, 0x00, 0x01, 0x00, 0x01], count: 2))
        #expect(removal.last?.event == .removed(id: fixedID(1), index: 0, title: "a", isEnabled: true))
    }

    @Test func anErrorNamesTheRecordItsSeqAndTheByteOfTheBody() throws {
        let id = fixedID(1).bytes
        // Header: seq 41, 2 records, time 0 (3 bytes); record 0 at byte 3 (20 bytes); record 1 at byte 23, its bool at 42.
        let body = Body.frame(
            [EventKind.toggled.code, 0x00, 0x00] + id + [0x01, EventKind.toggled.code, 0x00, 0x00] + fixedID(2).bytes + [0x07],
            count: 2, seq: 41)
        let message = corruption(body)?.message ?? ""
        #expect(message.contains("record 1 of 2 (seq 42)"), "\(message)")
        #expect(message.contains("starts at byte 23 of the body"), "\(message)")
        #expect(message.contains("isEnabled byte is 7"), "\(message)")
        #expect(message.contains("detected at byte 43"), "\(message)")  // after reading the bool
    }
}

// MARK: - Helpers

/// A timestamp of `value` milliseconds.
private func ms(_ value: Int64) -> EventTimestamp { EventTimestamp(millisecondsSince1970: value) }

/// Records of `events` from `firstSeq` on, `spacing` ms apart, with `actors[i]` on record `i` where given.
private func run(_ events: [LabelEvent], actors: [String?] = [], firstSeq: UInt64 = 1, spacing: Int64 = 250) -> [EventRecord] {
    events.enumerated().map { i, event in
        EventRecord(
            seq: firstSeq + UInt64(i), timestamp: ms(1_000 + spacing * Int64(i)), actor: i < actors.count ? actors[i] : nil, event: event)
    }
}

/// The error `body` throws, if it is `invalidEvent` (else `nil`).
private func invalidEvent(_ body: () throws -> [UInt8]) -> EventLogError? {
    do {
        _ = try body()
        return nil
    } catch let error as EventLogError {
        return error.code == .invalidEvent ? error : nil
    } catch {
        return nil
    }
}

/// The error decoding `body` throws, if it is `corruptRecord` (else `nil`).
private func corruption(_ body: [UInt8]) -> EventLogError? {
    do {
        _ = try BatchFrameDecoder.decode(body)
        return nil
    } catch {
        return error.code == .corruptRecord ? error : nil
    }
}

extension LabelID {
    /// The id's 16 raw bytes.
    fileprivate var bytes: [UInt8] { withUnsafeBytes(of: uuid.uuid) { Array($0) } }
}

/// A body written by hand, with format 2's varints (docs/FORMAT.md, "Payload").
private struct Body {
    var bytes: [UInt8] = []

    static func varint(_ value: UInt64) -> [UInt8] {
        var w = ByteWriter()
        w.varint(value)
        return w.bytes
    }

    mutating func header(seq: UInt64, count: Int, time: Int64) {
        var w = ByteWriter()
        w.varint(seq)
        w.varint(UInt64(count))
        w.zigzag(time)
        bytes += w.bytes
    }

    /// A body of `count` records (`records`, already coded) from `seq`, at time 0.
    static func frame(_ records: [UInt8], count: Int = 1, seq: UInt64 = 1) -> [UInt8] {
        var body = Body()
        body.header(seq: seq, count: count, time: 0)
        return body.bytes + records
    }

    /// A body of one record: `kind` with no flags, delta 0, then `fields`.
    static func one(_ kind: UInt8, fields: [UInt8]) -> [UInt8] { frame([kind, 0x00] + fields) }
}
