import Foundation
import LabelStoreTestSupport
import Testing

@testable import EventLog

@Suite("Concurrency")
struct ConcurrencyTests {
    @Test func aSecondWriterIsRefusedWhileTheFirstIsOpen() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let first = try LogWriter.open(path: path, options: .init(createIfMissing: true))
        try first.append(sampleEntries()[0])
        do {
            _ = try LogWriter.open(path: path)
            Issue.record("a second writer opened the log")
        } catch let error as EventLogError {
            #expect(error.code == .logInUse)
            #expect(error.message.contains("in use"))
            #expect(error.path == path)
        }
        // Readers are not writers: they open while the writer holds the lock.
        #expect(try LogReader.readAll(path: path).records.count == 1)
        first.close()
        let second = try LogWriter.open(path: path)
        #expect(second.lastSeq == 1)
        second.close()
    }

    @Test func aReaderFollowingAWriterSeesEveryRecordOnceInOrder() async throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let writer = try LogWriter.open(path: path, options: .init(durability: .noSync, createIfMissing: true))
        let total = 5_000
        let reader = try LogReader(path: path)
        let producer = Task.detached {
            var rng = SeededGenerator(seed: 11)
            var written = 0
            while written < total {
                let n = min(Int.random(in: 1...40, using: &rng), total - written)
                let entries = (0..<n).map { i in
                    LogEntry(
                        .added(
                            id: LabelID(), title: "row \(written + i) " + String(repeating: "x", count: i * 7 % 300), isEnabled: true,
                            index: written + i))
                }
                _ = try writer.append(entries)
                written += n
                if Int.random(in: 0..<4, using: &rng) == 0 { await Task.yield() }
            }
        }
        var seen: [UInt64] = []
        while seen.count < total {
            let batch = try reader.poll()
            seen += batch.map(\.seq)
            if batch.isEmpty { try await Task.sleep(nanoseconds: 200_000) }
        }
        try await producer.value
        #expect(seen == Array(1...UInt64(total)))
        #expect(try reader.poll().isEmpty)
        writer.close()
    }

    @Test func aFollowerWaitsAtAPartialFrameAndResumesWhenItIsComplete() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let records = try writeLog(path, Array(sampleEntries()[..<3]))
        let full = readBytes(path)
        let offsets = frameOffsets(full)
        // The file as a reader could see it mid-write: the third frame half there, then its tail zeroed.
        writeBytes(path, Array(full[..<(offsets[2] + 5)]))
        let reader = try LogReader(path: path)
        #expect(try reader.poll() == Array(records[..<2]))
        #expect(try reader.poll().isEmpty)
        try overwriteInPlace(path, Array(full[..<offsets[2]]) + [UInt8](repeating: 0, count: full.count - offsets[2]))
        #expect(try reader.poll().isEmpty)
        try overwriteInPlace(path, full)
        #expect(try reader.poll() == [records[2]])
    }

    @Test(arguments: [Durability.groupCommit, .syncEachAppend])
    func concurrentAppendersGetGaplessUniqueSeqs(mode: Durability) async throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let writer = try LogWriter.open(path: path, options: .init(durability: mode, createIfMissing: true))
        let tasks = 8, perTask = 40
        let seqs = try await withThrowingTaskGroup(of: [UInt64].self) { group in
            for t in 0..<tasks {
                group.addTask {
                    var mine: [UInt64] = []
                    for i in 0..<perTask {
                        let record = try writer.append(
                            LogEntry(.renamed(id: fixedID(UInt8(t)), oldTitle: "\(i)", newTitle: "\(i + 1)"), actor: "task \(t)"))
                        mine.append(record.seq)
                    }
                    return mine
                }
            }
            var all: [UInt64] = []
            for try await mine in group {
                #expect(mine == mine.sorted(), "one task's appends are ordered")
                all += mine
            }
            return all
        }
        #expect(seqs.sorted() == Array(1...UInt64(tasks * perTask)))
        writer.close()
        let back = try LogReader.readAll(path: path).records
        #expect(back.count == tasks * perTask)
        // Each task's own records are in its order.
        for t in 0..<tasks {
            let titles = back.filter { $0.actor == "task \(t)" }.compactMap { record -> String? in
                if case .renamed(_, _, let new) = record.event { return new }
                return nil
            }
            #expect(titles == (1...perTask).map(String.init))
        }
    }
}
