import Foundation
import LabelStoreTestSupport
import Testing

@testable import EventLog

/// Pins the bytes the writer produces, so an encoder change cannot alter the
/// file format (docs/FORMAT.md) without a test failing. The expected values
/// were taken from the encoder as it was before the batch-append rewrite.
@Suite("Format golden bytes")
struct FormatGoldenTests {
    /// The frame of every sample entry (seq i+1, time 1 000 + i), in hex.
    static let sampleFrames: [String] = [
        "27000000f31252f001d00f010303616e61056669727374010102030405400780090a0b0c0d0e01000105416d626572",
        "2b000000d031f74802d20f0100020102030405400780090a0b0c0d0e02010013436f62616c7420e29ca820e2809420c489753f",
        "2500000075e7361d03d40f020102626f010102030405400780090a0b0c0d0e0105416d62657206436f70706572",
        "240000007fcad57104d60f03020d7374616c6520726f7720233132010102030405400780090a0b0c0d0e0100",
        "1700000034a4b6fb05d80f0500010102030405400780090a0b0c0d0e010001",
        "26000000282b162e06da0f060002010102030405400780090a0b0c0d0e01020102030405400780090a0b0c0d0e02",
        "450000005cf171ba07dc0f070001020102030405400780090a0b0c0d0e020d72656e616d6520746f20275827204564697420736b69707065643a206c6162656c207761732072656d6f7665642e",
        "2b000000dfb8620e08de0f0400020102030405400780090a0b0c0d0e02010013436f62616c7420e29ca820e2809420c489753f",
        "18000000b1b9591009e00f0100020102030405400780090a0b0c0d0e02000100",
        "160000005059b90e0ae20f0700000772657665727365076e6f7468696e67"
    ]

    static func sampleRecords() -> [EventRecord] {
        sampleEntries().enumerated().map { i, entry in
            entry.record(seq: UInt64(i + 1), now: EventTimestamp(millisecondsSince1970: 1_000 + Int64(i)))
        }
    }

    @Test func everyKindEncodesToTheDocumentedVersion1FrameBytes() throws {
        let records = Self.sampleRecords()
        #expect(records.count == Self.sampleFrames.count)
        for (record, expected) in zip(records, Self.sampleFrames) {
            var out = ByteWriter()
            Frame.encode(record, into: &out, format: .version1)
            #expect(hex(out.bytes) == expected, "seq \(record.seq) (\(record.event.kind))")
        }
    }

    /// Version 2 frames built by hand from docs/FORMAT.md — word (length,
    /// continuation bit 31), checksum, previous checksum, payload; checksum
    /// = CRC-32C(log id ‖ word ‖ previous ‖ payload) — equal the encoder's.
    @Test func version2FramesAreKeyedByTheLogIDAndChainedAsDocumented() throws {
        let logID = try #require(LabelID("0F1E2D3C-4B5A-4978-8796-A5B4C3D2E1F0"))
        let format = FrameFormat(version: 2, logID: logID)
        var previous: UInt32 = 0
        for (i, record) in Self.sampleRecords().enumerated() {
            let continues = i % 3 == 1
            var out = ByteWriter()
            let checksum = Frame.encode(record, into: &out, format: format, previous: previous, continues: continues)
            var payload = ByteWriter()
            record.encodePayload(into: &payload)
            let word = UInt32(payload.bytes.count) | (continues ? 1 << 31 : 0)
            let covered = logID.uuidBytes + littleEndian(word) + littleEndian(previous) + payload.bytes
            let crc = CRC32C.portableUpdate(0, covered.withUnsafeBytes { UnsafeRawBufferPointer($0) })
            let expected = littleEndian(word) + littleEndian(crc) + littleEndian(previous) + payload.bytes
            #expect(out.bytes == expected, "seq \(record.seq)")
            #expect(checksum == crc)
            previous = crc
        }
    }

