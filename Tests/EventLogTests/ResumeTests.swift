import Foundation
import LabelStoreTestSupport
import Testing

@testable import EventLog

/// Opening a writer at a known record position (a snapshot's): the scan
/// starts there only when the frame checks out, and everything else behaves
/// as after a full scan.
@Suite struct ResumeTests {
    /// A log of `count` records (cycling through every kind's sample) and the records.
    func makeLog(_ path: String, count: Int) throws -> [EventRecord] {
        let samples = sampleEntries()
        // Synced every 10 records, as acknowledged appends would be: damage is then damage, not a lost write.
        return try writeLog(path, (0..<count).map { samples[$0 % samples.count] }, batch: true, syncEvery: 10)
    }

    /// The position of record `seq` as the file has it.
    func position(of seq: Int, in path: String) -> LogPosition {
        let bytes = readBytes(path)
        let offsets = frameOffsets(bytes)
        let end = seq < offsets.count ? offsets[seq] : bytes.count
        let at = offsets[seq - 1]
        let checksum = UInt32(bytes[at + 4]) | UInt32(bytes[at + 5]) << 8 | UInt32(bytes[at + 6]) << 16 | UInt32(bytes[at + 7]) << 24
        return LogPosition(seq: UInt64(seq), offset: Int64(at), length: Int64(end - at), checksum: checksum)
    }

