import Foundation
import LabelStoreTestSupport
import Testing

@testable import EventLog

@Suite("Recovery")
struct RecoveryTests {
    @Test func truncatingInsideTheLastRecordsRecoversExactlyTheWholeRecordsBeforeIt() throws {
        let dir = TemporaryDirectory()
        let original = dir.file("original")
        let records = try writeLog(original)
        let bytes = readBytes(original)
        let offsets = frameOffsets(bytes)
        #expect(offsets.count == records.count)
        // Every cut from the start of the third-last record to the end of the file.
        for cut in offsets[offsets.count - 3]...bytes.count {
            let path = dir.file("cut-\(cut)")
            writeBytes(path, Array(bytes[..<cut]))
            let whole = offsets.filter { $0 + 8 <= cut }.enumerated().filter { i, start in
                (i + 1 < offsets.count ? offsets[i + 1] : bytes.count) <= cut
            }.count
            // A reader reports; a writer cuts the tail and makes the file end at the last whole record.
            let (read, report) = try LogReader.readAll(path: path)
            #expect(read == Array(records[..<whole]), "cut at \(cut)")
            #expect(report.lastSeq == UInt64(whole))
            #expect(report.droppedBytes == Int64(cut - (whole < offsets.count ? offsets[whole] : bytes.count)))
            if report.droppedBytes > 0 {
                #expect(report.damage?.isTornTail == true)
                #expect(report.damage?.offset == Int64(offsets[whole]))
            }
            let writer = try LogWriter.open(path: path)
            #expect(writer.lastSeq == UInt64(whole))
            #expect(writer.recoveryReport == report)
            // The log accepts appends after recovery, with the next seq.
            let next = try writer.append(LogEntry(.toggled(id: fixedID(9), isEnabled: true)))
            #expect(next.seq == UInt64(whole) + 1)
            writer.close()
            #expect(try LogReader.readAll(path: path).records == Array(records[..<whole]) + [next])
            try FileManager.default.removeItem(atPath: path)
        }
    }

    @Test func everySingleBitFlipInARecordIsDetected() throws {
        let dir = TemporaryDirectory()
        let original = dir.file("original")
        let records = try writeLog(original)
        let bytes = readBytes(original)
        let offsets = frameOffsets(bytes)
        let path = dir.file("flipped")
        var tails = 0, corruptions = 0
        for byte in LogFormat.headerLength..<bytes.count {
            let record = offsets.lastIndex(where: { $0 <= byte })!
            for bit in 0..<8 {
                var flipped = bytes
                flipped[byte] ^= 1 << bit
                writeBytes(path, flipped)
                do {
                    let (read, report) = try LogReader.readAll(path: path)
                    // Accepted only as a torn *last* record: everything before it intact, the damage reported.
                    #expect(record == records.count - 1, "flip at \(byte):\(bit) in record \(record + 1) was taken as a torn tail")
                    #expect(read == Array(records[..<record]))
                    #expect(report.damage?.offset == Int64(offsets[record]))
                    tails += 1
                } catch let error as EventLogError {
                    #expect(error.code == .corruptRecord || error.code == .seqGap, "\(error)")
                    #expect(error.offset == Int64(offsets[record]), "flip at \(byte):\(bit): \(error)")
                    #expect(error.lastGoodSeq == UInt64(record))
                    corruptions += 1
                }
            }
        }
        #expect(tails > 0 && corruptions > 0)
        #expect(tails + corruptions == (bytes.count - LogFormat.headerLength) * 8)
    }

