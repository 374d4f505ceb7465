import Foundation
import LabelStoreTestSupport
import Testing

@testable import EventLog

@Suite("Log file")
struct LogFileTests {
    @Test func appendedRecordsReadBackAfterReopen() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let written = try writeLog(path)
        #expect(written.map(\.seq) == Array(1...UInt64(written.count)))
        var replayed: [EventRecord] = []
        let writer = try LogWriter.open(path: path, replay: { replayed.append($0) })
        defer { writer.close() }
        #expect(replayed == written)
        #expect(writer.lastSeq == UInt64(written.count))
        #expect(writer.recoveryReport.damage == nil)
        #expect(try writer.read(from: 1, maxCount: 100) == written)
        #expect(try LogReader.readAll(path: path).records == written)
    }

    @Test func aBatchAppendIsOneAtomicWriteWithConsecutiveSeqs() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let records = try writeLog(path, batch: true)
        #expect(records.map(\.seq) == Array(1...UInt64(sampleEntries().count)))
        #expect(try LogReader.readAll(path: path).records == records)
    }

    /// `append(records:)` (a synced device's mirror): the records kept as
    /// they are — seqs, times, actors, notes — in one append; records that
    /// do not continue the log, one after another, are refused and nothing
    /// is written.
    @Test func recordsAppendedAsTheyAreReadBackTheSameAndAGapIsRefused() throws {
        let dir = TemporaryDirectory()
        let source = try writeLog(dir.file("source.labellog"))
        let copy = try LogWriter.open(path: dir.file("copy.labellog"), options: .init(createIfMissing: true))
        defer { copy.close() }
        try copy.append(records: Array(source.prefix(3)), expectedLastSeq: 0)
        try copy.append(records: Array(source.dropFirst(3)))
        #expect(try copy.read(from: 1, maxCount: 100) == source)
        #expect(try LogReader.readAll(path: copy.path).records == source)
        let end = copy.lastSeq
        var gap = Array(source.prefix(2))
        gap[0].seq = end + 1
        gap[1].seq = end + 3
        #expect(throws: EventLogError.self) { try copy.append(records: gap) }
        #expect(throws: EventLogError.self) { try copy.append(records: [source[0]]) }
        #expect(copy.lastSeq == end)
        #expect(try LogReader.readAll(path: copy.path).records == source)
    }

    @Test func readFromAnySeqUsesTheSparseIndex() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let entries = (0..<3000).map { LogEntry(.added(id: LabelID(), title: "label \($0)", isEnabled: $0 % 2 == 0, index: $0)) }
        let writer = try LogWriter.open(path: path, options: .init(durability: .noSync, createIfMissing: true))
        defer { writer.close() }
        try writer.append(Array(entries[..<1000]))
        try writer.append(Array(entries[1000...]))
        for seq: UInt64 in [1, 2, 1024, 1025, 1026, 2048, 2049, 2999, 3000] {
            let got = try writer.read(from: seq, maxCount: 2)
            #expect(got.first?.seq == seq)
            #expect(got.first?.event == entries[Int(seq) - 1].event)
        }
        #expect(try writer.read(from: 3001, maxCount: 5).isEmpty)
        #expect(try writer.read(from: 2999, maxCount: 5).count == 2)
        var count = 0
        try writer.forEachRecord(from: 10, through: 2010, batch: 333) { record in
            count += 1
            return true
        }
        #expect(count == 2001)
    }

    @Test func callerTimestampsActorsAndNotesArePreserved() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let writer = try LogWriter.open(path: path, options: .init(createIfMissing: true))
        let t = EventTimestamp(iso8601: "2024-02-29T12:00:00.500Z")!
        let r = try writer.append(LogEntry(.toggled(id: fixedID(1), isEnabled: true), timestamp: t, actor: "importer", note: "ticket-42"))
        writer.close()
        let back = try LogReader.readAll(path: path).records
        #expect(back == [r])
        #expect(back[0].timestamp == t && back[0].actor == "importer" && back[0].note == "ticket-42")
    }

    @Test func aMissingFileIsCreatedOnlyWhenAsked() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        do {
            _ = try LogWriter.open(path: path)
            Issue.record("opened a missing file")
        } catch let error as EventLogError {
            #expect(error.code == .fileNotFound)
            #expect(error.description.contains(path))
        }
        #expect(!FileManager.default.fileExists(atPath: path))
        let writer = try LogWriter.open(path: path, options: .init(createIfMissing: true))
        #expect(writer.created)
        #expect(writer.lastSeq == 0)
        writer.close()
        // Creation left no temporary file behind, and the new log opens as an empty log.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["test.labellog"])
        #expect(try LogReader.readAll(path: path).records.isEmpty)
        #expect(readBytes(path).count == LogFormat.headerLength)
        let again = try LogWriter.open(path: path, options: .init(createIfMissing: true))
        #expect(!again.created)
        again.close()
    }

    @Test func foreignAndDamagedFilesGiveClearErrors() throws {
        let dir = TemporaryDirectory()
        let cases: [(String, [UInt8], EventLogError.Code)] = [
            ("empty", [], .emptyFile),
            ("text", Array("hello, this is not a log at all, just some text bytes in a file..........".utf8), .notALog),
            ("short magic", Array("LABEL".utf8), .notALog),
            ("short header", Array("LABELLOG".utf8) + [1, 0, 0], .corruptHeader)
        ]
        for (name, bytes, code) in cases {
            let path = dir.file(name)
            writeBytes(path, bytes)
            for open in [{ _ = try LogWriter.open(path: path) }, { _ = try LogReader(path: path) }] as [() throws -> Void] {
                do {
                    try open()
                    Issue.record("\(name) opened")
                } catch let error as EventLogError {
                    #expect(error.code == code, "\(name): \(error)")
                    #expect(error.path == path)
                }
            }
            #expect(readBytes(path) == bytes, "\(name) was modified")
        }
    }

    @Test func aHeaderBitFlipIsCorruptHeader() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        try writeLog(path)
        let original = readBytes(path)
        for byte in 8..<LogFormat.headerLength {
            var bytes = original
            bytes[byte] ^= 0x10
            writeBytes(path, bytes)
            do {
                _ = try LogReader(path: path)
                Issue.record("header flip at byte \(byte) not detected")
            } catch {
                #expect(error.code == .corruptHeader, "byte \(byte): \(error)")
            }
        }
    }

    @Test func aLogFromANewerFormatVersionIsRefusedByName() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        var header = LogHeader(createdAt: .now())
        header.version = LogFormat.newestReadableVersion + 1
        writeBytes(path, header.encoded())
        do {
            _ = try LogWriter.open(path: path)
            Issue.record("opened a newer version")
        } catch let error as EventLogError {
            #expect(error.code == .unsupportedVersion)
            #expect(error.message.contains("version \(LogFormat.newestReadableVersion + 1)"))
        }
    }

    @Test func aDamagedBaseBlockIsACorruptHeaderNamingItsOffset() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let base = LogBase(
            cut: 1...3, timeRange: EventTimestamp(millisecondsSince1970: 5)...EventTimestamp(millisecondsSince1970: 9),
            cutAt: EventTimestamp(millisecondsSince1970: 10), disposition: .archived(file: "a.labellog"),
            frontier: [HistoryHash.leaf(payload: [1]), HistoryHash.leaf(payload: [2])], image: [1, 2, 3])
        let good = LogHeader(logID: LabelID(), createdAt: .now(), base: base, previousChecksum: 0x1234_5678).encoded()
        writeBytes(path, good)
        let reader = try LogReader(path: path)
        #expect(reader.header.base == base && reader.header.firstSeq == 4 && reader.header.previousChecksum == 0x1234_5678)
        #expect(reader.header.length == good.count && reader.nextSeq == 4)
        #expect(try reader.next() == nil)
        // Every byte of the base block is covered: a flip anywhere is a corrupt header at or after byte 64.
        for byte in stride(from: LogFormat.headerLength, to: good.count, by: 3) {
            var bytes = good
            bytes[byte] ^= 0x10
            writeBytes(path, bytes)
            do {
                _ = try LogReader(path: path)
                Issue.record("a flip at byte \(byte) of the base block was not detected")
            } catch {
                #expect(error.code == .corruptHeader && (error.offset ?? 0) >= Int64(LogFormat.headerLength), "byte \(byte): \(error)")
            }
        }
        // A base block cut short.
        writeBytes(path, Array(good.dropLast(10)))
        #expect(throws: EventLogError.self) { _ = try LogReader(path: path) }
    }

    @Test func anEntryOverTheLimitsRejectsTheWholeAppend() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let writer = try LogWriter.open(path: path, options: .init(createIfMissing: true))
        defer { writer.close() }
        let good = LogEntry(.added(id: fixedID(1), title: "ok", isEnabled: true, index: 0))
        let bad = LogEntry(
            .added(id: fixedID(2), title: String(repeating: "x", count: LogLimits.maxTitleBytes + 1), isEnabled: true, index: 1))
        #expect(throws: EventLogError.self) { try writer.append([good, bad]) }
        #expect(writer.lastSeq == 0)
        #expect(writer.byteLength == Int64(LogFormat.headerLength))
        #expect(throws: EventLogError.self) {
            try writer.append(LogEntry(.toggled(id: fixedID(1), isEnabled: true), actor: String(repeating: "a", count: 2000)))
        }
        #expect(throws: EventLogError.self) { try writer.append(LogEntry(.moved(id: fixedID(1), from: -1, to: 0))) }
        try writer.append(good)
        #expect(writer.lastSeq == 1)
    }

    @Test func anExpectedLastSeqThatDoesNotMatchAppendsNothing() throws {
        let dir = TemporaryDirectory()
        let writer = try LogWriter.open(path: dir.file(), options: .init(durability: .noSync, createIfMissing: true))
        defer { writer.close() }
        try writer.append(sampleEntries()[0], expectedLastSeq: 0)
        do {
            try writer.append(sampleEntries()[1], expectedLastSeq: 0)
            Issue.record("appended after a stale seq")
        } catch {
            #expect(error.code == .seqConflict)
            #expect(error.lastGoodSeq == 1)
        }
        #expect(writer.lastSeq == 1)
    }

    @Test func aClosedWriterRefusesAppends() throws {
        let dir = TemporaryDirectory()
        let writer = try LogWriter.open(path: dir.file(), options: .init(createIfMissing: true))
        writer.close()
        #expect(throws: EventLogError.self) { try writer.append(sampleEntries()[0]) }
    }

    @Test(arguments: Durability.allCases)
    func everyDurabilityModeAppendsAndReadsBack(mode: Durability) throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let writer = try LogWriter.open(path: path, options: .init(durability: mode, createIfMissing: true))
        var written: [EventRecord] = []
        for entry in sampleEntries() { written.append(try writer.append(entry)) }
        written += try writer.append(sampleEntries())
        try writer.sync()
        writer.close()
        #expect(try LogReader.readAll(path: path).records == written)
    }
}

