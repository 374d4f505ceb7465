import Foundation
import LabelStoreTestSupport
import Testing

@testable import EventLog

@Suite struct MappedFileTests {
    @Test func aMappedFileHasExactlyTheFilesBytesAndSurvivesTheFilesUnlinking() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("mapped.bin")
        let content = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        writeBytes(path, content)
        let mapped = try MappedFile(path: path)
        #expect(Array(mapped.bytes) == content)
        try FileManager.default.removeItem(atPath: path)  // what a prune does to an old snapshot
        #expect(mapped.bytes.count == content.count && mapped.bytes[99_999] == content[99_999])
    }

    @Test func anEmptyFileMapsToNoBytesAndAMissingOneIsNamed() throws {
        let dir = TemporaryDirectory()
        let empty = dir.file("empty.bin")
        writeBytes(empty, [])
        #expect(try MappedFile(path: empty).bytes.isEmpty)
        do {
            _ = try MappedFile(path: dir.file("missing.bin"))
            Issue.record("mapped a missing file")
        } catch {
            #expect(error.code == .fileNotFound && error.path == dir.file("missing.bin"))
        }
    }
}
