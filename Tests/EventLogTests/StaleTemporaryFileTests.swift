import Foundation
import LabelStoreTestSupport
import Testing

@testable import EventLog

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An atomic write killed before its rename leaves `PATH.tmp-<pid>-<random>`
/// (the history index, snapshots, version-1 checkpoints); the next atomic
/// write of the same file removes those of processes that no longer exist,
/// and never one of a live process or of another file.
@Suite struct StaleTemporaryFileTests {
    @Test func theNextAtomicWriteRemovesTemporariesOfDeadProcessesOnly() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("labels.labellog.index")
        let dead = try deadProcessID()
        let sleeper = Process()
        sleeper.executableURL = URL(fileURLWithPath: "/bin/sh")
        sleeper.arguments = ["-c", "exec sleep 60"]
        try sleeper.run()
        defer {
            kill(sleeper.processIdentifier, SIGKILL)
            sleeper.waitUntilExit()
        }
        let live = sleeper.processIdentifier
        #expect(!SystemFile.processExists(dead) && SystemFile.processExists(live))
        let stale = ["\(path).tmp-\(dead)-12345", "\(path).tmp-\(dead)-0"]
        let kept =
            ["\(path).tmp-\(SystemFile.processID)-777", "\(path).tmp-\(live)-4"]
            + [
                dir.file("labels.labellog.tmp-\(dead)-1"), dir.file("labels.labellog.index2.tmp-\(dead)-1"), "\(path).tmp-\(dead)-x",
                "\(path).tmp-x-1", "\(path).tmp-\(dead)-1-2"
            ]
        for file in stale + kept { writeBytes(file, [1, 2, 3]) }

        try SystemFile.writeAtomically([9, 8, 7], to: path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data([9, 8, 7]))
        for file in stale { #expect(!FileManager.default.fileExists(atPath: file), "\(file) was kept") }
        for file in kept { #expect(FileManager.default.fileExists(atPath: file), "\(file) was removed") }
        // Nothing of this write is left behind either.
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix("labels.labellog.index.tmp-") }
        let expected = kept.map { String($0.split(separator: "/").last!) }.filter { $0.hasPrefix("labels.labellog.index.tmp-") }
        #expect(Set(left) == Set(expected))
    }

    @Test func namesThatAreNotTemporariesOfTheFileAreNotRead() {
        #expect(SystemFile.temporaryOwner("a.log.tmp-123-456", of: "a.log") == 123)
        for name in [
            "a.log.tmp-123", "a.log.tmp-0-1", "a.log.tmp--1-2", "a.log.tmp-1-2-3", "b.log.tmp-1-2", "a.log.tmp-1-99999999999", "a.log"
        ] {
            #expect(SystemFile.temporaryOwner(name, of: "a.log") == nil, "\(name)")
        }
    }
}
