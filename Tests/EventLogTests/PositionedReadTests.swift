import Foundation
import LabelStoreTestSupport
import Synchronization
import Testing

@testable import EventLog

/// Reads through the writer from a known record position (a checkpoint's or
/// snapshot's, which a store folds on from): they start there, not at the
/// nearest record the writer indexed — which, in a region an open resumed
/// past, is the log's first — and a position that is not this log's record
/// before the read is ignored.
@Suite struct PositionedReadTests {
    let helpers = ResumeTests()

    /// The lowest offset read since ``reset()`` (a ``ReadHookedFileSystem``'s hook notes it).
    final class LowestRead: Sendable {
        let offset = Atomic<Int64>(.max)
        func reset() { offset.store(.max, ordering: .relaxed) }
        func note(_ at: Int64) { offset.min(at, ordering: .relaxed) }
        var value: Int64 { offset.load(ordering: .relaxed) }
    }

    /// The records `from` on that a writer's positioned read visits.
    func visit(_ writer: LogWriter, from seq: UInt64, after position: LogPosition?) throws -> [EventRecord] {
        var visited: [EventRecord] = []
        try writer.forEachView(from: seq, after: position) { view in
            visited.append(view.record)
            return true
        }
        return visited
    }

    /// A log of 3,000 records in `format`, appended (and synced) ten at a
    /// time; the records, and in format 4 the position of each record (a
    /// batch frame's records share the frame's offset, length and checksum).
    func makeLog(_ path: String, format: UInt16) throws -> (records: [EventRecord], positions: [UInt64: LogPosition]) {
        var options = LogWriter.Options(durability: .noSync, createIfMissing: true)
        options.creationHeader = LogHeader(version: format, createdAt: .now())
        let writer = try LogWriter.open(path: path, options: options)
        defer { writer.close() }
        let samples = sampleEntries()
        var records: [EventRecord] = []
        var positions: [UInt64: LogPosition] = [:]
        for start in stride(from: 0, to: 3000, by: 10) {
            let appended = try writer.append((start..<start + 10).map { samples[$0 % samples.count] })
            try writer.sync()
            records += appended
            let last = try #require(writer.lastPosition)
            for record in appended where format == LogFormat.batchVersion {
                positions[record.seq] = LogPosition(seq: record.seq, offset: last.offset, length: last.length, checksum: last.checksum)
            }
        }
        return (records, positions)
    }

    @Test(arguments: [LogFormat.currentVersion, LogFormat.batchVersion])
    func aReadAfterAPositionStartsThereInARegionTheOpenResumedPast(format: UInt16) throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let (records, batchPositions) = try makeLog(path, format: format)
        // A format 2 record's own frame; a format 4 record's batch frame.
        func position(of seq: UInt64) -> LogPosition { batchPositions[seq] ?? helpers.position(of: Int(seq), in: path) }
        let resumeAt = position(of: 2500)
        let before = position(of: 2000)
        let lowest = LowestRead()
        let options = LogWriter.Options(fileSystem: ReadHookedFileSystem { lowest.note($0) })

        // Without the position, the read starts at the first record: the open indexed nothing before 2,500.
        let plain = try LogWriter.open(path: path, options: options, replayFrom: 2500, resumeAt: resumeAt)
        lowest.reset()
        #expect(try visit(plain, from: 2001, after: nil) == Array(records[2000...]))
        #expect(lowest.value < before.offset, "the plain read starts before record 2,000")
        plain.close()

        let writer = try LogWriter.open(path: path, options: options, replayFrom: 2500, resumeAt: resumeAt)
        defer { writer.close() }
        lowest.reset()
        #expect(try visit(writer, from: 2001, after: before) == Array(records[2000...]))
        #expect(lowest.value >= before.offset, "the read starts at record 2,000's frame or after it")
        // The records it passed are indexed: a plain read there no longer goes back to the start.
        lowest.reset()
        #expect(try visit(writer, from: 2049, after: nil).first == records[2048])
        #expect(lowest.value >= before.offset)
        // From a record inside a batch frame (format 4), or in the middle of an append (format 2).
        let inside = position(of: 1995)
        lowest.reset()
        #expect(try visit(writer, from: 1996, after: inside) == Array(records[1995...]))
        #expect(lowest.value >= inside.offset)
    }

    @Test(arguments: ["wrong checksum", "no checksum", "mid-frame offset", "another seq", "past the end"])
    func aPositionThatIsNotThisLogsRecordBeforeTheReadIsIgnored(kind: String) throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let records = try helpers.makeLog(path, count: 300)
        var position = helpers.position(of: 200, in: path)
        switch kind {
        case "wrong checksum": position.checksum = position.checksum.map { $0 ^ 1 }
        case "no checksum": position.checksum = nil
        case "mid-frame offset": position.offset += 3
        case "another seq": position = helpers.position(of: 199, in: path)
        default: position.offset = Int64(readBytes(path).count) + 100
        }
        let writer = try LogWriter.open(path: path, replayFrom: 250, resumeAt: helpers.position(of: 250, in: path))
        defer { writer.close() }
        #expect(try visit(writer, from: 201, after: position) == Array(records[200...]), "\(kind): read as without a position")
    }
}
