import Foundation
import LabelStoreTestSupport
import Testing

@testable import EventLog

/// Simulated power loss: unsynced writes dropped, torn, ending in a garbage
/// or zeroed sector, or persisted out of order page by page. Every
/// acknowledged append of a syncing mode survives; the log always opens in the
/// default mode; no damaged record is ever read. Records of more than 10 MB and
/// titles that contain a valid frame of the log are among the appends.
@Suite("Power loss")
struct PowerLossTests {
    static let soak = ProcessInfo.processInfo.environment["LABELSTORE_SOAK"] != nil
    static let rounds = soak ? 2_000 : 150

    /// A new log's options in `mode` on `fs`, in log format `format` (2, or 4: batch frames).
    static func options(_ mode: Durability, _ fs: FaultyFileSystem, format: UInt16) -> LogWriter.Options {
        var options = LogWriter.Options(durability: mode, createIfMissing: true, fileSystem: fs)
        if format != LogFormat.currentVersion { options.creationHeader = LogHeader(version: format, createdAt: .now()) }
        return options
    }

    @Test(arguments: [Durability.syncEachAppend, .groupCommit], [UInt16(2), 4])
    func acknowledgedAppendsSurviveEveryKindOfPowerLoss(mode: Durability, format: UInt16) throws {
        let dir = TemporaryDirectory()
        var rng = SeededGenerator(seed: (mode == .syncEachAppend ? 1 : 2) + UInt64(format) * 10)
        for round in 0..<Self.rounds {
            let path = dir.file("round-\(round)")
            let fs = FaultyFileSystem()
            let writer = try LogWriter.open(path: path, options: Self.options(mode, fs, format: format))
            var acknowledged: [EventRecord] = []
            let appends = Int.random(in: 0...12, using: &rng)
            // The process "dies" after the write of append number `appends + 1`, before its sync.
            fs.add(.init(op: .recordWrite, first: fs.calls(.recordWrite) + appends + 1, afterWrite: true))
            var inFlight: [LogEntry] = []
            for i in 0...appends {
                let n = Int.random(in: 1...4, using: &rng)
                let entries = (0..<n).map { j in
                    LogEntry(
                        .added(
                            id: LabelID(),
                            title: "r\(round) a\(i) e\(j) " + String(repeating: "é", count: Int.random(in: 0...200, using: &rng)),
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
            #expect(throws: EventLogError.self) {
                _ = try LogWriter.open(path: path, options: .init(createIfMissing: true, fileSystem: fs))
            }
            // Either no log at all, or a complete, empty, valid one.
            if FileManager.default.fileExists(atPath: path) {
                #expect(try LogReader.readAll(path: path).records.isEmpty)
            }
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".creating-") }
            #expect(leftovers.isEmpty, "temporary files left: \(leftovers)")
        }
    }

    /// Each 4 KiB page written since the last sync survives or not on its own,
    /// so a later record of the append in flight can survive an earlier one.
    @Test(arguments: [Durability.syncEachAppend, .groupCommit], [UInt16(2), 4])
    func acknowledgedAppendsSurviveOutOfOrderPagePersistence(mode: Durability, format: UInt16) throws {
        let dir = TemporaryDirectory()
        var rng = SeededGenerator(seed: (mode == .syncEachAppend ? 3 : 4) + UInt64(format) * 10)
        let rounds = Self.soak ? 2_000 : 60
        var problems: [String] = []
        for round in 0..<rounds {
            let path = dir.file("round-\(round)")
            let fs = FaultyFileSystem()
            let writer = try LogWriter.open(path: path, options: Self.options(mode, fs, format: format))
            let plan = (0...Int.random(in: 0...8, using: &rng)).map { _ in
                (0..<Int.random(in: 1...4, using: &rng)).map { _ in
                    LogEntry(
                        .added(
                            id: LabelID(), title: String(repeating: "o", count: Int.random(in: 0...6_000, using: &rng)), isEnabled: true,
                            index: 0))
                }
            }
            problems += try Self.crashRound(writer, fs, plan: plan, loss: .outOfOrderPages, rng: &rng).map { "round \(round): \($0)" }
        }
        Self.report(problems, rounds: rounds, what: "out-of-order page losses (\(mode))")
    }

    /// Records over 10 MB, and records holding a whole valid frame of the log
    /// (a torn write of one leaves a checksummed frame after the damage).
    @Test(arguments: [Durability.syncEachAppend, .groupCommit], [UInt16(2), 4])
    func largeRecordsAndFrameCarriersSurvivePowerLoss(mode: Durability, format: UInt16) throws {
        let dir = TemporaryDirectory()
        var rng = SeededGenerator(seed: (mode == .syncEachAppend ? 5 : 6) + UInt64(format) * 10)
        let rounds = Self.soak ? 160 : 8
        var problems: [String] = []
        for round in 0..<rounds {
            let path = dir.file("round-\(round)")
            let fs = FaultyFileSystem()
            let writer = try LogWriter.open(path: path, options: Self.options(mode, fs, format: format))
            let frame = try #require(
                try StressRecords.frameBytes(validIn: path, seq: UInt64.random(in: 1...127, using: &rng)), "no frame of the log was made")
            func frameLike() -> LogEntry {
                StressRecords.frameCarrier(tag: "r\(round) ", frame: frame, length: Int.random(in: 100...9_000, using: &rng))
            }
            var plan = (0...Int.random(in: 0...5, using: &rng)).map { _ in
                (0..<Int.random(in: 1...3, using: &rng)).map { _ in
                    Bool.random(using: &rng) ? frameLike() : LogEntry(.added(id: LabelID(), title: "r\(round)", isEnabled: true, index: 0))
                }
            }
            // The append in flight ends with a record holding a frame; every other round one append is over 10 MB.
            plan[plan.count - 1].append(frameLike())
            if round % 2 == 0 {
                plan[Int.random(in: 0..<plan.count, using: &rng)].insert(StressRecords.largeReorder(actor: "r\(round)"), at: 0)
            }
            let loss = FaultyFileSystem.Loss.inOrder.randomElement(using: &rng)!
            problems += try Self.crashRound(writer, fs, plan: plan, loss: loss, rng: &rng).map { "round \(round) (\(loss)): \($0)" }
        }
        Self.report(problems, rounds: rounds, what: "power losses with large records and frame carriers (\(mode))")
    }

