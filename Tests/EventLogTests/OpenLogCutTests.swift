import Foundation
import LabelStoreTestSupport
import Synchronization
import Testing

@testable import EventLog

/// `LogWriter.cutHistory`: cutting a log that stays open, while other
/// threads append, read and sync.
@Suite("Cutting an open log")
struct OpenLogCutTests {
    static func entry(_ i: Int) -> LogEntry {
        LogEntry(.added(id: LabelID(), title: "label \(i) " + String(repeating: "x", count: abs(i) % 40), isEnabled: true, index: 0))
    }

    /// Every record of the archive and then of the log at `path`, and whether the two join.
    static func joined(_ path: String, archive: String?) throws -> (records: [EventRecord], joins: Bool) {
        let (kept, report) = try LogReader.readAll(path: path)
        #expect(report.damage == nil, "the log is whole")
        let header = try LogReader(path: path).header
        guard let archive else { return (kept, true) }
        let (archived, archiveReport) = try LogReader.readAll(path: archive)
        #expect(archiveReport.damage == nil, "the archive is whole")
        let reader = try LogReader(path: archive)
        while try reader.next() != nil {}
        return (archived + kept, reader.lastPosition?.checksum == header.previousChecksum && archived.last?.seq == header.firstSeq - 1)
    }

    @Test(arguments: [Durability.syncEachAppend, .groupCommit, .noSync])
    func aCutWhileOtherThreadsAppendKeepsEveryRecordAndTheWriterGoesOnInTheNewFile(durability: Durability) throws {
        let dir = TemporaryDirectory()
        let path = dir.file("open.labellog")
        let archive = dir.file("open.1-3000.labellog")
        let writer = try LogWriter.open(path: path, options: .init(durability: durability, createIfMissing: true, preallocation: 64 << 10))
        var written = try writer.append((0..<4000).map(Self.entry))
        let appended = Locked<[EventRecord]>([])
        let stop = Atomic<Bool>(false)
        let appenders = (0..<2).map { t in
            Thread {
                var i = 0
                while !stop.load(ordering: .acquiring) || i < 50 {
                    let records = try! writer.append([Self.entry(t * 100_000 + i)])
                    appended.withLock { $0 += records }
                    i += 1
                }
            }
        }
        for thread in appenders { thread.start() }
        var visited: [UInt64] = []
        let report = try writer.cutHistory(
            through: 3000, archiveTo: archive, now: .now(), visitingCut: { visited.append($0.seq) }, image: { [1, 2, 3] })
        stop.store(true, ordering: .releasing)
        while appended.withLock({ $0.count }) < 100 { Thread.sleep(forTimeInterval: 0.001) }
        written += try writer.append([Self.entry(-1)])  // after the cut, in the new file
        Thread.sleep(forTimeInterval: 0.05)
        written += appended.withLock { $0 }
        written.sort { $0.seq < $1.seq }
        #expect(visited == Array(1...3000), "each record cut is visited once, in order")
        #expect(report.cut == 1...3000 && report.firstSeq == 3001)
        #expect(writer.header.firstSeq == 3001 && writer.base?.image == [1, 2, 3])
        #expect(try writer.read(from: 3001, maxCount: 10).map(\.seq) == Array(3001...3010))
        #expect(try writer.read(from: 1, maxCount: 1).first?.seq == 3001, "a read before the base starts at the first record")
        try writer.sync()
        writer.close()
        let (all, joins) = try Self.joined(path, archive: archive)
        #expect(joins, "the archive ends where the base begins, and the chain goes on")
        #expect(all.map(\.seq) == Array(1...UInt64(written.count)) && all == written, "every record, the archive's then the log's")
        // Reopened, the writer finds the based log and appends after it.
        let reopened = try LogWriter.open(path: path)
        #expect(reopened.lastSeq == UInt64(written.count) && reopened.header.firstSeq == 3001)
        try reopened.append(Self.entry(7))
        reopened.close()
    }

