import Foundation
import LabelStoreTestSupport
import Testing

@testable import EventLog

/// The fault injector reaches every sync call site of the writer (the table in
/// ``FaultyFileSystem``), and a failed sync while opening — cutting a torn
/// tail, saving a salvaged tail — changes nothing a second open cannot redo.
@Suite("Sync call sites")
struct SyncSiteTests {
    func entry(_ n: Int, titleBytes: Int = 12) -> LogEntry {
        LogEntry(
            .added(id: StressRecords.asciiID(n), title: String(repeating: "s", count: titleBytes), isEnabled: true, index: 0),
            timestamp: EventTimestamp(millisecondsSince1970: 1_764_460_800_000 + Int64(n)))
    }

    /// A log of three records whose second frame has a flipped payload byte (damage before a good record).
    func logWithDamageBeforeTheTail(_ path: String) throws -> [EventRecord] {
        let writer = try LogWriter.open(path: path, options: .init(durability: .noSync, createIfMissing: true))
        var positions: [LogPosition] = []
        var records: [EventRecord] = []
        for n in 1...3 {
            records.append(try writer.append(entry(n)))
            positions.append(try #require(writer.lastPosition))
        }
        writer.close()
        var bytes = readBytes(path)
        bytes[Int(positions[1].end) - 1] ^= 0x40
        writeBytes(path, bytes)
        return records
    }

    /// Each phase must reach its site at least once (the writer may add syncs; it must not lose one).
    @Test func everySyncCallSiteOfTheWriterIsCountedAsItsSite() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let fs = FaultyFileSystem(performsRealSyncs: false)
        func reaches(
            _ site: FaultyFileSystem.Op, _ what: String, sourceLocation: SourceLocation = #_sourceLocation,
            _ body: () throws -> Void
        ) rethrows {
            let before = fs.calls(site)
            try body()
            #expect(fs.calls(site) > before, "\(what) did not reach \(site)", sourceLocation: sourceLocation)
        }
        var writer: LogWriter?
        try reaches(.creationSync, "creating the log") {
            writer = try LogWriter.open(path: path, options: .init(createIfMissing: true, fileSystem: fs, preallocation: 4096))
        }
        #expect(fs.calls(.syncDirectory) >= 1, "creating the log did not sync the directory")
        let log = try #require(writer)
        try reaches(.preallocationSync, "a first append") { try log.append(entry(1)) }
        try reaches(.preallocationSync, "an append larger than a preallocation step") { try log.append(entry(2, titleBytes: 9_000)) }
        try reaches(.syncData, "an append in syncEachAppend mode") { try log.append(entry(3)) }
        try reaches(.syncData, "an explicit sync()") { try log.sync() }
        try reaches(.truncationSync, "discardRecords(after:)") { try log.discardRecords(after: 1) }
        log.close()

        writeBytes(path, readBytes(path) + [0x55, 0x55, 0x55, 0x55, 0x55])
        try reaches(.truncationSync, "an open cutting a torn tail") {
            let cutting = try LogWriter.open(path: path, options: .init(fileSystem: fs))
            #expect(cutting.recoveryReport.damage?.isTornTail == true)
            cutting.close()
        }

        let damaged = dir.file("damaged")
        _ = try logWithDamageBeforeTheTail(damaged)
        let directorySyncs = fs.calls(.syncDirectory)
        try reaches(.salvageSync, "a salvaging open") {
            try reaches(.truncationSync, "a salvaging open") {
                let salvaging = try LogWriter.open(path: damaged, options: .init(recovery: .pointInTime, fileSystem: fs))
                #expect(salvaging.recoveryReport.savedTailPath != nil)
                salvaging.close()
            }
        }
        #expect(fs.calls(.syncDirectory) > directorySyncs, "saving a salvaged tail did not sync the directory")
        #expect(fs.failedSyncs.isEmpty)
    }

    @Test func aFailedSyncWhileCuttingATornTailFailsTheOpenAndASecondOpenCutsIt() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let records = try writeLog(path, (1...3).map { entry($0) })
        writeBytes(path, readBytes(path) + [0x55, 0x55, 0x55, 0x55, 0x55])
        let fs = FaultyFileSystem()
        fs.failNext(.truncationSync)
        #expect(throws: EventLogError.self) { _ = try LogWriter.open(path: path, options: .init(fileSystem: fs)) }
        #expect(fs.failedSyncs.map(\.site) == [.truncationSync])
        let reopened = try LogWriter.open(path: path)
        defer { reopened.close() }
        #expect(try reopened.read(from: 1, maxCount: 10) == records)
    }

    @Test func aFailedSyncOfTheSalvageFileFailsTheOpenBeforeAnythingIsCut() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let records = try logWithDamageBeforeTheTail(path)
        let before = readBytes(path)
        let fs = FaultyFileSystem()
        fs.failNext(.salvageSync)
        #expect(throws: EventLogError.self) { _ = try LogWriter.open(path: path, options: .init(recovery: .pointInTime, fileSystem: fs)) }
        #expect(fs.failedSyncs.map(\.site) == [.salvageSync])
        #expect(readBytes(path) == before, "the log was changed although its cut bytes could not be saved")
        // The salvage file is named to the millisecond and the failed attempt leaves its file behind:
        // a retry in the same millisecond fails with fileExists. Not what this test is about.
        Thread.sleep(forTimeInterval: 0.005)
        let salvaged = try LogWriter.open(path: path, options: .init(recovery: .pointInTime))
        defer { salvaged.close() }
        #expect(try salvaged.read(from: 1, maxCount: 10) == [records[0]])
        #expect(salvaged.recoveryReport.savedTailPath.map { FileManager.default.fileExists(atPath: $0) } == true)
    }
}
