import Foundation
import LabelStoreTestSupport
import Synchronization
import Testing

@testable import EventLog

/// A read that races ``LogWriter/close()`` either completes with the right
/// records or reports `closed`: the writer's file is never closed under a
/// read that holds it (no `EBADF`, no bytes of a file that reused the descriptor).
@Suite struct ReadCloseRaceTests {
    /// A file system whose files can hold a read until the test lets it go.
    final class GatedFileSystem: LogFileSystem {
        let real = SystemFileSystem()
        /// Set to make the next read wait (reads only; opening's scan is not gated).
        let gate = Atomic<Bool>(false)
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let closes = Atomic<Int>(0)

        func open(_ path: String, _ mode: SystemFile.Mode) throws(EventLogError) -> any LogFile {
            GatedFile(inner: try real.open(path, mode), owner: self)
        }
        func exists(_ path: String) -> Bool { real.exists(path) }
        func link(_ from: String, to: String) throws(EventLogError) { try real.link(from, to: to) }
        func unlink(_ path: String) { real.unlink(path) }
        func syncDirectory(containing path: String) throws(EventLogError) { try real.syncDirectory(containing: path) }
    }

    final class GatedFile: LogFile {
        let inner: any LogFile
        let owner: GatedFileSystem
        init(inner: any LogFile, owner: GatedFileSystem) {
            self.inner = inner
            self.owner = owner
        }
        var path: String { inner.path }
        func size() throws(EventLogError) -> Int64 { try inner.size() }
        func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(EventLogError) -> Int {
            if owner.gate.exchange(false, ordering: .acquiringAndReleasing) {
                owner.entered.signal()
                owner.proceed.wait()
            }
            return try inner.read(at: offset, into: buffer)
        }
        func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(EventLogError) { try inner.write(bytes, at: offset) }
        func syncData() throws(EventLogError) { try inner.syncData() }
        func syncAll() throws(EventLogError) { try inner.syncAll() }
        func truncate(to length: Int64) throws(EventLogError) { try inner.truncate(to: length) }
        func tryLockExclusive() throws(EventLogError) -> Bool { try inner.tryLockExclusive() }
        func close() {
            owner.closes.add(1, ordering: .relaxed)
            inner.close()
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
        let fs = GatedFileSystem()
        let writer = try makeLog(directory.file(), fs: fs, count: 50)
        let result = Locked<Result<[EventRecord], EventLogError>?>(nil)
        fs.gate.store(true, ordering: .releasing)
        let reader = Thread {
            let outcome: Result<[EventRecord], EventLogError>
            do throws(EventLogError) { outcome = .success(try writer.read(from: 1, maxCount: 50)) } catch { outcome = .failure(error) }
            result.withLock { $0 = outcome }
        }
        reader.start()
        fs.entered.wait()  // the read holds the file
        let closesBefore = fs.closes.load(ordering: .relaxed)  // opening closed its creation file
        writer.close()  // ... while the writer closes
        // Open other files, so a descriptor closed under the read would be reused by one of them.
        let others = try (0..<4).map { try SystemFile.open(directory.file("other-\($0)"), .createExclusive) }
        let closedWhileReading = fs.closes.load(ordering: .relaxed)
        fs.proceed.signal()
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