    @Test func zeroBytesAfterTheLastRecordArePreallocatedSpaceNotDamage() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let records = try writeLog(path)
        let good = readBytes(path)
        writeBytes(path, good + [UInt8](repeating: 0, count: 4096))
        let (read, report) = try LogReader.readAll(path: path, mode: .absoluteConsistency)
        #expect(read == records)
        #expect(report.damage == nil)
        #expect(report.preallocatedBytes == 4096)
        #expect(report.droppedBytes == 0)
        let writer = try LogWriter.open(path: path, options: .init(recovery: .absoluteConsistency))
        let next = try writer.append(LogEntry(.toggled(id: fixedID(1), isEnabled: true)))
        writer.close()
        // A clean close trims the unused space.
        #expect(try LogReader.readAll(path: path).records == records + [next])
        let after = try LogReader.readAll(path: path).report
        #expect(after.preallocatedBytes == 0)
        #expect(after.validLength == Int64(readBytes(path).count))
    }

    @Test func zerosFollowedByAnythingElseAreATornTailNotPreallocation() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let records = try writeLog(path)
        let good = readBytes(path)
        writeBytes(path, good + [UInt8](repeating: 0, count: 100) + [7] + [UInt8](repeating: 0, count: 100))
        let (read, report) = try LogReader.readAll(path: path)
        #expect(read == records)
        #expect(report.damage?.isTornTail == true)
        #expect(report.droppedBytes == 201)
    }

    @Test func aWriterPreallocatesAheadAndAppendsIntoTheZeros() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let writer = try LogWriter.open(path: path, options: .init(createIfMissing: true, preallocation: 64 << 10))
        let first = try writer.append(sampleEntries())
        #expect(readBytes(path).count == 64 << 10, "the file is extended by whole preallocation steps")
        // A reader sees exactly the records, and the zeros as preallocated space.
        let (read, report) = try LogReader.readAll(path: path, mode: .absoluteConsistency)
        #expect(read == first)
        #expect(report.preallocatedBytes == Int64(64 << 10) - report.validLength)
        let big = (0..<2000).map { LogEntry(.added(id: LabelID(), title: "label \($0)", isEnabled: true, index: $0)) }
        let more = try writer.append(big)
        #expect(readBytes(path).count % (64 << 10) == 0)
        #expect(readBytes(path).count > 64 << 10)
        writer.close()
        #expect(try LogReader.readAll(path: path).records == first + more)
        #expect(try LogReader.readAll(path: path).report.preallocatedBytes == 0, "close trims")
    }

    @Test(arguments: ["garbage", "half a frame header", "a frame with a wrong checksum", "an absurd length"])
    func junkAfterTheLastRecordIsATornTail(kind: String) throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let records = try writeLog(path)
        let good = readBytes(path)
        var rng = SeededGenerator(seed: 42)
        let junk: [UInt8]
        switch kind {
        case "garbage": junk = (0..<3000).map { _ in UInt8.random(in: 0...255, using: &rng) }
        case "half a frame header": junk = [0x20, 0, 0]
        case "a frame with a wrong checksum": junk = [6, 0, 0, 0, 1, 2, 3, 4, 11, 0, 1, 0, 0, 0]
        default: junk = [0xff, 0xff, 0xff, 0x7f, 0, 0, 0, 0, 1, 2, 3]
        }
        writeBytes(path, good + junk)
        let writer = try LogWriter.open(path: path)
        #expect(writer.lastSeq == UInt64(records.count))
        #expect(writer.recoveryReport.droppedBytes == Int64(junk.count))
        #expect(writer.recoveryReport.damage?.offset == Int64(good.count))
        #expect(writer.recoveryReport.damage?.isTornTail == true)
        writer.close()
        #expect(readBytes(path) == good)
    }

    @Test func absoluteConsistencyRefusesEvenATornTailAndChangesNothing() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        try writeLog(path)
        let torn = readBytes(path).dropLast(3)
        writeBytes(path, Array(torn))
        do {
            _ = try LogWriter.open(path: path, options: .init(recovery: .absoluteConsistency))
            Issue.record("opened a torn log in absolute-consistency mode")
        } catch let error as EventLogError {
            #expect(error.code == .corruptRecord)
            #expect(error.message.contains("torn"))
        }
        #expect(readBytes(path) == Array(torn))
    }

    @Test func corruptionBeforeTheTailFailsByDefaultAndSalvageKeepsTheGoodPrefix() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let records = try writeLog(path)
        var bytes = readBytes(path)
        let offsets = frameOffsets(bytes)
        bytes[offsets[4] + 10] ^= 0xff  // inside record 5
        writeBytes(path, bytes)
        for mode in [RecoveryMode.tolerateCorruptedTail, .absoluteConsistency] {
            do {
                _ = try LogWriter.open(path: path, options: .init(recovery: mode))
                Issue.record("\(mode) opened a log corrupt in the middle")
            } catch let error as EventLogError {
                #expect(error.code == .corruptRecord)
                #expect(error.offset == Int64(offsets[4]))
                #expect(error.lastGoodSeq == 4)
                #expect(error.description.contains("byte offset: \(offsets[4])"))
                #expect(error.description.contains("last good seq: 4"))
            }
            #expect(readBytes(path) == bytes, "a refused open modified the file")
        }
        let writer = try LogWriter.open(path: path, options: .init(recovery: .pointInTime))
        #expect(writer.lastSeq == 4)
        #expect(writer.recoveryReport.damage?.isTornTail == false)
        let saved = try #require(writer.recoveryReport.savedTailPath)
        #expect(readBytes(saved) == Array(bytes[offsets[4]...]), "salvage must keep the bytes it cut")
        writer.close()
        #expect(try LogReader.readAll(path: path).records == Array(records[..<4]))
    }

    /// Two salvages in one millisecond (seen in a crash test's run) gave the
    /// same `PATH.salvaged-<ms>` name, and the second open failed with "a file
    /// already exists". A taken name gets a suffix; no salvage is overwritten.
    /// (The other salvage is made by the file system at the moment the writer
    /// asks for the name, so the test does not depend on the clock.)
    @Test func aSalvageWhoseNameIsTakenIsSavedUnderTheNextFreeName() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        try writeLog(path)
        var bytes = readBytes(path)
        let offsets = frameOffsets(bytes)
        bytes[offsets[4] + 10] ^= 0xff  // inside record 5
        writeBytes(path, bytes)
        let fileSystem = NameTakingFileSystem(takenPrefix: "\(path).salvaged-")
        let writer = try LogWriter.open(
            path: path, options: .init(recovery: .pointInTime, fileSystem: fileSystem))
        defer { writer.close() }
        let saved = try #require(writer.recoveryReport.savedTailPath)
        let taken = try #require(fileSystem.taken.first)
        #expect(saved == taken + "-2", "\(saved)")
        #expect(readBytes(saved) == Array(bytes[offsets[4]...]))
        #expect(readBytes(taken) == [0x2a], "the earlier file is kept")
    }

    @Test func aValidFrameWithTheWrongSeqIsASeqGap() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let records = try writeLog(path, Array(sampleEntries()[..<3]))
        var skipped = records[2]
        skipped.seq = 5
        writeBytes(path, readBytes(path) + (try nextFrame(skipped, after: readBytes(path))))
        do {
            _ = try LogWriter.open(path: path)
            Issue.record("opened a log with a seq gap")
        } catch let error as EventLogError {
            #expect(error.code == .seqGap)
            #expect(error.lastGoodSeq == 3)
            #expect(error.message.contains("seq 5"))
        }
        // Duplicated record: same seq twice.
        let dup = dir.file("dup")
        try writeLog(dup, Array(sampleEntries()[..<3]))
        let b = readBytes(dup)
        let offsets = frameOffsets(b)
        writeBytes(dup, b + Array(b[offsets[2]...]))
        #expect(throws: EventLogError.self) { _ = try LogReader.readAll(path: dup) }
    }

    @Test func aValidChecksumOverUndecodableContentIsCorruptionNotATornTail() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        try writeLog(path, Array(sampleEntries()[..<2]))
        // A well-framed record whose kind byte is 99.
        var payload = ByteWriter()
        payload.varint(3)
        payload.zigzag(0)
        payload.u8(99)
        payload.u8(0)
        writeBytes(path, readBytes(path) + (try nextFrame(payload: payload.bytes, after: readBytes(path))))
        do {
            _ = try LogWriter.open(path: path)
            Issue.record("opened a log with an unknown kind")
        } catch let error as EventLogError {
            #expect(error.code == .corruptRecord)
            #expect(error.message.contains("unknown event kind 99"))
        }
    }
}

