import Foundation
import LabelStoreTestSupport
import Testing

@testable import EventLog

/// `LogWriter.appendStaged`: one all-or-nothing append written in parts. Readers
/// see none of it before the commit and all of it after; a failure cuts it; a
/// crash or power loss at any call of it leaves the log without it or with all
/// of it, never part.
@Suite("Staged appends")
struct StagedAppendTests {
    /// `count` added labels numbered from `first`, with titles of varying length (some spanning pages).
    static func records(from first: UInt64, count: Int, tag: String = "") -> [EventRecord] {
        (0..<count).map { i in
            let n = Int(first) + i
            let title = "staged \(tag)\(n) " + String(repeating: "ü", count: (n * 37) % 300)
            return EventRecord(
                seq: first + UInt64(i), timestamp: EventTimestamp(millisecondsSince1970: 1_700_000_000_000 + Int64(n)),
                actor: "importer", event: .added(id: LabelID(), title: title, isEnabled: n % 2 == 0, index: 0))
        }
    }

    @Test func recordsAppearAllAtOnceAtTheCommitAndNotBefore() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let before = try writeLog(path)
        let writer = try LogWriter.open(path: path, options: .init(preallocation: 4096))
        defer { writer.close() }
        let reader = try LogReader(path: path)
        #expect(try reader.poll().count == before.count)
        let first = UInt64(before.count) + 1
        var staged: [EventRecord] = []
        let (_, seqs) = try writer.appendStaged(expectedLastSeq: UInt64(before.count)) { stage in
            for part in 0..<5 {
                let records = Self.records(from: stage.nextSeq, count: 300, tag: "p\(part) ")
                try stage.write(records)
                staged += records
                // Nothing of it is there yet, for any reader.
                #expect(try reader.poll().isEmpty, "a follower saw staged records")
                #expect(try LogReader.readAll(path: path).records == before)
                #expect(try writer.read(from: first, maxCount: 10).isEmpty)
                #expect(writer.lastSeq == UInt64(before.count))
                #expect(throws: EventLogError.self) { try writer.append(LogEntry(.toggled(id: LabelID(), isEnabled: true))) }
            }
        }
        #expect(seqs == first...(first + 1499))
        #expect(writer.lastSeq == first + 1499)
        #expect(try reader.poll() == staged, "the follower reads every staged record once committed")
        #expect(try writer.read(from: first, maxCount: 2000) == staged)
        #expect(try writer.frameChecksum(ofSeq: first + 1499) == LogReader.readAll(path: path).report.lastPosition?.checksum)
        // And the log goes on as usual.
        let next = try writer.append(LogEntry(.toggled(id: staged[0].event.labelID!, isEnabled: false)))
        #expect(next.seq == first + 1500)
        writer.close()
        let (all, report) = try LogReader.readAll(path: path)
        #expect(all == before + staged + [next] && report.damage == nil)
    }

    @Test func aStagedAppendThatFailsLeavesTheLogAsItWas() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let before = try writeLog(path)
        let bytes = readBytes(path)
        struct Stop: Error {}
        let writer = try LogWriter.open(path: path)
        #expect(throws: Stop.self) {
            try writer.appendStaged(expectedLastSeq: nil) { stage in
                try stage.write(Self.records(from: stage.nextSeq, count: 400))
                try stage.write(Self.records(from: stage.nextSeq, count: 400))
                throw Stop()
            }
        }
        // A record over a limit fails the whole staged append, naming the seq before it.
        var tooLong = Self.records(from: UInt64(before.count) + 1, count: 10)
        tooLong[6].actor = String(repeating: "a", count: LogLimits.maxActorBytes + 1)
        do {
            try writer.appendStaged(expectedLastSeq: nil) { stage in try stage.write(tooLong) }
            Issue.record("a record over the actor limit was staged")
        } catch let error as EventLogError {
            #expect(error.code == .invalidEvent && error.lastGoodSeq == UInt64(before.count) + 6, "\(error)")
        }
        #expect(throws: EventLogError.self, "a conflicting expectation stages nothing") {
            try writer.appendStaged(expectedLastSeq: 99) { _ in Issue.record("body ran") }
        }
        let (_, none) = try writer.appendStaged(expectedLastSeq: nil) { _ in }
        #expect(none == nil, "a staged append that writes nothing commits nothing")
        #expect(writer.lastSeq == UInt64(before.count))
        writer.close()
        #expect(readBytes(path) == bytes, "the file is byte for byte as it was")

        // Closing the writer in the middle of a staged append cuts it too.
        let again = try LogWriter.open(path: path)
        _ = try? again.appendStaged(expectedLastSeq: nil) { stage in
            try stage.write(Self.records(from: stage.nextSeq, count: 50))
            again.close()
        }
        #expect(readBytes(path) == bytes)
    }

    @Test func aVersion1LogStagesInMemoryAndCommitsInOneWrite() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        writeBytes(path, LogHeader(version: 1, createdAt: EventTimestamp(millisecondsSince1970: 0)).encoded())
        let writer = try LogWriter.open(path: path, options: .init(preallocation: 0))
        defer { writer.close() }
        var staged: [EventRecord] = []
        let (_, seqs) = try writer.appendStaged(expectedLastSeq: 0) { stage in
            for _ in 0..<3 {
                let records = Self.records(from: stage.nextSeq, count: 200)
                try stage.write(records)
                staged += records
                #expect(readBytes(path).count == LogFormat.headerLength, "nothing is written before the commit")
            }
        }
        #expect(seqs == 1...600)
        writer.close()
        let (read, report) = try LogReader.readAll(path: path)
        #expect(read == staged && report.damage == nil)
    }

    /// A crash, or a power loss of any kind, at every mutating call of a staged append:
    /// the reopened log holds the records acknowledged before it and then either none of
    /// the staged records or all of them — all only once the commit wrote its header.
    @Test(arguments: [Durability.syncEachAppend, .groupCommit])
    func aCrashAtAnyPointLeavesNoneOrAllOfTheStagedRecords(mode: Durability) throws {
        let dir = TemporaryDirectory()
        var rng = SeededGenerator(seed: mode == .syncEachAppend ? 11 : 12)
        var problems: [String] = []
        var point = 1
        var sawAll = false
        var sawNone = false
        while true {
            let path = dir.file("crash-\(point)")
            let fs = FaultyFileSystem()
            let writer = try LogWriter.open(
                path: path, options: .init(durability: mode, createIfMissing: true, fileSystem: fs, preallocation: 8192))
            let acknowledged = try writer.append(
                (0..<3).map { LogEntry(.added(id: LabelID(), title: "kept \($0)", isEnabled: true, index: 0)) })
            var staged: [EventRecord] = []
            fs.armCrash(beforeMutatingCall: point)
            let committed =
                (try? writer.appendStaged(expectedLastSeq: 3) { stage in
                    for part in 0..<3 {
                        let records = Self.records(from: stage.nextSeq, count: 40, tag: "c\(point)p\(part) ")
                        staged += records
                        try stage.write(records)
                    }
                }) != nil
            writer.close()
            let crashed = fs.hasCrashed
            var images = [("process crash", fs.imageAfterProcessCrash(path))]
            for loss in FaultyFileSystem.Loss.allCases {
                for _ in 0..<(loss == .outOfOrderPages ? 6 : 2) {
                    images.append(("power loss \(loss)", fs.imageAfterPowerLoss(path, loss: loss, using: &rng)))
                }
            }
            for (what, image) in images {
                let copy = dir.file("image")
                writeBytes(copy, image)
                do {
                    let reopened = try LogWriter.open(path: copy)
                    let read = try reopened.read(from: 1, maxCount: 1000)
                    reopened.close()
                    if read == acknowledged {
                        sawNone = true
                    } else if read == acknowledged + staged {
                        sawAll = true
                    } else {
                        problems.append("crash before call \(point), \(what): \(read.count) records, neither 3 nor \(3 + staged.count)")
                    }
                    if committed && !crashed && read != acknowledged + staged {
                        problems.append("crash point \(point), \(what): the committed staged append is not all there")
                    }
                } catch {
                    problems.append("crash before call \(point), \(what): the default open fails: \(error)")
                }
                try? FileManager.default.removeItem(atPath: copy)
            }
            if !crashed { break }
            point += 1
        }
        #expect(problems.isEmpty, "\(problems.count) failing images, e.g. \(problems.prefix(3))")
        #expect(sawNone && sawAll, "both outcomes were reached (\(point) crash points)")
        #expect(point > 6, "the staged append made several mutating calls to crash at: \(point)")
    }
}
