import EventLog
import Foundation
import LabelStoreTestSupport
import Testing

@testable import LabelProjection

/// The store over a real file log (LogWriter in a temporary directory).
@Suite struct FileLogTests {
    /// A fresh directory, removed when `body` returns.
    func withTemporaryDirectory(_ body: (String) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("projection-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try body(directory.path)
    }

    @Test func reopeningAFileLogAfterRandomCommandsReproducesTheSameState() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/labels.log"
            let options = LabelStore.Options(durability: .noSync, createIfMissing: true, recordRejections: true, clock: StepClock().now)
            let store = try LabelStore.open(path: path, options: options)
            let history = try ReferenceModelTests.run(store, seed: 21, steps: 1200, recordRejections: true, catchUpEvery: 400)
            let before = store.snapshot
            let halfway = try store.state(atSeq: before.lastSeq / 2)
            store.close()

            let reopened = try LabelStore.open(path: path, options: LabelStore.Options())
            #expect(reopened.snapshot == before)
            #expect(history.last!.matches(reopened.snapshot))
            #expect(
                try reopened.state(atSeq: before.lastSeq / 2) == halfway,
                "time travel over the reopened file equals time travel before closing")
            // It keeps working: a write after reopening continues the seqs.
            let id = try reopened.add("After reopen")
            #expect(reopened.lastSeq == before.lastSeq + 1 && reopened.label(id)?.version == before.lastSeq + 1)
            reopened.close()
        }
    }

    @Test func openingAMissingLogWithoutCreateIsAStorageError() throws {
        try withTemporaryDirectory { directory in
            let error = #expect(throws: StoreError.self) { try LabelStore.open(path: directory + "/missing.log") }
            guard case .storage(let inner)? = error?.code else {
                Issue.record("expected a storage error, got \(String(describing: error))")
                return
            }
            #expect(inner.code == .fileNotFound)
        }
    }

    @Test func openingALogWithAnInconsistentRecordNamesItsSeq() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/bad.log"
            let writer = try LogWriter.open(path: path, options: .init(durability: .noSync, createIfMissing: true))
            let a = testID(1)
            try writer.append([
                LogEntry(.added(id: a, title: "A", isEnabled: true, index: 0)),
                LogEntry(.renamed(id: a, oldTitle: "Not A", newTitle: "B"))
            ])
            writer.close()
            let error = #expect(throws: StoreError.self) { try LabelStore.open(path: path) }
            guard case .inconsistentEvent(let inner)? = error?.code else {
                Issue.record("expected inconsistentEvent, got \(String(describing: error))")
                return
            }
            #expect(inner.code == .titleMismatch && inner.seq == 2 && error?.message.contains("seq 2") == true)
        }
    }

    @Test func aClosedFileStoreStillTravelsInTimeBySeqAndByTime() throws {
        try withTemporaryDirectory { directory in
            let clock = StepClock()
            let options = LabelStore.Options(
                durability: .noSync, createIfMissing: true, clock: clock.now,
                snapshots: SnapshotPolicy(everyRecords: 0, everyBytes: 0, onClose: false))
            let store = try LabelStore.open(path: directory + "/labels.log", options: options)
            for i in 0..<6 { try store.add("label \(i)") }
            let atThree = try store.state(atSeq: 3)
            let timeOfFour = try #require(try store.state(atSeq: 4).lastTimestamp)
            store.close()
            #expect(try store.state(atSeq: 3) == atThree)
            #expect(try store.state(atTime: timeOfFour).lastSeq == 4, "time travel by time reads the closed log")
        }
    }
}