    @Test func readsAndSyncsRacingTheCutSeeTheOldFileOrTheNewOneWhole() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("reads.labellog")
        let writer = try LogWriter.open(path: path, options: .init(durability: .groupCommit, createIfMissing: true))
        let records = try writer.append((0..<6000).map(Self.entry))
        let stop = Atomic<Bool>(false)
        let failures = Locked<[String]>([])
        let readers = (0..<2).map { t in
            Thread {
                var rng = SeededGenerator(seed: UInt64(t))
                while !stop.load(ordering: .acquiring) {
                    let seq = UInt64.random(in: 2001...6000, using: &rng)
                    do {
                        let read = try writer.read(from: seq, maxCount: 50)
                        if read != Array(records[Int(seq - 1)..<min(6000, Int(seq) + 49)]) {
                            failures.withLock { $0.append("read \(seq)") }
                        }
                        if t == 1 { try writer.sync() }
                        if try writer.frameChecksum(ofSeq: seq) == nil { failures.withLock { $0.append("checksum \(seq)") } }
                    } catch {
                        failures.withLock { $0.append("\(seq): \(error)") }
                    }
                }
            }
        }
        for thread in readers { thread.start() }
        Thread.sleep(forTimeInterval: 0.02)
        try writer.cutHistory(through: 2000, archiveTo: nil, now: .now(), image: { [] })
        Thread.sleep(forTimeInterval: 0.05)
        stop.store(true, ordering: .releasing)
        Thread.sleep(forTimeInterval: 0.05)
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0.prefix(3) })")
        #expect(writer.base?.disposition == .dropped && writer.base?.lastCutSeq == 2000)
        writer.close()
    }

    @Test func aCutOfEveryRecordLeavesAnEmptyBasedLogThatGoesOnFromTheChain() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("all.labellog")
        let writer = try LogWriter.open(path: path, options: .init(createIfMissing: true))
        let records = try writer.append((0..<300).map(Self.entry))
        try writer.cutHistory(through: 300, archiveTo: dir.file("all.archive"), now: .now(), image: { [9] })
        #expect(writer.lastPosition == nil && writer.lastSeq == 300)
        let next = try writer.append(Self.entry(1))
        #expect(next.seq == 301)
        writer.close()
        let (all, joins) = try Self.joined(path, archive: dir.file("all.archive"))
        #expect(joins && all == records + [next])
    }

    @Test func aCutIsRefusedWithoutChangingAnythingWhenItCannotBeMade() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("refused.labellog")
        let writer = try LogWriter.open(path: path, options: .init(createIfMissing: true))
        try writer.append((0..<100).map(Self.entry))
        let before = readBytes(path).prefix(Int(writer.byteLength))
        func code(_ body: () throws -> Void) -> EventLogError.Code? {
            do { try body() } catch let error as EventLogError { return error.code } catch { return nil }
            return nil
        }
        #expect(code { try writer.cutHistory(through: 101, archiveTo: nil, now: .now(), image: { [] }) } == .invalidEvent)
        #expect(code { try writer.cutHistory(through: 0, archiveTo: nil, now: .now(), image: { [] }) } == .invalidEvent)
        writeBytes(dir.file("taken"), [1])
        #expect(code { try writer.cutHistory(through: 50, archiveTo: dir.file("taken"), now: .now(), image: { [] }) } == .fileExists)
        // A staged append open at the swap.
        let staged = code {
            _ = try writer.appendStaged(expectedLastSeq: nil) { stage in
                try stage.write([EventRecord(seq: stage.nextSeq, timestamp: .now(), event: Self.entry(1).event)])
                try writer.cutHistory(through: 50, archiveTo: nil, now: .now(), image: { [] })
            }
        }
        #expect(staged == .logInUse)
        let same = readBytes(path).prefix(before.count) == before
        #expect(same, "the log is as it was")
        #expect(writer.header.firstSeq == 1)
        // Closed while it works (the archive is written after): the log stays whole; the archive stays too,
        // a copy of the log's first records (removing it could race a later writer's cut of the same name).
        let archive = dir.file("refused.1-50.labellog")
        #expect(
            code {
                try writer.cutHistory(
                    through: 50, archiveTo: archive, now: .now(),
                    image: {
                        writer.close()
                        return []
                    })
            } == .closed)
        #expect(try LogReader.readAll(path: path).records.count == 100)
        let copy = readBytes(archive)
        let isCopy = readBytes(path).prefix(copy.count) == copy[...]
        #expect(isCopy, "the archive left is a copy of the log's first records")
        try FileManager.default.removeItem(atPath: archive)
        #expect(code { try writer.cutHistory(through: 50, archiveTo: nil, now: .now(), image: { [] }) } == .closed)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["refused.labellog", "taken"],
            "no temporary file is left")
    }
}
