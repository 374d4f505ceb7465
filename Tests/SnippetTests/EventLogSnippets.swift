import EventLog
import Foundation
import Testing

// The ```swift blocks of EventLog.docc/DurabilityAndRecovery.md, compiled and
// run in order: write a log, read it, tear its tail, and reopen it.

@Suite struct EventLogSnippetTests {
    @Test func writesReadsAndRecoversATornTail() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/labels.labellog"
            let printed = try await Printed.capture {
                // snippet: durability-write
                let writer = try LogWriter.open(path: path, options: LogWriter.Options(durability: .syncEachAppend, createIfMissing: true))
                let ring = LabelID()
                let first = try writer.append(LogEntry(.added(id: ring, title: "Ring", isEnabled: true, index: 0), actor: "importer"))
                try writer.append(
                    [
                        LogEntry(.renamed(id: ring, oldTitle: "Ring", newTitle: "Ring Two")),
                        LogEntry(.toggled(id: ring, isEnabled: false))
                    ], expectedLastSeq: first.seq)
                print(writer.lastSeq)  // 3
                writer.close()
                // end snippet

                // snippet: durability-read
                let reader = try LogReader(path: path)
                while let record = try reader.next() {  // from seq 1 to the current end
                    print(record.seq, record.event.kind, record.actor ?? "-")
                }
                let newer = try reader.poll(maxCount: 100)  // later: whatever the writer appended since
                print(newer.count)
                // end snippet

                // What a crash mid-append leaves: the start of a frame that never completed.
                let file = try #require(FileHandle(forWritingAtPath: path))
                try file.seekToEnd()
                try file.write(contentsOf: Data([0x40, 0, 0, 0, 0xAB, 0xCD]))
                try file.close()

                // snippet: durability-recovery
                let reopened = try LogWriter.open(path: path)
                let report = reopened.recoveryReport
                if let damage = report.damage {
                    print(damage.isTornTail ? "torn tail cut" : "damage", "at byte", damage.offset, "-", damage.reason)
                    print(report.savedTailPath ?? "no records were cut")
                }
                print(report.summary)
                reopened.close()
                // end snippet
                #expect(report.lastSeq == 3)
                #expect(report.droppedBytes == 6)
            }
            #expect(printed.prefix(5) == ["3", "1 added importer", "2 renamed -", "3 toggled -", "0"])
            #expect(printed.dropFirst(5).first?.hasPrefix("torn tail cut at byte ") == true)
            #expect(printed.dropFirst(6).first == "no records were cut")
        }
    }

    // The "Pipelined appends" block of EventLog.docc/DurabilityAndRecovery.md.
    @Test func pipelinedAppendsAreAllDurableOnceWaitedFor() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/labels.labellog"
            let log = try LogWriter.open(path: path, options: LogWriter.Options(createIfMissing: true))
            let batches = (0..<5).map { batch in
                (0..<3).map { entry in LogEntry(.added(id: LabelID(), title: "b\(batch) e\(entry)", isEnabled: true, index: 0)) }
            }
            // snippet: durability-pipelined
            var pending: [PendingAppend] = []
            for batch in batches {
                pending.append(try log.appendPipelined(batch))
                if pending.count > 2 { try pending.removeFirst().waitUntilDurable() }
            }
            for append in pending { try append.waitUntilDurable() }
            // end snippet
            #expect(pending.allSatisfy { $0.isDurable })
            log.close()
            #expect(try LogReader.readAll(path: path).records.map(\.seq) == Array(1...15))
        }
    }

    // The ```swift block of EventLog.docc/TheHistoryIndex.md.
    @Test func answersAnAuditQuestionThroughTheHistoryIndex() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/labels.labellog"
            let writer = try LogWriter.open(path: path, options: LogWriter.Options(durability: .noSync, createIfMissing: true))
            let ring = LabelID()
            try writer.append(LogEntry(.added(id: ring, title: "Ring", isEnabled: true, index: 0), actor: "importer"))
            try writer.append(LogEntry(.added(id: LabelID(), title: "Grid", isEnabled: true, index: 1), actor: "importer"))
            try writer.append(LogEntry(.toggled(id: ring, isEnabled: false), actor: "row-ui"))
            try writer.append(LogEntry(.renamed(id: ring, oldTitle: "Ring", newTitle: "Ring Two"), actor: "importer"))
            writer.close()
            let printed = try await Printed.capture {
                // snippet: history-index
                let update = try HistoryIndexFile.update(logPath: path)  // build, or extend with the records appended since
                print(update.change)  // .appendedSegment, .merged, .rebuilt or .unchanged

                let reader = try LogReader(path: path)
                let index = HistoryIndexFile.load(for: reader).index  // nil: missing or ignored (read everything)
                let query = HistoryQuery(labels: [ring], actors: ["importer"])
                try reader.forEachRecord(matching: query, using: index) { record in
                    print(record.seq, record.event.kind)
                    return true  // false stops
                }
                // end snippet
                #expect(index?.coveredSeq == 4)
            }
            #expect(printed == ["rebuilt", "1 added", "4 renamed"])
        }
    }

    // The ```swift block of EventLog.docc/ArchivingOldRecords.md.
    @Test func plansACutWithoutChangingTheLog() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/labels.labellog"
            let writer = try LogWriter.open(path: path, options: LogWriter.Options(durability: .noSync, createIfMissing: true))
            for k in 0..<5 { try writer.append(LogEntry(.added(id: LabelID(), title: "L\(k)", isEnabled: true, index: k))) }
            writer.close()
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            let printed = try await Printed.capture {
                func run(_ path: String) throws {
                    // snippet: log-cut-plan
                    let plan = try LogCut.plan(logPath: path, through: 120_000)  // what would move; changes nothing
                    print(plan.cut, plan.cutBytes, plan.keptRecords)
                    // end snippet
                }
                #expect(throws: EventLogError.self) { try run(path) }  // the log ends at seq 5
                let plan = try LogCut.plan(logPath: path, through: 3)
                print(plan.cut, plan.keptRecords)
            }
            #expect(printed == ["1...3 2"])
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        }
    }

    @Test func aStorageWithoutCheckpointsHasNoNewestCheckpoint() throws {
        // snippet: checkpoint-storage-newest
        func newestCheckpointSeq(of storage: some EventStorage) throws -> UInt64? {
            guard let checkpoints = storage as? any CheckpointStorage else { return nil }
            let lookup = try checkpoints.checkpoint(atOrBefore: storage.refreshLastSeq())
            for problem in lookup.skipped { print("not used: \(problem)") }
            return lookup.checkpoint?.seq
        }
        // end snippet
        let memory = InMemoryEventLog()
        try memory.append([LogEntry(.added(id: LabelID(), title: "Ring", isEnabled: true, index: 0))], expectedLastSeq: 0)
        #expect(try newestCheckpointSeq(of: memory) == nil, "an in-memory log keeps no checkpoints")
    }
}

/// The article "Reading a history that was cut": compiled with its lines exactly
/// (``DocumentedSnippetTests``); `CutHistoryTests` and `LogHistoryTests` run the same calls.
enum ReadingACutHistorySnippet {
    static func run() throws {
        // snippet: log-history-read
        let history = try LogHistory(logPath: "labels.labellog")
        if let record = try history.record(at: 50) {  // from labels.1-1000.labellog
            print(record.event)
        }
        try history.forEachRecord(from: 990, through: 1_010) { record in
            print(record.seq)  // 990…1000 from the archive, then the log
            return true
        }
        // end snippet
    }
}