    @Test func batchAppendsOfVaryingSizesWriteThePinnedBytes() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let entries = goldenStream(count: 3_000)
        let writer = try LogWriter.open(
            path: path,
            options: .init(
                durability: .noSync, createIfMissing: true,
                clock: { EventTimestamp(millisecondsSince1970: 42) }))
        var start = 0
        var size = 1
        while start < entries.count {
            let end = min(entries.count, start + size)
            try writer.append(Array(entries[start..<end]))
            start = end
            size = size * 3 % 1_001 + 1
        }
        writer.close()
        // The file is in format version 2; its frames, checked by hand and
        // turned back into version 1 frames, give the bytes pinned before the
        // batch-append rewrite (so the payload encoding has not changed).
        let bytes = readBytes(path)
        let logID = try LogReader(path: path).header.logID
        var version1: [UInt8] = []
        var position = LogFormat.headerLength
        var previous: UInt32 = 0
        var frames = 0
        while position < bytes.count {
            let word = loadU32(bytes, position)
            let length = Int(word & 0x07FF_FFFF)
            let payload = Array(bytes[(position + 12)..<(position + 12 + length)])
            #expect(loadU32(bytes, position + 8) == previous, "frame \(frames + 1) is not chained to the one before")
            // A noSync writer never syncs: only the first frame of a new log follows durable records.
            #expect((word >> 31 == 1) == (frames > 0), "frame \(frames + 1): continuation flag")
            let covered = logID.uuidBytes + Array(bytes[position..<position + 4]) + Array(bytes[(position + 8)..<(position + 12 + length)])
            previous = CRC32C.checksum(covered)
            #expect(loadU32(bytes, position + 4) == previous, "frame \(frames + 1): checksum")
            version1 += littleEndian(UInt32(length)) + littleEndian(CRC32C.checksum(littleEndian(UInt32(length)) + payload)) + payload
            position += 12 + length
            frames += 1
        }
        #expect(frames == entries.count)
        #expect(version1.count == 309667)
        #expect(fnv1a(version1) == 0x2f1f_dc9d_1dfc_7095)
    }

    /// A deterministic mix of every kind with short, long (up to 16 KiB), non-ASCII and empty texts.
    func goldenStream(count: Int) -> [LogEntry] {
        var rng = SeededGenerator(seed: 0x60_1DE0)
        let words = ["a", "Ring", "Büro", "東京", "🏷️", "Crème brûlée", "", "x"]
        func text(_ maxWords: Int) -> String {
            (0..<Int.random(in: 0...maxWords, using: &rng)).map { _ in words.randomElement(using: &rng)! }.joined(separator: " ")
        }
        func id() -> LabelID { fixedID(UInt8.random(in: 0...255, using: &rng)) }
        return (0..<count).map { i in
            let event: LabelEvent
            switch i % 7 {
            case 0:
                event = .added(
                    id: id(), title: i % 500 == 0 ? String(repeating: "ü", count: 8_192) : text(6),
                    isEnabled: Bool.random(using: &rng), index: Int.random(in: 0...Int(Int32.max), using: &rng))
            case 1: event = .renamed(id: id(), oldTitle: text(4), newTitle: text(8))
            case 2: event = .toggled(id: id(), isEnabled: Bool.random(using: &rng))
            case 3:
                event = .removed(id: id(), index: Int.random(in: 0...300, using: &rng), title: text(3), isEnabled: Bool.random(using: &rng))
            case 4: event = .moved(id: id(), from: Int.random(in: 0...200_000, using: &rng), to: Int.random(in: 0...127, using: &rng))
            case 5: event = .reordered(order: (0..<Int.random(in: 0...40, using: &rng)).map { _ in id() })
            default: event = .rejected(id: Bool.random(using: &rng) ? id() : nil, command: text(5), reason: text(9))
            }
            let time: EventTimestamp? =
                i % 3 == 0 ? nil : EventTimestamp(millisecondsSince1970: Int64.random(in: -1 << 50...1 << 50, using: &rng))
            return LogEntry(event, timestamp: time, actor: i % 4 == 0 ? text(2) : nil, note: i % 5 == 0 ? text(7) : nil)
        }
    }
}

private func hex(_ bytes: [UInt8]) -> String {
    bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
}

private func littleEndian(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

private func loadU32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
    UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
}

extension LabelID {
    /// The id's 16 bytes in RFC 4122 order, as the log stores them.
    var uuidBytes: [UInt8] {
        var w = ByteWriter()
        w.id(self)
        return w.bytes
    }
}

private func fnv1a(_ bytes: [UInt8]) -> UInt64 {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
    return h
}
