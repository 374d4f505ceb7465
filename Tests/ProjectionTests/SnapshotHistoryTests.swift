import EventLog
import Foundation
import Testing

@testable import LabelProjection

/// A snapshot names the whole history it covers, not only its last record.
@Suite struct SnapshotHistoryTests {
    let helpers = SnapshotStoreTests()

    /// The review's case: a snapshot at seq 3, the log cut after seq 1
    /// (`discardRecords`, as `repair --salvage` does), then other records whose
    /// record 3 is byte-identical to the old one (caller-set timestamps). The
    /// store must not open from the snapshot, must show the log's labels, and
    /// a write through it must keep the log foldable.
    @Test func aSnapshotOfACutAndRewrittenHistoryIsNotTrustedEvenIfItsLastRecordIsIdentical() throws {
        try helpers.withTemporaryDirectory { dir in
            let path = dir + "/labels.log"
            let a = LabelID(), b = LabelID(), c = LabelID()
            func stamp(_ n: Int64) -> WriteOptions { WriteOptions(actor: "t", timestamp: EventTimestamp(millisecondsSince1970: 1_000 * n)) }
            let store = try LabelStore.open(path: path, options: helpers.options())
            try store.add("A", isEnabled: true, id: a, options: stamp(1))
            try store.add("B", isEnabled: true, id: b, options: stamp(2))
            try store.add("C", isEnabled: true, id: c, at: 2, options: stamp(3))
            let snapshot = try store.writeSnapshot()
            #expect(snapshot.seq == 3)
            let oldThird = try store.ownedWriter!.read(from: 3, maxCount: 1)
            store.close()

            // Rewrite history after seq 1: record 2 differs (B added with another id), record 3 is byte-identical.
            let writer = try LogWriter.open(path: path)
            try writer.discardRecords(after: 1)
            try writer.append(
                LogEntry(
                    .added(id: LabelID(), title: "B", isEnabled: true, index: 1), timestamp: EventTimestamp(millisecondsSince1970: 2_000),
                    actor: "t"))
            let newThird = try writer.append(
                LogEntry(
                    .added(id: c, title: "C", isEnabled: true, index: 2), timestamp: EventTimestamp(millisecondsSince1970: 3_000),
                    actor: "t"))
            writer.close()
            #expect([newThird] == oldThird, "the test needs record 3 to be byte-identical")

            let reopened = try LabelStore.open(path: path, options: helpers.options(create: false))
            defer { reopened.close() }
            #expect(reopened.snapshotReport.usedPath == nil)
            #expect(reopened.snapshotReport.ignored.map(\.error.code) == [.historyMismatch])
            #expect(reopened.snapshot == (try helpers.fullReplay(path)))
            #expect(reopened.label(b) == nil, "label B of the old history must not be shown")
            #expect(!FileManager.default.fileExists(atPath: snapshot.path), "the snapshot of another history is retired")
            try reopened.rename(c, to: "C2")
            #expect(try helpers.fullReplay(path) == reopened.snapshot, "the log still folds, to what the store shows")
        }
    }

    /// Resuming at a snapshot's position checks the frame's chained checksum,
    /// so a rewritten history is not resumed into either.
    @Test func aResumePositionFromAnotherHistoryIsNotUsed() throws {
        try helpers.withTemporaryDirectory { dir in
            let path = dir + "/labels.log"
            let store = try LabelStore.open(path: path, options: helpers.options())
            try helpers.write(40, to: store, seed: 5)
            let info = try store.writeSnapshot()
            store.close()
            let header = try SnapshotFiles.read(info.path).header
            #expect(header.version == 3 && header.coversHistory)
            let position = try #require(header.logPosition)
            #expect(position.checksum != nil)
            // Same frame bytes are needed at the same offset for the old check to pass; the checksum differs.
            var other = position
            other.checksum = position.checksum.map { $0 ^ 1 }
            let writer = try LogWriter.open(path: path, replayFrom: 40, resumeAt: other)
            #expect(writer.recoveryReport.resumedAfter == nil)
            writer.close()
            let resumed = try LogWriter.open(path: path, replayFrom: 40, resumeAt: position)
            #expect(resumed.recoveryReport.resumedAfter == position)
            resumed.close()
        }
    }
}
