import Foundation
import LabelStoreTestSupport
import Testing

@testable import EventLog

/// A creator killed mid-creation leaves `PATH.creating-<pid>-<n>`; the next
/// writer's open removes it once that process is gone, and nothing else.
/// The pid of a process that has exited (and been reaped); the stale-file tests use it.
func deadProcessID() throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", "exit 0"]
    try process.run()
    process.waitUntilExit()
    return process.processIdentifier
}

@Suite struct LogCreationCleanupTests {
    @Test func abandonedCreationFilesOfDeadProcessesAreRemovedOnOpenAndOthersKept() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("labels.labellog")
        try writeLog(path)
        let dead = try deadProcessID()
        #expect(!SystemFile.processExists(dead) && SystemFile.processExists(SystemFile.processID))
        let abandoned = "\(path).creating-\(dead)-12345"
        let inProgress = "\(path).creating-\(SystemFile.processID)-777"
        let unrelated = [dir.file("other.labellog.creating-\(dead)-1"), "\(path).creating-notapid-1", "\(path).creating-\(dead)-x"]
        for file in [abandoned, inProgress] + unrelated { writeBytes(file, [1, 2, 3]) }

        let writer = try LogWriter.open(path: path)
        #expect(writer.recoveryReport.removedTemporaryFiles == [abandoned])
        writer.close()
        #expect(!FileManager.default.fileExists(atPath: abandoned))
        for file in [inProgress] + unrelated { #expect(FileManager.default.fileExists(atPath: file), "\(file) was removed") }
        #expect(try LogReader.readAll(path: path).records.count == sampleEntries().count, "the log is untouched")
    }
}
