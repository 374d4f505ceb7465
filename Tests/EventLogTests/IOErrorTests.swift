import Foundation
import LabelStoreTestSupport
import Testing

@testable import EventLog

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Injected failures of write, sync, truncate and open: the failing call
/// throws a clear error, the log stays valid, and a failed sync poisons the
/// writer (fsyncgate) instead of being retried as if the data were safe.
@Suite("I/O errors")
struct IOErrorTests {
    func entry(_ n: Int) -> LogEntry { LogEntry(.added(id: LabelID(), title: "label \(n)", isEnabled: true, index: n)) }

    @Test(arguments: [ENOSPC, EIO, EDQUOT])
    func aFailedWriteIsCutBackAndAppendsWorkAgainWhenTheFaultClears(errno: Int32) throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let fs = FaultyFileSystem()
        let writer = try LogWriter.open(path: path, options: .init(createIfMissing: true, fileSystem: fs))
        let first = try writer.append([entry(0), entry(1)])
        for partial in [0, 1, 9, 30] {
            fs.add(.init(op: .write, first: fs.calls(.write) + 1, errno: errno, partialBytes: partial))
            do {
                try writer.append([entry(2), entry(3)])
                Issue.record("the append did not fail")
            } catch {
                #expect(error.code == .ioError)
                #expect(error.errno == errno)
                #expect(error.description.contains(path))
            }
            #expect(writer.lastSeq == 2)
            #expect(try LogReader.readAll(path: path).records == first, "partial write of \(partial) bytes left junk")
            #expect(try LogReader.readAll(path: path).report.damage == nil)
        }
        fs.clearFaults()
        let next = try writer.append(entry(4))
        #expect(next.seq == 3)
        writer.close()
        #expect(try LogReader.readAll(path: path).records == first + [next])
    }

    @Test(arguments: [Durability.syncEachAppend, .groupCommit])
    func aFailedSyncPoisonsTheWriterUntilReopened(mode: Durability) throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let fs = FaultyFileSystem()
        let writer = try LogWriter.open(path: path, options: .init(durability: mode, createIfMissing: true, fileSystem: fs))
        let kept = try writer.append(entry(0))
        fs.add(.init(op: .syncData, first: fs.calls(.syncData) + 1, errno: EIO))
        #expect(throws: EventLogError.self) { try writer.append(entry(1)) }
        fs.clearFaults()
        // The sync would succeed now, but the writer must not pretend the lost pages are safe.
        do {
            try writer.append(entry(2))
            Issue.record("a poisoned writer accepted an append")
        } catch {
            #expect(error.code == .poisoned)
            #expect(error.message.contains("reopen"))
        }
        writer.close()
        let reopened = try LogWriter.open(path: path)
        let records = try reopened.read(from: 1, maxCount: 10)
        #expect(records.first == kept)
        #expect(records.count <= 2)
        #expect(try reopened.append(entry(3)).seq == UInt64(records.count + 1))
        reopened.close()
    }

    @Test func aFailedCutBackAfterAFailedWritePoisonsTheWriter() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let fs = FaultyFileSystem()
        let writer = try LogWriter.open(path: path, options: .init(createIfMissing: true, fileSystem: fs))
        try writer.append(entry(0))
        fs.add(.init(op: .write, first: fs.calls(.write) + 1, errno: ENOSPC, partialBytes: 5))
        fs.add(.init(op: .truncate, first: fs.calls(.truncate) + 1, errno: EIO))
        #expect(throws: EventLogError.self) { try writer.append(entry(1)) }
        fs.clearFaults()
        do {
            try writer.append(entry(2))
            Issue.record("accepted an append after junk could not be cut")
        } catch {
            #expect(error.code == .poisoned)
        }
        writer.close()
        // Reopening treats the 5 junk bytes (and the preallocated zeros after them) as a torn tail.
        let reopened = try LogWriter.open(path: path)
        #expect(reopened.lastSeq == 1)
        #expect(reopened.recoveryReport.damage?.isTornTail == true)
        #expect(reopened.recoveryReport.droppedBytes >= 5)
        reopened.close()
    }

    @Test(arguments: [EACCES, EIO, EMFILE])
    func openFailuresAreNamedAndCreateNothing(errno: Int32) throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let fs = FaultyFileSystem()
        fs.add(.init(op: .open, first: 1, errno: errno))
        do {
            _ = try LogWriter.open(path: path, options: .init(createIfMissing: true, fileSystem: fs))
            Issue.record("open did not fail")
        } catch let error as EventLogError {
            #expect(error.code == .ioError)
            #expect(error.errno == errno)
            #expect(error.description.contains("errno \(errno)"))
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func aReadErrorDuringRecoveryFailsTheOpenAndChangesNothing() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        try writeLog(path)
        let before = readBytes(path)
        let fs = FaultyFileSystem()
        fs.add(.init(op: .read, first: 2, times: 100, errno: EIO))
        #expect(throws: EventLogError.self) { _ = try LogWriter.open(path: path, options: .init(fileSystem: fs)) }
        #expect(readBytes(path) == before)
        #expect(fs.injectedCount > 0)
    }
}