@Suite("Reader tail")
struct ReaderTailTests {
    @Test func theReaderClassifiesWhatFollowsTheLastRecord() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let records = try writeLog(path)
        let good = readBytes(path)
        let offsets = frameOffsets(good)
        let cases: [(String, [UInt8], LogReader.Tail?)] = [
            ("nothing", good, LogReader.Tail.none),
            ("preallocated zeros", good + [UInt8](repeating: 0, count: 1000), .preallocated(bytes: 1000)),
            ("half a record", good + Array(good[offsets[1]..<(offsets[1] + 9)]), .torn(offset: Int64(good.count), bytes: 9, reason: "")),
            // Zeros in the middle followed by a good record: corruption, never a tail.
            (
                "zeroed record before a good one",
                Array(good[..<offsets[8]]) + [UInt8](repeating: 0, count: offsets[9] - offsets[8]) + Array(good[offsets[9]...]), nil
            )
        ]
        for (name, bytes, expected) in cases {
            writeBytes(path, bytes)
            let reader = try LogReader(path: path)
            let read = try reader.poll()
            if expected == nil { #expect(read == Array(records[..<8]), "\(name)") }
            do {
                let tail = try reader.tail()
                switch (tail, expected) {
                case (.torn(let o, let b, _), .torn(let eo, let eb, _)?):
                    #expect(o == eo && b == eb, "\(name)")
                default:
                    #expect(tail == expected, "\(name): \(tail)")
                }
                #expect(read == records, "\(name)")
            } catch {
                #expect(expected == nil, "\(name): \(error)")
                #expect(error.code == .corruptRecord && error.offset == Int64(offsets[8]), "\(name): \(error)")
            }
        }
    }
}

