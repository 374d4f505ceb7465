import Foundation
import LabelStoreTestSupport
import Testing

@testable import EventLog

/// One rule for every string of the event model (docs/FORMAT.md, "Payload"):
/// no U+0000, checked on every append of every storage; records of files
/// written before the rule are still read.
@Suite struct StringRuleTests {
    static let withNUL = "Amber\u{0}Copper"

    static func entries() -> [LogEntry] {
        let id = LabelID()
        return [
            LogEntry(.added(id: id, title: withNUL, isEnabled: true, index: 0)),
            LogEntry(.added(id: id, title: "ok", isEnabled: true, index: 0), actor: withNUL),
            LogEntry(.added(id: id, title: "ok", isEnabled: true, index: 0), note: withNUL),
            LogEntry(.renamed(id: id, oldTitle: "ok", newTitle: withNUL)),
            LogEntry(.rejected(id: nil, command: withNUL, reason: "no")),
            LogEntry(.rejected(id: nil, command: "rename", reason: withNUL))
        ]
    }

    @Test func everyStorageRefusesAStringHoldingNULNamingTheFieldAndTheSeq() throws {
        let dir = TemporaryDirectory()
        let writer = try LogWriter.open(path: dir.file(), options: .init(durability: .noSync, createIfMissing: true))
        defer { writer.close() }
        let memory = InMemoryEventLog()
        for entry in Self.entries() {
            for storage in [writer, memory] as [any EventStorage] {
                do {
                    _ = try storage.append([entry], expectedLastSeq: nil)
                    Issue.record("\(type(of: storage)) appended \(entry)")
                } catch {
                    #expect(error.code == .invalidEvent && error.message.contains("U+0000") && error.message.contains("seq 1"), "\(error)")
                }
            }
        }
        #expect(writer.lastSeq == 0 && memory.lastSeq == 0)
        #expect(throws: EventLogError.self) {
            try EventRecord(seq: 1, timestamp: .now(), event: .added(id: LabelID(), title: Self.withNUL, isEnabled: true, index: 0))
                .encodedPayload()
        }
    }

    /// A file written before the rule: read as it is, hashed as stored.
    @Test func aFileWrittenBeforeTheRuleIsStillReadAndHashed() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        try writeLog(path, [LogEntry(.added(id: LabelID(), title: "first", isEnabled: true, index: 0))])
        var bytes = readBytes(path)
        let legacy = EventRecord(
            seq: 2, timestamp: EventTimestamp(millisecondsSince1970: 5), actor: Self.withNUL,
            event: .added(id: LabelID(), title: Self.withNUL, isEnabled: true, index: 0))
        bytes += try nextFrame(legacy, after: bytes)
        writeBytes(path, bytes)
        let (records, _) = try LogReader.readAll(path: path)
        #expect(records.count == 2 && records[1].actor == Self.withNUL)
        #expect(try records[1].storedPayload() == (try Self.payload(path, seq: 2)))
        let writer = try LogWriter.open(path: path, options: .init(durability: .noSync))
        defer { writer.close() }
        let viaStorage = try HistoryProver.head(of: HistoryRecords(storage: writer, name: path))
        #expect(viaStorage == (try HistoryProver.head(of: HistoryRecords(path: path))))
    }

    static func payload(_ path: String, seq: UInt64) throws -> [UInt8] {
        var payload: [UInt8] = []
        try LogReader(path: path).forEachView { if $0.seq == seq { payload = Array($0.payload) } }
        return payload
    }
}

@Suite struct ZeroByteScanTests {
    @Test func theWordAtATimeScanFindsAZeroAtEveryPositionAndNoneWhereThereIsNone() {
        for length in 0..<40 {
            let clean = (0..<length).map { UInt8(1 + ($0 * 37) % 255) }
            #expect(!clean.withUnsafeBytes { UTF8Validation.containsZero($0) }, "length \(length)")
            for at in 0..<length {
                var bytes = clean
                bytes[at] = 0
                #expect(bytes.withUnsafeBytes { UTF8Validation.containsZero($0) }, "length \(length), zero at \(at)")
            }
        }
        // Bytes of 0x80 and 0x01 next to each other are the classic false-positive risk of the trick.
        #expect(![UInt8](repeating: 0x80, count: 17).withUnsafeBytes { UTF8Validation.containsZero($0) })
        #expect(![UInt8]([0x01, 0x80, 0x01, 0x80, 0x01, 0x80, 0x01, 0x80, 0x01]).withUnsafeBytes { UTF8Validation.containsZero($0) })
        #expect(UTF8Validation.mayHoldNUL("a\u{0}b") && !UTF8Validation.mayHoldNUL("Größe Москва 東京"))
    }
}
