import Foundation
import LabelStoreTestSupport
import Synchronization
import Testing

@testable import EventLog

/// A read that races ``LogWriter/close()`` either completes with the right
/// records or reports `closed`: the writer's file is never closed under a
/// read that holds it (no `EBADF`, no bytes of a file that reused the descriptor).
@Suite struct ReadCloseRaceTests {
    /// Holds the next read, once armed, until the test lets it go.
    final class ReadGate: Sendable {
        /// Set to make the next read wait (reads only; opening's scan is not gated).
        let armed = Atomic<Bool>(false)
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)

        /// Called before each read: waits there if armed.
        func pass() {
            if armed.exchange(false, ordering: .acquiringAndReleasing) {
                entered.signal()
                proceed.wait()
            }
        }
    }

    /// A writer over `fs` with `count` records titled `title <seq>`.
    func makeLog(_ path: String, fs: any LogFileSystem, count: Int) throws -> LogWriter {
        let clock = TestClock()
        let writer = try LogWriter.open(
            path: path, options: .init(durability: .noSync, createIfMissing: true, clock: clock.tick, fileSystem: fs))
        let entries = (1...count).map { LogEntry(.added(id: LabelID(), title: "title \($0)", isEnabled: true, index: $0 - 1)) }
        try writer.append(entries)
        return writer
    }

    @Test func aReadHeldWhileTheWriterClosesCompletesAndTheFileIsClosedAfterIt() throws {
        let directory = TemporaryDirectory()
        let gate = ReadGate()
        let fs = ReadHookedFileSystem { _ in gate.pass() }
        let writer = try makeLog(directory.file(), fs: fs, count: 50)
        let result = Locked<Result<[EventRecord], EventLogError>?>(nil)
        gate.armed.store(true, ordering: .releasing)
        let reader = Thread {
            let outcome: Result<[EventRecord], EventLogError>
            do throws(EventLogError) { outcome = .success(try writer.read(from: 1, maxCount: 50)) } catch { outcome = .failure(error) }
            result.withLock { $0 = outcome }
        }
        reader.start()
        gate.entered.wait()  // the read holds the file
        let closesBefore = fs.closes.load(ordering: .relaxed)  // opening closed its creation file
        writer.close()  // ... while the writer closes
        // Open other files, so a descriptor closed under the read would be reused by one of them.
        let others = try (0..<4).map { try SystemFile.open(directory.file("other-\($0)"), .createExclusive) }
        let closedWhileReading = fs.closes.load(ordering: .relaxed)
        gate.proceed.signal()
        while result.withLock({ $0 == nil }) { Thread.sleep(forTimeInterval: 0.001) }
        others.forEach { $0.close() }

        #expect(closedWhileReading == closesBefore, "close() must not close the file while a read holds it")
        switch result.withLock({ $0! }) {
        case .success(let records):
            #expect(records.map(\.seq) == Array(1...50))
            #expect(records.allSatisfy { if case .added(_, let title, _, _) = $0.event { title == "title \($0.seq)" } else { false } })
        case .failure(let error):
            Issue.record("a read racing close must complete or report closed, not \(error.code): \(error)")
        }
        #expect(fs.closes.load(ordering: .relaxed) == closesBefore + 1, "the file is closed once, when the read lets go of it")
        #expect(throws: EventLogError.self) { try writer.read(from: 1, maxCount: 1) }
        // The lock was released with the file: the log opens again.
        let reopened = try LogWriter.open(path: directory.file(), options: .init(durability: .noSync))
        #expect(reopened.lastSeq == 50)
        reopened.close()
    }

    @Test func readsRacingCloseEitherCompleteOrReportClosed() throws {
        let directory = TemporaryDirectory()
        for round in 0..<40 {
            let path = directory.file("race-\(round).labellog")
            let writer = try makeLog(path, fs: SystemFileSystem(), count: 400)
            let outcomes = Locked<[String]>([])
            let threads = (0..<4).map { n in
                Thread {
                    for _ in 0..<200 {
                        do throws(EventLogError) {
                            let records = try writer.read(from: UInt64(1 + n * 50), maxCount: 300)
                            guard records.map(\.seq) == Array(UInt64(1 + n * 50)...UInt64(min(400, n * 50 + 300))) else {
                                outcomes.withLock { $0.append("wrong records") }
                                return
                            }
                        } catch  where error.code == .closed {
                            return
                        } catch {
                            outcomes.withLock { $0.append("\(error.code): \(error)") }
                            return
                        }
                    }
                }
            }
            threads.forEach { $0.start() }
            Thread.sleep(forTimeInterval: Double(round % 5) / 1000)
            writer.close()
            // Reuse descriptors while reads may still be running.
            let others = try (0..<3).map { try SystemFile.open(directory.file("o-\(round)-\($0)"), .createExclusive) }
            others.forEach { $0.close() }
            while threads.contains(where: { !$0.isFinished }) { Thread.sleep(forTimeInterval: 0.001) }
            #expect(outcomes.withLock { $0 }.isEmpty, "round \(round): \(outcomes.withLock { $0 })")
        }
    }
}
