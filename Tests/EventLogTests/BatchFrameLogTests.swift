import Foundation
import LabelStoreTestSupport
import Testing

@testable import EventLog

/// Logs of format version 4 (docs/FORMAT.md, "Batch frames (version 4)"):
/// an append of several records is written as batch frames, and every read
/// answers what it answers for the same appends to a version 2 log — the
/// reference this suite compares against, record for record.
@Suite struct BatchFrameLogTests {
    /// A new directory's log path.
    func path(_ name: String = "log.labellog") -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bf-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir.appendingPathComponent(name).path
    }

    /// A writer of a new log at `path` in format `version`.
    func open(_ path: String, version: UInt16, durability: Durability = .noSync) throws -> LogWriter {
        var options = LogWriter.Options(durability: durability, createIfMissing: true)
        options.creationHeader = LogHeader(version: version, createdAt: EventTimestamp(millisecondsSince1970: 1_764_460_800_000))
        return try LogWriter.open(path: path, options: options)
    }

    /// Seeded entries of every kind, stamped (so both logs get the same records).
    func entries(seed: UInt64, count: Int) -> [LogEntry] {
        var random = RandomRecords(seed: seed)
        return random.run(count: count, firstSeq: 1).map { LogEntry($0.event, timestamp: $0.timestamp, actor: $0.actor, note: $0.note) }
    }

    /// ``entries(seed:count:)`` as records from seq 1.
    func records(seed: UInt64, count: Int) -> [EventRecord] {
        entries(seed: seed, count: count).enumerated().map { $0.element.record(seq: UInt64($0.offset + 1), now: .now()) }
    }

    /// Entries of `records`, as an append takes them back.
    func entries(of records: some Collection<EventRecord>) -> [LogEntry] {
        records.map { LogEntry($0.event, timestamp: $0.timestamp, actor: $0.actor, note: $0.note) }
    }

    /// Appends `entries` to a log of each version in appends of the given sizes; returns both paths.
    func twoLogs(_ entries: [LogEntry], appends sizes: [Int]) throws -> (v2: String, v4: String) {
        let v2 = path(), v4 = path()
        for (path, version) in [(v2, UInt16(2)), (v4, UInt16(4))] {
            let writer = try open(path, version: version)
            var at = 0
            var i = 0
            while at < entries.count {
                let n = min(sizes[i % sizes.count], entries.count - at)
                try writer.append(Array(entries[at..<(at + n)]))
                at += n
                i += 1
            }
            try writer.sync()
            writer.close()
        }
        return (v2, v4)
    }

    @Test(arguments: [1, 2, 3])
    func aVersionFourLogReadsBackTheRecordsOfAVersionTwoLogWithTheSameAppends(seed: UInt64) throws {
        let all = entries(seed: seed, count: 3_000)
        let (v2, v4) = try twoLogs(all, appends: [1, 7, 1, 1_500, 2, 300])
        let reference = try LogReader.readAll(path: v2)
        let read = try LogReader.readAll(path: v4)
        #expect(read.records == reference.records)
        if read.records != reference.records {
            let i = (0..<read.records.count).first { read.records[$0] != reference.records[$0] }!
            let a = read.records[i], b = reference.records[i]
            Issue.record(
                "the first difference is at seq \(a.seq): \(String(reflecting: a).prefix(300)) where the version 2 log has \(String(reflecting: b).prefix(300))"
            )
        }
        #expect(read.records.count == all.count)
        #expect(read.report.lastSeq == UInt64(all.count) && read.report.damage == nil)
        // Batch frames are smaller.
        let sizes = try [v2, v4].map { try #require(FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int) }
        #expect(sizes[1] < sizes[0] * 3 / 4, "format 4 is \(sizes[1]) bytes, format 2 \(sizes[0])")
        let header = try LogReader(path: v4).header
        #expect(header.version == 4)
    }

    @Test func aWriterReopensAVersionFourLogAndAppendsAfterItsBatchFrames() throws {
        let all = entries(seed: 7, count: 1_200)
        let (v2, v4) = try twoLogs(Array(all[0..<1_000]), appends: [1_000])
        for path in [v2, v4] {
            let writer = try LogWriter.open(path: path, options: .init(durability: .noSync))
            #expect(writer.lastSeq == 1_000)
            try writer.append(Array(all[1_000..<1_100]))
            try writer.append(all[1_100])
            try writer.append(Array(all[1_101...]))
            writer.close()
        }
        #expect(try LogReader.readAll(path: v4).records == LogReader.readAll(path: v2).records)
    }

    /// A discard through a seq inside a batch frame keeps the bytes before the frame, frames the kept
    /// records of the frame anew, and the writer goes on in the new file: the same records as a format 2 log
    /// given the same discard, sync mark and all.
    @Test func aDiscardInsideABatchFrameKeepsTheRecordsBeforeAndTheWriterGoesOn() throws {
        let all = entries(seed: 11, count: 5_300)
        let (v2, v4) = try twoLogs(Array(all[0..<5_000]), appends: [1_000, 1_000, 1_000, 1_000, 1_000])
        let before = try Data(contentsOf: URL(fileURLWithPath: v4))
        var frameStart: Int64 = 0
        do {
            let reader = try LogReader(path: v4)
            try reader.skip(toSeq: 4_100)
            frameStart = try #require(reader.lastPosition).offset
        }
        for path in [v2, v4] {
            let writer = try LogWriter.open(path: path, options: .init(durability: .syncEachAppend))
            _ = try writer.discardRecords(after: 4_100)
            #expect(writer.lastSeq == 4_100)
            try writer.append(Array(all[5_000..<5_200]))
            try writer.append(all[5_200])
            writer.close()
            let reopened = try LogWriter.open(path: path, options: .init(durability: .noSync))
            try reopened.append(Array(all[5_201...]))
            reopened.close()
        }
        let records = try LogReader.readAll(path: v4).records
        #expect(records == (try LogReader.readAll(path: v2).records))
        #expect(records.count == 4_100 + 300 && records.map(\.seq) == Array(1...4_400))
        // The bytes before the frame that held seq 4,100 are as they were.
        let after = try Data(contentsOf: URL(fileURLWithPath: v4))
        #expect(after.prefix(Int(frameStart)) == before.prefix(Int(frameStart)))
    }

    @Test func aReaderFollowingAGrowingVersionFourLogSeesEveryRecordOnce() throws {
        let all = entries(seed: 11, count: 600)
        let path = path()
        let writer = try open(path, version: 4)
        defer { writer.close() }
        let reader = try LogReader(path: path)
        var seen: [EventRecord] = []
        var at = 0
        for n in [5, 1, 200, 94, 300] {
            try writer.append(Array(all[at..<(at + n)]))
            at += n
            seen += try reader.poll()
        }
        #expect(seen.map(\.seq) == Array(1...600))
        #expect(seen == (try LogReader.readAll(path: path).records))
    }

    @Test func aReaderResumesAfterAnyRecordOfABatchFrame() throws {
        let all = entries(seed: 13, count: 2_500)
        let (_, v4) = try twoLogs(all, appends: [2_500])
        let reference = try LogReader.readAll(path: v4).records
        let reader = try LogReader(path: v4)
        var positions: [LogPosition] = []
        while try reader.next() != nil { positions.append(try #require(reader.lastPosition)) }
        // Records of one batch frame share its position's frame.
        #expect(Set(positions.map(\.offset)).count < positions.count / 100)
        var rng = SeededGenerator(seed: 13)
        for _ in 0..<40 {
            let position = positions[Int.random(in: 0..<positions.count, using: &rng)]
            let again = try LogReader(path: v4)
            #expect(try again.keeps(position) == .kept)
            #expect(try again.resume(after: position))
            let rest = try again.poll()
            #expect(rest == Array(reference[Int(position.seq)...]), "after seq \(position.seq)")
        }
    }

    @Test func aPositionNamingAnotherFrameIsNotHeld() throws {
        let (_, v4) = try twoLogs(entries(seed: 17, count: 3_000), appends: [3_000])
        let reader = try LogReader(path: v4)
        var positions: [LogPosition] = []
        while try reader.next() != nil { positions.append(try #require(reader.lastPosition)) }
        let inFirst = positions[10], inSecond = positions[1_500]
        #expect(inFirst.offset != inSecond.offset)
        // The seq of one frame with the other's extent: not held.
        let wrong = LogPosition(seq: inSecond.seq, offset: inFirst.offset, length: inFirst.length, checksum: inFirst.checksum)
        #expect(try !reader.holds(wrong))
        #expect(try reader.holds(inSecond))
    }

    @Test func aTornBatchFrameAtTheEndIsCutAsOneWriteAndTheRecordsBeforeItStay() throws {
        let all = entries(seed: 19, count: 900)
        let path = path()
        let writer = try open(path, version: 4, durability: .syncEachAppend)
        try writer.append(Array(all[0..<400]))
        try writer.append(Array(all[400...]))
        writer.close()
        // The last write torn: its batch frame cut in the middle.
        let bytes = readBytes(path)
        let offsets = frameOffsets(bytes)
        #expect(offsets.count == 2, "two appends of fewer than 1,024 records: two batch frames")
        writeBytes(path, Array(bytes[0..<(offsets[1] + (bytes.count - offsets[1]) / 2)]))
        let (records, report) = try LogReader.readAll(path: path)
        #expect(records.map(\.seq) == Array(1...400))
        #expect(report.damage?.isTornTail == true)
        let reopened = try LogWriter.open(path: path, options: .init(durability: .noSync))
        #expect(reopened.lastSeq == 400)
        try reopened.append(Array(all[400..<410]))
        reopened.close()
        let after = try LogReader.readAll(path: path).records
        #expect(after.map(\.seq) == Array(1...410))
        #expect(after.map(\.event) == all[0..<410].map(\.event))
    }

    @Test func aChangedByteInsideABatchFrameIsCorruptionNamingTheFrame() throws {
        let all = entries(seed: 23, count: 600)
        let path = path()
        let writer = try open(path, version: 4, durability: .syncEachAppend)
        try writer.append(Array(all[0..<300]))
        try writer.append(Array(all[300...]))
        writer.close()
        var bytes = readBytes(path)
        let offsets = frameOffsets(bytes)
        #expect(offsets.count == 2, "two appends of 300 records: two batch frames")
        // A byte inside the first frame's body: a later frame proves it was durable.
        bytes[offsets[0] + 40] ^= 0x10
        writeBytes(path, bytes)
        #expect(throws: EventLogError.self) { _ = try LogReader.readAll(path: path, mode: .absoluteConsistency) }
        let (records, report) = try LogReader.readAll(path: path, mode: .pointInTime)
        #expect(records.isEmpty)
        #expect(report.damage?.offset == Int64(offsets[0]) && report.damage?.isTornTail == false)
    }

    @Test func anAppendOfOneRecordIsAVersionTwoFrameInAVersionFourLog() throws {
        let path = path()
        let writer = try open(path, version: 4)
        let record = try writer.append(LogEntry(.added(id: fixedID(1), title: "Amber", isEnabled: true, index: 0)))
        writer.close()
        let bytes = readBytes(path)
        let word = bytes[64..<68].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self).littleEndian }
        #expect(word & FrameFormat.batchFlag == 0)
        #expect(Int(word & FrameFormat.lengthBits) == record.payloadLength)
    }

    @Test func aStagedAppendToAVersionFourLogWritesBatchFramesThatCommitAtOnce() throws {
        let all = records(seed: 29, count: 3_000)
        var paths: [String] = []
        for version in [UInt16(2), 4] {
            let path = path()
            let writer = try open(path, version: version)
            let reader = try LogReader(path: path)
            try writer.appendStaged(expectedLastSeq: 0) { staged in
                try staged.write(Array(all[0..<700]))
                try staged.write([all[700]])
                // Nothing is a record before the commit.
                #expect(try reader.poll().isEmpty)
                try staged.write(Array(all[701...]))
            }
            writer.close()
            paths.append(path)
        }
        let four = try LogReader.readAll(path: paths[1])
        #expect(four.records == all)
        #expect(four.records == (try LogReader.readAll(path: paths[0]).records))
        #expect(four.report.damage == nil)
    }

    @Test func aStagedAppendThatFailsLeavesAVersionFourLogAsItWas() throws {
        let all = records(seed: 31, count: 2_000)
        let path = path()
        let writer = try open(path, version: 4)
        try writer.append(entries(of: all[0..<500]))
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try writer.appendStaged(expectedLastSeq: 500) { staged in
                try staged.write(Array(all[500..<1_500]))
                throw Stop()
            }
        }
        #expect(writer.lastSeq == 500)
        try writer.append(entries(of: all[500..<510]))
        writer.close()
        #expect(try LogReader.readAll(path: path).records.map(\.event) == all[0..<510].map(\.event))
    }

    @Test func theHistoryIndexOfAVersionFourLogNamesEachRecordsFrameAndReadsLandOnIt() throws {
        let all = entries(seed: 37, count: 5_000)
        let (v2, v4) = try twoLogs(all, appends: [1, 1_500, 3, 2_000, 1])
        let reference = try LogReader.readAll(path: v2).records
        let index = try HistoryIndexFile.update(logPath: v4).index
        #expect(index.coveredSeq == 5_000)
        let reader = try LogReader(path: v4)
        var rng = SeededGenerator(seed: 37)
        for _ in 0..<60 {
            let seq = UInt64.random(in: 1...5_000, using: &rng)
            // The record offsets are used, not only the block starts (records of a batch frame share an offset).
            #expect(try index.recordOffsets(of: seq) != nil, "seq \(seq)")
            try reader.move(toSeq: seq, using: index)
            #expect(try reader.next() == reference[Int(seq) - 1], "seq \(seq)")
        }
    }
}