@Suite("Repair support")
struct RepairSupportTests {
    @Test func discardingRecordsAfterASeqKeepsExactlyThePrefix() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let entries = (0..<2500).map { LogEntry(.added(id: LabelID(), title: "label \($0)", isEnabled: true, index: $0)) }
        let writer = try LogWriter.open(path: path, options: .init(durability: .noSync, createIfMissing: true))
        let records = try writer.append(entries)
        #expect(throws: EventLogError.self) { try writer.discardRecords(after: 2501) }
        #expect(try writer.discardRecords(after: 2500) == 0)
        let cut = try writer.discardRecords(after: 1500)
        #expect(cut > 0)
        #expect(writer.lastSeq == 1500)
        let next = try writer.append(LogEntry(.toggled(id: records[0].event.labelID!, isEnabled: false)))
        #expect(next.seq == 1501)
        #expect(try writer.read(from: 1499, maxCount: 5).map(\.seq) == [1499, 1500, 1501])
        try writer.discardRecords(after: 0)
        #expect(writer.lastSeq == 0)
        writer.close()
        #expect(try LogReader.readAll(path: path).records.isEmpty)
        #expect(readBytes(path).count == LogFormat.headerLength)
    }
}

@Suite("Replay from a seq")
struct ReplayFromTests {
    @Test func recordsBeforeReplayFromAreCheckedButNotVisited() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let entries = (0..<3000).map { LogEntry(.added(id: LabelID(), title: "label \($0)", isEnabled: true, index: $0)) }
        let records = try writeLog(path, entries, batch: true, syncEvery: 100)
        var visited: [EventRecord] = []
        let writer = try LogWriter.open(path: path, replayFrom: 2500) { visited.append($0) }
        #expect(visited == Array(records[2499...]))
        #expect(writer.lastSeq == 3000)
        // The skipped records are indexed and readable.
        #expect(try writer.read(from: 1, maxCount: 3) == Array(records[..<3]))
        #expect(try writer.read(from: 1500, maxCount: 1) == [records[1499]])
        writer.close()

        // Damage below replayFrom is still found: a flipped bit, and a seq out of place.
        var bytes = readBytes(path)
        let offsets = frameOffsets(bytes)
        bytes[offsets[100] + 12] ^= 0x04
        writeBytes(path, bytes)
        do {
            _ = try LogWriter.open(path: path, replayFrom: 2500)
            Issue.record("a flipped bit below replayFrom was not noticed")
        } catch let error as EventLogError {
            #expect(error.code == .corruptRecord && error.offset == Int64(offsets[100]))
        }
        bytes[offsets[100] + 12] ^= 0x04
        let swapped =
            Array(bytes[..<offsets[5]]) + Array(bytes[offsets[6]..<offsets[7]]) + Array(bytes[offsets[5]..<offsets[6]])
            + Array(bytes[offsets[7]...])
        writeBytes(path, swapped)
        do {
            _ = try LogWriter.open(path: path, replayFrom: 2500)
            Issue.record("swapped records below replayFrom were not noticed")
        } catch let error as EventLogError {
            #expect(error.code == .seqGap && error.lastGoodSeq == 5)
        }
    }
}
