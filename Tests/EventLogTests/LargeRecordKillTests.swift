import Foundation
import LabelStoreTestSupport
import Testing

@testable import EventLog

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The kill test with hard records: the `logtorture append-mixed` child
/// appends, in every other life, a reorder of more than 10 MB first (so
/// many kills land in the middle of its write and sync), and every fifth
/// record holds a whole valid frame of the log in its bytes. After each SIGKILL
/// the log must open with every acknowledged record, exactly.
@Suite("Processes: large records and records holding frames")
struct LargeRecordKillTests {
    static let soak = ProcessInfo.processInfo.environment["LABELSTORE_SOAK"] != nil
    static let kills = soak ? 800 : 40
    /// A new log every this many kills (large records make logs big).
    static let killsPerLog = 10

    @Test(arguments: [Durability.syncEachAppend, .groupCommit])
    func sigkillDuringLargeRecordsAndFrameCarriersNeverLosesAnAcknowledgedAppend(mode: Durability) async throws {
        // Off the cooperative pool: it blocks for long (see offPool).
        try await offPool { try Self.sigkillDuringLargeRecordsAndFrameCarriersNeverLosesAnAcknowledgedAppendBody(mode: mode) }
    }

    static func sigkillDuringLargeRecordsAndFrameCarriersNeverLosesAnAcknowledgedAppendBody(mode: Durability) throws {
        let dir = TemporaryDirectory()
        var rng = SeededGenerator(seed: mode == .syncEachAppend ? 303 : 404)
        var path = ""
        var frame: [UInt8]?
        var acknowledged: UInt64 = 0
        var totals = (acknowledged: UInt64(0), large: 0, frameLike: 0, logs: 0, tornTails: 0)
        var problems: [String] = []
        for round in 0..<Self.kills {
            if round % Self.killsPerLog == 0 {
                totals.acknowledged += acknowledged
                path = dir.file("log-\(round / Self.killsPerLog)")
                (frame, acknowledged) = (nil, 0)
                totals.logs += 1
            }
            let child = try Child(["append-mixed", path, mode.rawValue, "\(round)"])
            if round % 4 == 0 {
                usleep(UInt32.random(in: 0...150_000, using: &rng))  // any moment, creation and recovery included
            } else if round % 4 == 3 {
                // An odd round appends its large reorder first: wait until it is acknowledged (what the
                // child says, not a clock: a loaded machine made every timed window too short), then kill
                // soon after, so that some large records are always acknowledged and checked.
                _ = child.waitForLine { $0.hasPrefix("ack") }
                usleep(UInt32.random(in: 0...20_000, using: &rng))
            } else {
                _ = child.firstLine()
                // A large first append takes a while in a debug build: give some of them time to finish.
                usleep(UInt32.random(in: 0...(round % 2 == 1 ? 900_000 : 40_000), using: &rng))
            }
            child.kill()
            for line in child.lines() where line.hasPrefix("ack") {
                let parts = line.split(separator: " ")
                if parts.count == 3, let last = UInt64(parts[2]) { acknowledged = max(acknowledged, last) }
            }
            guard FileManager.default.fileExists(atPath: path) else {
                if acknowledged > 0 { problems.append("round \(round): the log vanished after seq \(acknowledged) was acknowledged") }
                continue
            }
            if frame == nil { frame = try StressRecords.frameBytes(validIn: path, seq: StressRecords.embeddedSeq) }
            do {
                let counts = try Self.verify(path, frame: frame)
                if counts.records < acknowledged {
                    problems.append("round \(round): seq \(acknowledged) was acknowledged but the log holds \(counts.records) records")
                }
                (totals.large, totals.frameLike) = (totals.large + counts.large, totals.frameLike + counts.frameLike)
                if counts.tornTail { totals.tornTails += 1 }
            } catch {
                problems.append("round \(round) (log \(totals.logs), \(acknowledged) acknowledged): the log does not open: \(error)")
                // Go on with a new log; this one stays broken.
                path = dir.file("log-\(round)-after-failure")
                (frame, acknowledged) = (nil, 0)
                totals.logs += 1
            }
        }
        totals.acknowledged += acknowledged
        print(
            "large-record kill test (\(mode)): \(Self.kills) SIGKILLs over \(totals.logs) logs, \(problems.count) failing; \(totals.acknowledged) acknowledged records; \(totals.tornTails) torn tails; verified \(totals.large) reorders over 10 MB and \(totals.frameLike) records holding a frame (counted at every check)"
        )
        for problem in problems.prefix(3) { Issue.record(Comment(rawValue: problem)) }
        if problems.count > 3 { Issue.record("\(problems.count - 3) more failing rounds: \(problems.dropFirst(3).map { $0.prefix(160) })") }
        #expect(totals.acknowledged > 0, "the child never acknowledged anything; the test proves nothing")
        #expect(totals.large > 0, "no reorder over 10 MB was ever acknowledged; the test proves little")
        #expect(totals.frameLike > 0, "no record holding a frame of the log was ever acknowledged; the test proves little")
    }

    /// Checks every record of the log at `path` (read in place: no copy of the
    /// large reorders) against what the child writes at its seq; throws if the
    /// log does not open (damage before good records) or a record is wrong.
    /// Returns the counts seen, and whether the log ends in a torn record.
    static func verify(_ path: String, frame: [UInt8]?) throws -> (records: UInt64, large: Int, frameLike: Int, tornTail: Bool) {
        let reader = try LogReader(path: path)
        var (large, frameLike) = (0, 0)
        let expected = StressRecords.largeReorderBytes
        let count = try reader.forEachView { view in
            switch view.event {
            case .reordered(let order) where view.actor.map({ $0 == "bulk" }) == true:
                let same =
                    order.count == StressRecords.largeReorderCount
                    && expected.withUnsafeBytes { memcmp($0.baseAddress!, order.bytes.baseAddress!, expected.count) == 0 }
                guard same else { throw EventLogError(.corruptRecord, "record \(view.seq) is a reorder with the wrong ids", path: path) }
                large += 1
            case .reordered(let order):
                let wanted = StressRecords.mixedEntry(view.seq, frame: frame)
                guard case .reordered(let ids) = wanted.event, Array(order) == ids, view.actor.map({ $0 == "child" }) == true else {
                    throw EventLogError(.corruptRecord, "record \(view.seq) is not the frame carrier the child writes", path: path)
                }
                frameLike += 1
            case .added(_, let title, _, _):
                let wanted = StressRecords.plainTitle(view.seq)
                guard title == wanted, view.actor.map({ $0 == "child" }) == true, frame == nil || !StressRecords.isCarrier(view.seq) else {
                    throw EventLogError(
                        .corruptRecord, "record \(view.seq) has the wrong title (\(title.count) bytes, wanted \(wanted.utf8.count))",
                        path: path)
                }
            default:
                throw EventLogError(.corruptRecord, "record \(view.seq) is a \(view.kind) event the child never writes", path: path)
            }
        }
        let tornTail = if case .torn = try reader.tail() { true } else { false }
        return (UInt64(count), large, frameLike, tornTail)
    }
}
