import Foundation
import LabelStoreTestSupport
import Testing

@testable import EventLog

/// `LogWriter.appendPipelined`: appends that return once written, each
/// acknowledged when its sync (on the writer's sync thread) returns.
@Suite("Pipelined appends")
struct PipelinedAppendTests {
    static let soak = ProcessInfo.processInfo.environment["LABELSTORE_SOAK"] != nil

    static func entries(_ count: Int, tag: String, using rng: inout SeededGenerator) -> [LogEntry] {
        (0..<count).map { j in
            LogEntry(
                .added(
                    id: LabelID(), title: "\(tag) e\(j) " + String(repeating: "é", count: Int.random(in: 0...300, using: &rng)),
                    isEnabled: true, index: 0))
        }
    }

    @Test(arguments: [Durability.syncEachAppend, .groupCommit, .noSync])
    func everyPendingAppendBecomesDurableInSeqOrderWhateverTheMode(mode: Durability) throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let writer = try LogWriter.open(path: path, options: .init(durability: mode, createIfMissing: true))
        var rng = SeededGenerator(seed: 7)
        var pending: [PendingAppend] = []
        var written: [EventRecord] = []
        for i in 0..<40 {
            let append = try writer.appendPipelined(Self.entries(Int.random(in: 1...50, using: &rng), tag: "a\(i)", using: &rng))
            #expect(append.records.first?.seq == UInt64(written.count + 1))
            #expect(append.lastSeq == UInt64(written.count + append.records.count))
            written += append.records
            // The records are readable before they are durable.
            #expect(writer.lastSeq == UInt64(written.count))
            pending.append(append)
            if pending.count > 2 {
                try pending.removeFirst().waitUntilDurable()
            }
        }
        // Waiting for the last one acknowledges every earlier one.
        try pending.last!.waitUntilDurable()
        let allDurable = pending.allSatisfy { $0.isDurable }
        #expect(allDurable)
        let readBack = try writer.read(from: 1, maxCount: .max)
        #expect(readBack == written)
        writer.close()
        #expect(try LogReader.readAll(path: path).records == written)
    }

    @Test func anEmptyPipelinedAppendStandsForEverythingWrittenBefore() throws {
        let dir = TemporaryDirectory()
        let writer = try LogWriter.open(path: dir.file(), options: .init(durability: .noSync, createIfMissing: true))
        defer { writer.close() }
        var rng = SeededGenerator(seed: 8)
        try writer.append(Self.entries(3, tag: "unsynced", using: &rng))
        let ticket = try writer.appendPipelined([])
        #expect(ticket.records.isEmpty)
        #expect(ticket.lastSeq == 3)
        try ticket.waitUntilDurable()
        #expect(ticket.isDurable)
    }

    /// A power loss at any write or sync while appends are pipelined (up to
    /// three pending): every acknowledged record survives, and the records
    /// after them are whole records of the pending appends, in order.
    @Test(arguments: [UInt16(2), 4], [false, true])
    func acknowledgedPipelinedAppendsSurvivePowerLoss(format: UInt16, outOfOrderPages: Bool) throws {
        let dir = TemporaryDirectory()
        var rng = SeededGenerator(seed: UInt64(format) * 10 + (outOfOrderPages ? 1 : 0))
        for round in 0..<(Self.soak ? 1_000 : 60) {
            let path = dir.file("round-\(round)")
            let fs = FaultyFileSystem()
            var options = LogWriter.Options(durability: .syncEachAppend, createIfMissing: true, fileSystem: fs)
            if format != LogFormat.currentVersion { options.creationHeader = LogHeader(version: format, createdAt: .now()) }
            let writer = try LogWriter.open(path: path, options: options)
            fs.armCrash(beforeMutatingCall: Int.random(in: 1...30, using: &rng))
            let window = Int.random(in: 1...3, using: &rng)
            var pending: [PendingAppend] = []
            var written: [EventRecord] = []
            var acknowledged = 0
            func acknowledgeOldest() -> Bool {
                do {
                    try pending.removeFirst().waitUntilDurable()
                    acknowledged = written.count - pending.reduce(0) { $0 + $1.records.count }
                    return true
                } catch {
                    #expect(error.code == .poisoned || error.code == .ioError, "round \(round): \(error)")
                    return false
                }
            }
            appending: for i in 0..<Int.random(in: 1...16, using: &rng) {
                do {
                    let append = try writer.appendPipelined(
                        Self.entries(Int.random(in: 1...6, using: &rng), tag: "r\(round) a\(i)", using: &rng))
                    written += append.records
                    pending.append(append)
                } catch {
                    break appending
                }
                if pending.count > window, !acknowledgeOldest() { break appending }
            }
            while !pending.isEmpty, acknowledgeOldest() {}
            writer.close()
            fs.crashNow()
            let loss = outOfOrderPages ? .outOfOrderPages : FaultyFileSystem.Loss.inOrder.randomElement(using: &rng)!
            writeBytes(path, fs.imageAfterPowerLoss(path, loss: loss, using: &rng))

            let (read, report) = try LogReader.readAll(path: path)
            #expect(read.count >= acknowledged, "round \(round) \(loss): acknowledged records lost")
            #expect(Array(read.prefix(acknowledged)) == Array(written.prefix(acknowledged)), "round \(round) \(loss)")
            // Records past the acknowledged ones can only be whole records written after them, in order.
            #expect(Array(read.dropFirst(acknowledged)) == Array(written.dropFirst(acknowledged).prefix(max(0, read.count - acknowledged))))
            #expect(
                report.damage == nil || report.damage?.isTornTail == true, "round \(round) \(loss): \(String(describing: report.damage))")
            let reopened = try LogWriter.open(path: path)
            #expect(reopened.lastSeq == UInt64(read.count))
            reopened.close()
        }
    }

    @Test func aFailedSyncReachesEveryPendingAppendAndPoisonsTheWriter() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let fs = FaultyFileSystem()
        let writer = try LogWriter.open(path: path, options: .init(createIfMissing: true, fileSystem: fs))
        var rng = SeededGenerator(seed: 9)
        let kept = try writer.appendPipelined(Self.entries(2, tag: "kept", using: &rng))
        try kept.waitUntilDurable()
        fs.add(.init(op: .syncData, first: fs.calls(.syncData) + 1, times: 100, errno: EIO))
        let lost = try writer.appendPipelined(Self.entries(2, tag: "lost", using: &rng))
        do {
            try lost.waitUntilDurable()
            Issue.record("a pending append whose sync failed was acknowledged")
        } catch {
            #expect(error.code == .poisoned)
            #expect(error.lastGoodSeq == 2)
        }
        #expect(!lost.isDurable)
        #expect(kept.isDurable)
        #expect(throws: EventLogError.self) { _ = try writer.appendPipelined(Self.entries(1, tag: "after", using: &rng)) }
        #expect(throws: EventLogError.self) { try writer.append(Self.entries(1, tag: "after", using: &rng)) }
        writer.close()
    }

    @Test func closingWithAppendsPendingStillSyncsThem() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let writer = try LogWriter.open(path: path, options: .init(createIfMissing: true))
        var rng = SeededGenerator(seed: 10)
        let appends = try (0..<5).map { i in try writer.appendPipelined(Self.entries(20, tag: "c\(i)", using: &rng)) }
        writer.close()
        for append in appends { try append.waitUntilDurable() }
        #expect(try LogReader.readAll(path: path).records == appends.flatMap(\.records))
        #expect(throws: EventLogError.self) { _ = try writer.appendPipelined([]) }
    }
}