    /// Appends `plan` with `writer`; the process dies right after the write of the
    /// last append. Applies `loss` and returns what is wrong with the reopened log.
    static func crashRound(
        _ writer: LogWriter, _ fs: FaultyFileSystem, plan: [[LogEntry]], loss: FaultyFileSystem.Loss,
        rng: inout SeededGenerator
    ) throws -> [String] {
        var acknowledged: [EventRecord] = []
        for (i, entries) in plan.enumerated() {
            if i == plan.count - 1 { fs.add(.init(op: .recordWrite, first: fs.calls(.recordWrite) + 1, afterWrite: true, crashes: true)) }
            do {
                acknowledged += try writer.append(entries)
            } catch {
                if i < plan.count - 1 { return ["append \(i) failed: \(error)"] }
            }
        }
        writer.close()
        writeBytes(writer.path, fs.imageAfterPowerLoss(writer.path, loss: loss, using: &rng))
        do {
            let reopened = try LogWriter.open(path: writer.path)
            defer { reopened.close() }
            let read = try reopened.read(from: 1, maxCount: Int(reopened.lastSeq))
            guard Array(read.prefix(acknowledged.count)) == acknowledged else {
                return [
                    "acknowledged records lost or changed: the log holds seqs 1...\(read.count), \(acknowledged.count) were acknowledged"
                ]
            }
            // Records past the acknowledged ones can only be whole records of the append in flight.
            let extra = read.dropFirst(acknowledged.count).map(\.event)
            guard extra == Array(plan[plan.count - 1].map(\.event).prefix(extra.count)) else {
                return ["the records after the acknowledged ones are not a prefix of the append in flight"]
            }
            return []
        } catch {
            return ["\(acknowledged.count) records were acknowledged (and synced), yet the default open fails: \(error)"]
        }
    }

    static func report(_ problems: [String], rounds: Int, what: String) {
        print("\(what): \(rounds) rounds, \(problems.count) failing")
        for problem in problems.prefix(3) { Issue.record(Comment(rawValue: problem)) }
        if problems.count > 3 { Issue.record("\(problems.count - 3) more of \(rounds) rounds failed the same way") }
    }
}
