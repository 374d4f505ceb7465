import Foundation
import LabelStoreTestSupport
import Testing

@testable import EventLog

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("Processes")
struct ProcessTests {
    static let kills = ProcessInfo.processInfo.environment["LABELSTORE_SOAK"] != nil ? 2_000 : 100

    @Test(arguments: [Durability.syncEachAppend, .groupCommit])
    func sigkillAtRandomMomentsNeverLosesAnAcknowledgedAppend(mode: Durability) async throws {
        // Off the cooperative pool: it blocks for long (see offPool).
        try await offPool { try Self.sigkillAtRandomMomentsNeverLosesAnAcknowledgedAppendBody(mode: mode) }
    }

    static func sigkillAtRandomMomentsNeverLosesAnAcknowledgedAppendBody(mode: Durability) throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        var rng = SeededGenerator(seed: mode == .syncEachAppend ? 101 : 202)
        var acknowledged: UInt64 = 0
        var survivedKills = 0
        for round in 0..<Self.kills {
            let child = try Child(["append", path, mode.rawValue, "\(round)"])
            if round % 4 == 0 {
                // Kill at any moment, recovery and creation included.
                usleep(UInt32.random(in: 0...60_000, using: &rng))
            } else if round % 4 == 3 {
                // Kill soon after an acknowledgement, waited for (not timed: on a loaded machine a
                // timed window can end before any append is acknowledged, and the test proves nothing).
                _ = child.waitForLine { $0.hasPrefix("ack") }
                usleep(UInt32.random(in: 0...5_000, using: &rng))
            } else {
                // Kill while appending.
                _ = child.firstLine()
                usleep(UInt32.random(in: 0...20_000, using: &rng))
            }
            child.kill()
            for line in child.lines() where !line.hasPrefix("opened") {
                let parts = line.split(separator: " ")
                guard parts.count == 3, parts[0] == "ack", let last = UInt64(parts[2]) else {
                    Issue.record("unexpected child output: \(line)")
                    continue
                }
                acknowledged = max(acknowledged, last)
            }
            guard FileManager.default.fileExists(atPath: path) else {
                #expect(acknowledged == 0, "round \(round): the log vanished")
                survivedKills += 1
                continue
            }
            let (records, report) = try LogReader.readAll(path: path)
            #expect(
                UInt64(records.count) >= acknowledged, "round \(round): acknowledged seq \(acknowledged) but the log has \(records.count)")
            #expect(report.damage == nil || report.damage!.isTornTail, "round \(round): \(report.summary)")
            for record in records {
                guard case .added(_, let title, _, _) = record.event, title == StressRecords.plainTitle(record.seq) else {
                    Issue.record("round \(round): record \(record.seq) has the wrong content")
                    break
                }
            }
            survivedKills += 1
        }
        print("kill test (\(mode)): \(survivedKills) SIGKILLs survived, \(acknowledged) acknowledged records verified")
        #expect(survivedKills == Self.kills)
        #expect(acknowledged > 0, "the child never acknowledged anything; the test proves nothing")
        let writer = try LogWriter.open(path: path)
        #expect(writer.lastSeq >= acknowledged)
        writer.close()
    }

    @Test func aSecondWriterProcessIsRefused() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        // This process holds the log; the child's writer must be refused.
        let writer = try LogWriter.open(path: path, options: .init(createIfMissing: true))
        let child = try Child(["append", path, "syncEachAppend", "1"])
        child.process.waitUntilExit()
        #expect(child.process.terminationStatus == 1)
        #expect(child.errorText().contains("in use"))
        #expect(child.lines().isEmpty)
        #expect(writer.lastSeq == 0)
        writer.close()

        // And the other way round: a child holds it, this process is refused.
        let holder = try Child(["hold", path])
        defer { holder.kill() }
        var locked = false
        for _ in 0..<500 where !locked {
            do {
                let probe = try LogWriter.open(path: path)
                probe.close()
                usleep(2_000)
            } catch let error as EventLogError where error.code == .logInUse {
                locked = true
            }
        }
        #expect(locked, "the child's lock was never seen")
    }

    @Test func aReaderProcessFollowingAWriterSeesEveryRecordOnceInOrder() async throws {
        // Off the cooperative pool: it blocks for long (see offPool).
        try await offPool { try Self.aReaderProcessFollowingAWriterSeesEveryRecordOnceInOrderBody() }
    }

    static func aReaderProcessFollowingAWriterSeesEveryRecordOnceInOrderBody() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let total: UInt64 = 100_000
        let follower = try Child(["follow", path, "\(total)"])
        let writer = try LogWriter.open(path: path, options: .init(durability: .noSync, createIfMissing: true))
        var rng = SeededGenerator(seed: 5)
        while writer.lastSeq < total {
            let n = min(UInt64.random(in: 1...500, using: &rng), total - writer.lastSeq)
            let first = writer.lastSeq + 1
            try writer.append(
                (0..<n).map { LogEntry(.added(id: LabelID(), title: StressRecords.plainTitle(first + $0), isEnabled: true, index: 0)) })
        }
        follower.process.waitUntilExit()
        let err = follower.errorText()
        #expect(follower.process.terminationStatus == 0, "\(err)")
        #expect(follower.lines() == ["ok \(total) \(total * (total + 1) / 2)"])
        writer.close()
    }
}
