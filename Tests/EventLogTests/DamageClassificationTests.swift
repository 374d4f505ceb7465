import Foundation
import LabelStoreTestSupport
import Testing

@testable import EventLog

/// Torn write or damage? The regressions of the review (RELIABILITY.md):
/// a large good record after damage, a frame hidden in a title, pages of an
/// unsynced write persisted out of order, an absurd resume position.
@Suite("Damage classification")
struct DamageClassificationTests {
    /// Damage in record 3 followed by one good ~11 MB record: corruption, and
    /// nothing is cut (the later-frame search once read a 9 MiB window and
    /// missed frames that did not fit in it).
    @Test func damageFollowedByOneLargeGoodRecordIsCorruptionNotATornTail() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let big = LogEntry(.reordered(order: (0..<700_000).map { _ in LabelID() }))
        let records = try writeLog(path, Array(sampleEntries()[..<3]) + [big])
        var bytes = readBytes(path)
        #expect(bytes.count > 11_000_000)
        let offsets = frameOffsets(bytes)
        bytes[offsets[2] + 20] ^= 0x10
        writeBytes(path, bytes)
        do {
            _ = try LogWriter.open(path: path)
            Issue.record("damage before an 11 MB record was cut as a torn tail")
        } catch let error as EventLogError {
            #expect(error.code == .corruptRecord && error.offset == Int64(offsets[2]) && error.lastGoodSeq == 2, "\(error)")
        }
        #expect(readBytes(path) == bytes, "the file must not be touched")
        // A follower stops with an error instead of waiting forever; verify's tail check says corruption.
        let reader = try LogReader(path: path)
        #expect(try reader.next() == records[0])
        #expect(try reader.next() == records[1])
        #expect(throws: EventLogError.self) { _ = try reader.next() }
        #expect(throws: EventLogError.self) { _ = try reader.tail() }
    }

    /// A record holding the bytes of a valid, durable-looking frame of this
    /// very log (keyed by its id, chained to the record before): a crash in
    /// the middle of writing that record is still a torn tail. (Strings may not
    /// hold U+0000, which every frame's length word does, so the bytes sit in
    /// a reorder's ids; files written before that rule can hold them in a
    /// title, and recovery reads both alike.)
    @Test func aFrameInsideARecordCannotMakeACrashedLogUnopenable() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let prefix = try writeLog(
            path,
            [
                LogEntry(.added(id: fixedID(1), title: "one", isEnabled: true, index: 0)),
                LogEntry(.added(id: fixedID(2), title: "two", isEnabled: true, index: 1))
            ])
        let bytes = readBytes(path)
        let crc2 = loadWord(bytes, frameOffsets(bytes)[1] + 4)
        let format = try frameFormat(of: bytes)
        // A frame for seq 3 chained to record 2, not a continuation: "proof" that record 3 was durable.
        let record = EventRecord(
            seq: 3, timestamp: EventTimestamp(millisecondsSince1970: 1), actor: nil, note: nil,
            event: .toggled(id: fixedID(9), isEnabled: true))
        var out = ByteWriter()
        Frame.encode(record, into: &out, format: format, previous: crc2, continues: false)
        let forged = out.bytes
        let writer = try LogWriter.open(path: path)
        let third = try writer.append(StressRecords.frameCarrier(tag: "before ", frame: forged, length: forged.count + 200))
        writer.close()
        let whole = readBytes(path)
        let thirdStart = frameOffsets(whole)[2]
        let forgedStart = try #require(indexOf(forged, in: Array(whole[thirdStart...])))
        let forgedEnd = thirdStart + forgedStart + forged.count
        #expect(third.seq == 3 && forgedEnd < whole.count)
        // The crash cuts the record after the forged frame, or leaves preallocated zeros where the rest would be.
        for (name, image) in [
            ("cut", Array(whole[..<forgedEnd])),
            ("zeros", Array(whole[..<forgedEnd]) + [UInt8](repeating: 0, count: whole.count - forgedEnd + 4096))
        ] {
            writeBytes(path, image)
            let reader = try LogReader(path: path)
            #expect(try reader.poll() == prefix, "\(name): a follower reads the two records and waits")
            let reopened = try LogWriter.open(path: path)
            #expect(reopened.lastSeq == 2, "\(name)")
            #expect(reopened.recoveryReport.damage?.isTornTail == true, "\(name)")
            reopened.close()
        }
    }

    /// Records 4 and 5 written by one unsynced append; the page holding 5
    /// reaches the disk, 4's does not. Every acknowledged record is intact, so
    /// the log opens; the cut bytes are saved.
    @Test func aLaterPageOfAnUnsyncedWriteSurvivingAnEarlierOneIsATornTail() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let acknowledged = try writeLog(path, Array(sampleEntries()[..<3]))
        let writer = try LogWriter.open(path: path, options: .init(durability: .noSync, preallocation: 0))
        try writer.append([
            LogEntry(.added(id: fixedID(4), title: String(repeating: "4", count: 9_000), isEnabled: true, index: 3)),
            LogEntry(.added(id: fixedID(5), title: "five", isEnabled: true, index: 4))
        ])
        writer.close()
        var bytes = readBytes(path)
        let offsets = frameOffsets(bytes)
        // Lose the page holding record 4's start (as zeros), keep the page holding record 5.
        let lostPage = offsets[3] / 4096 * 4096
        #expect(offsets[4] >= lostPage + 4096 * 2)
        let durableEnd = offsets[3]
        for i in max(lostPage, durableEnd)..<(lostPage + 4096) { bytes[i] = 0 }
        writeBytes(path, bytes)
        let reopened = try LogWriter.open(path: path)
        defer { reopened.close() }
        #expect(reopened.lastSeq == 3)
        #expect(reopened.recoveryReport.damage?.isTornTail == true)
        #expect(reopened.recoveryReport.damage?.cutsWrittenRecords == true)
        let saved = try #require(reopened.recoveryReport.savedTailPath)
        #expect(readBytes(saved) == Array(bytes[durableEnd...]))
        #expect(try reopened.read(from: 1, maxCount: 10) == acknowledged)
    }

    /// A position is untrusted input: absurd values are ignored, never a trap.
    @Test(arguments: [
        (Int64.max - 5, Int64(100)), (Int64(64), Int64.max), (Int64.max, Int64.max), (Int64(-8), Int64(40)),
        (Int64(64), Int64(-1)), (Int64.min, Int64.min)
    ])
    func anAbsurdResumePositionIsIgnored(offset: Int64, length: Int64) throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let records = try writeLog(path)
        let position = LogPosition(seq: 3, offset: offset, length: length, checksum: nil)
        _ = position.end
        var visited: [UInt64] = []
        let writer = try LogWriter.open(path: path, replayFrom: 3, resumeAt: position) { visited.append($0.seq) }
        defer { writer.close() }
        #expect(writer.recoveryReport.resumedAfter == nil)
        #expect(writer.lastSeq == UInt64(records.count))
        #expect(visited == Array(3...UInt64(records.count)))
    }
}

private func loadWord(_ bytes: [UInt8], _ at: Int) -> UInt32 {
    UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
}

private func indexOf(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
    guard needle.count <= haystack.count else { return nil }
    for i in 0...(haystack.count - needle.count) where Array(haystack[i..<(i + needle.count)]) == needle { return i }
    return nil
}