@Suite struct PreallocationStepTests {
    @Test func theStepGrowsWithTheFileInWholeBaseStepsUpTo64MiB() {
        let mib: Int64 = 1 << 20
        #expect(LogWriter.preallocationStep(base: mib, allocated: 0) == mib)
        #expect(LogWriter.preallocationStep(base: mib, allocated: 8 * mib) == mib)
        #expect(LogWriter.preallocationStep(base: mib, allocated: 20 * mib) == 2 * mib, "an eighth of 20 MiB, in whole MiB")
        #expect(LogWriter.preallocationStep(base: mib, allocated: 800 * mib) == 64 * mib)
        #expect(LogWriter.preallocationStep(base: 64 << 10, allocated: 64 << 10) == 64 << 10)
        #expect(LogWriter.preallocationStep(base: 128 * mib, allocated: 4096 * mib) == 128 * mib, "never below the configured step")
    }

    @Test func aGrowingLogIsExtendedByLargerStepsAndTrimmedOnClose() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let writer = try LogWriter.open(path: path, options: .init(durability: .noSync, createIfMissing: true, preallocation: 64 << 10))
        let entry = LogEntry(.added(id: fixedID(1), title: String(repeating: "t", count: 900), isEnabled: true, index: 0))
        for _ in 0..<1200 { try writer.append(entry) }
        let size = Int64(readBytes(path).count)
        let end = writer.byteLength
        #expect(size > end && size - end < max(64 << 10, end / 8) + (64 << 10), "at most one step ahead")
        writer.close()
        #expect(Int64(readBytes(path).count) == end)
        #expect(try LogReader.readAll(path: path).records.count == 1200)
    }
}

/// The real file system, except that the first exclusive create of a path
/// starting with `takenPrefix` finds that a file of the same name was made a
/// moment before (holding one byte, 0x2a), as another salvage in the same
/// millisecond would leave it.
private final class NameTakingFileSystem: LogFileSystem {
    let takenPrefix: String
    private let names = Locked<[String]>([])
    init(takenPrefix: String) { self.takenPrefix = takenPrefix }
    /// The names taken before the writer could create them.
    var taken: [String] { names.withLock { $0 } }

    func open(_ path: String, _ mode: LogFileMode) throws(EventLogError) -> any LogFile {
        if mode == .createExclusive, path.hasPrefix(takenPrefix) {
            let first = names.withLock { names -> Bool in
                guard names.isEmpty else { return false }
                names.append(path)
                return true
            }
            if first { writeBytes(path, [0x2a]) }
        }
        return try SystemFileSystem().open(path, mode)
    }
    func exists(_ path: String) -> Bool { SystemFileSystem().exists(path) }
    func link(_ from: String, to: String) throws(EventLogError) { try SystemFileSystem().link(from, to: to) }
    func unlink(_ path: String) { SystemFileSystem().unlink(path) }
    func syncDirectory(containing path: String) throws(EventLogError) {
        try SystemFileSystem().syncDirectory(containing: path)
    }
}