    @Test func theWriterReportsWhereItsLastRecordIs() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let writer = try LogWriter.open(path: path, options: .init(durability: .noSync, createIfMissing: true))
        #expect(writer.lastPosition == nil)
        try writer.append(Array(sampleEntries()[..<3]))
        let afterBatch = try #require(writer.lastPosition)
        try writer.append(sampleEntries()[3])
        let afterSingle = try #require(writer.lastPosition)
        writer.close()
        #expect(afterBatch == position(of: 3, in: path))
        #expect(afterSingle == position(of: 4, in: path))
        let reopened = try LogWriter.open(path: path)
        #expect(reopened.lastPosition == afterSingle, "a scan finds the same position")
        let second = position(of: 2, in: path)
        try reopened.discardRecords(after: 2)
        #expect(reopened.lastPosition == second)
        reopened.close()
    }

    @Test func aGoodPositionSkipsTheRecordsBeforeItAndVisitsFromIt() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let records = try makeLog(path, count: 3000)
        let at = position(of: 2500, in: path)
        var visited: [EventRecord] = []
        let writer = try LogWriter.open(path: path, replayFrom: 2500, resumeAt: at) { visited.append($0) }
        #expect(writer.recoveryReport.resumedAfter == at)
        #expect(writer.recoveryReport.summary.contains("not re-read"))
        #expect(visited == Array(records[2499...]), "the record at the position and every later one, decoded")
        #expect(writer.lastSeq == 3000 && writer.lastPosition == position(of: 3000, in: path))
        // Reads before the position still work (and index the region as they pass it).
        let firstFive = try writer.read(from: 1, maxCount: 5)
        #expect(firstFive == Array(records[..<5]), "\(firstFive.map(\.seq)) \(firstFive.first.map { "\($0)" } ?? "") vs \(records[0])")
        #expect(try writer.read(from: 2049, maxCount: 3) == Array(records[2048..<2051]))
        #expect(try writer.read(from: 1025, maxCount: 1) == [records[1024]])
        #expect(try writer.read(from: 2999, maxCount: 10) == Array(records[2998...]))
        // Appends continue the log.
        let next = try writer.append(sampleEntries()[0])
        #expect(next.seq == 3001)
        writer.close()
        #expect(try LogReader.readAll(path: path).records.count == 3001)
    }

    @Test(arguments: ["mid-frame offset", "wrong length", "wrong seq", "past the end", "damaged frame", "seq zero"])
    func aPositionThatDoesNotCheckOutFallsBackToAFullScan(kind: String) throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let records = try makeLog(path, count: 40)
        var at = position(of: 30, in: path)
        switch kind {
        case "mid-frame offset": at.offset += 3
        case "wrong length": at.length -= 1
        case "wrong seq": at.seq = 29
        case "past the end": at.offset = Int64(readBytes(path).count)
        case "seq zero": at.seq = 0
        default:
            var bytes = readBytes(path)
            bytes[Int(at.offset) + 12] ^= 0x01
            writeBytes(path, bytes)
        }
        var visited: [UInt64] = []
        if kind == "damaged frame" {
            // The full scan then finds the damage before the tail, as without a position.
            #expect(throws: EventLogError.self) { try LogWriter.open(path: path, replayFrom: 30, resumeAt: at) }
            return
        }
        let writer = try LogWriter.open(path: path, replayFrom: 30, resumeAt: at) { visited.append($0.seq) }
        defer { writer.close() }
        #expect(writer.recoveryReport.resumedAfter == nil)
        #expect(visited == Array(30...40), "records before replayFrom are checked, not visited")
        #expect(writer.lastSeq == 40)
        #expect(try writer.read(from: 1, maxCount: 40) == records)
    }

    @Test func onlyTheDefaultRecoveryModeResumesTheOthersReadEverything() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        _ = try makeLog(path, count: 20)
        let at = position(of: 15, in: path)
        var bytes = readBytes(path)
        let offsets = frameOffsets(bytes)
        bytes[offsets[3] + 10] ^= 0xff  // damage inside record 4, before the position
        writeBytes(path, bytes)

        let resumed = try LogWriter.open(path: path, replayFrom: 15, resumeAt: at)
        #expect(resumed.recoveryReport.resumedAfter == at, "the default mode does not read the covered records")
        #expect(resumed.lastSeq == 20)
        // A read that reaches the damage names it.
        do {
            _ = try resumed.read(from: 1, maxCount: 10)
            Issue.record("reading across damage succeeded")
        } catch {
            #expect(error.code == .corruptRecord && error.offset == Int64(offsets[3]) && error.lastGoodSeq == 3)
        }
        resumed.close()
        #expect(readBytes(path) == bytes, "resuming changed nothing")
        do {
            _ = try LogWriter.open(path: path, options: .init(recovery: .absoluteConsistency), replayFrom: 15, resumeAt: at)
            Issue.record("absolute consistency resumed past damage")
        } catch let error as EventLogError {
            #expect(error.code == .corruptRecord && error.offset == Int64(offsets[3]))
        }
        let salvaged = try LogWriter.open(path: path, options: .init(recovery: .pointInTime), replayFrom: 15, resumeAt: at)
        #expect(salvaged.recoveryReport.resumedAfter == nil && salvaged.lastSeq == 3)
        salvaged.close()
    }

    @Test func aTornTailAfterThePositionIsCutAsUsual() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let records = try makeLog(path, count: 12)
        let at = position(of: 10, in: path)
        let bytes = readBytes(path)
        let offsets = frameOffsets(bytes)
        writeBytes(path, Array(bytes[..<(offsets[11] + 5)]))  // record 12 torn
        let writer = try LogWriter.open(path: path, replayFrom: 10, resumeAt: at)
        #expect(writer.recoveryReport.resumedAfter == at)
        #expect(writer.recoveryReport.damage?.isTornTail == true && writer.lastSeq == 11)
        writer.close()
        #expect(try LogReader.readAll(path: path).records == Array(records[..<11]))
    }

    @Test func theLastRecordItselfCanBeThePosition() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let records = try makeLog(path, count: 5)
        let at = position(of: 5, in: path)
        var visited: [EventRecord] = []
        let writer = try LogWriter.open(path: path, replayFrom: 5, resumeAt: at) { visited.append($0) }
        #expect(writer.recoveryReport.resumedAfter == at && visited == [records[4]] && writer.lastPosition == at)
        writer.close()
    }
}
