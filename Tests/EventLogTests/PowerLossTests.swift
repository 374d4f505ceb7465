import Foundation
import Testing
@testable import EventLog

/// Simulated power loss: unsynced writes dropped, torn, or ending in a garbage
/// or zeroed sector. Every acknowledged append of a syncing mode survives; the
/// log always opens in the default mode; no damaged record is ever read.
@Suite("Power loss")
struct PowerLossTests {
    static let rounds = ProcessInfo.processInfo.environment["LABELSTORE_SOAK"] != nil ? 2_000 : 150

    @Test(arguments: [Durability.syncEachAppend, .groupCommit])
    func acknowledgedAppendsSurviveEveryKindOfPowerLoss(mode: Durability) throws {
        let dir = TemporaryDirectory()
        var rng = SeededGenerator(seed: mode == .syncEachAppend ? 1 : 2)
        for round in 0..<Self.rounds {
            let path = dir.file("round-\(round)")
            let fs = FaultyFileSystem()
            let writer = try LogWriter.open(path: path, options: .init(durability: mode, createIfMissing: true, fileSystem: fs))
            var acknowledged: [EventRecord] = []
            let appends = Int.random(in: 0...12, using: &rng)
            // The process "dies" after the write of append number `appends + 1`, before its sync.
            fs.add(.init(op: .recordWrite, first: fs.calls(.recordWrite) + appends + 1, afterWrite: true))
            var inFlight: [LogEntry] = []
            for i in 0...appends {
                let n = Int.random(in: 1...4, using: &rng)
                let entries = (0..<n).map { j in
                    LogEntry(.added(id: LabelID(), title: "r\(round) a\(i) e\(j) " + String(repeating: "é", count: Int.random(in: 0...200, using: &rng)),
                                    isEnabled: true, index: 0))
                }
                do {
                    acknowledged += try writer.append(entries)
                } catch {
                    #expect(i == appends, "only the crashing append fails")
                    inFlight = entries
                }
            }
            writer.close()
            let loss = FaultyFileSystem.Loss.inOrder.randomElement(using: &rng)!
            writeBytes(path, fs.imageAfterPowerLoss(path, loss: loss, using: &rng))

            let (read, report) = try LogReader.readAll(path: path)
            #expect(Array(read.prefix(acknowledged.count)) == acknowledged, "round \(round) \(loss): acknowledged records lost")
            // Records past the acknowledged ones can only be whole records of the append in flight.
            let extra = read.dropFirst(acknowledged.count).map(\.event)
            #expect(extra == Array(inFlight.map(\.event).prefix(extra.count)), "round \(round): unexpected records")
            #expect(report.damage == nil || report.damage?.isTornTail == true)
            let reopened = try LogWriter.open(path: path)
            #expect(reopened.lastSeq == UInt64(read.count))
            reopened.close()
        }
    }

    @Test func aCrashDuringCreationNeverLeavesAHalfMadeLog() throws {
        let dir = TemporaryDirectory()
        for op in [FaultyFileSystem.Op.write, .syncAll, .link, .syncDirectory] {
            let path = dir.file("created-\(op)")
            let fs = FaultyFileSystem()
            fs.add(.init(op: op, first: 1, partialBytes: 10))
            #expect(throws: EventLogError.self) { _ = try LogWriter.open(path: path, options: .init(createIfMissing: true, fileSystem: fs)) }
            // Either no log at all, or a complete, empty, valid one.
            if FileManager.default.fileExists(atPath: path) {
                #expect(try LogReader.readAll(path: path).records.isEmpty)
            }
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".creating-") }
            #expect(leftovers.isEmpty, "temporary files left: \(leftovers)")
        }
    }
}
