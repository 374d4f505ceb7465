import EventLog
import Foundation
import LabelStoreTestSupport
import Testing

@testable import LabelProjection

/// Records with a valid checksum but content the fold cannot apply: the
/// store refuses to open the log, naming the seq; nothing is changed; a
/// repair tool can keep exactly the good prefix with `discardRecords(after:)`.
@Suite("Semantic corruption")
struct SemanticCorruptionTests {
    static let good: [LabelEvent] = [
        .added(id: testID(1), title: "Grid", isEnabled: true, index: 0),
        .added(id: testID(2), title: "Tile", isEnabled: false, index: 1),
        .added(id: testID(3), title: "Ring", isEnabled: true, index: 2)
    ]

    static let bad: [String: LabelEvent] = [
        "an edit to an unknown id": .renamed(id: testID(99), oldTitle: "x", newTitle: "y"),
        "a reorder that is not a permutation": .reordered(order: [testID(1), testID(1), testID(3)]),
        "a reorder that leaves a label out": .reordered(order: [testID(1), testID(2)]),
        "a duplicate add": .added(id: testID(2), title: "Tile", isEnabled: false, index: 0),
        "a removal at the wrong index": .removed(id: testID(1), index: 2, title: "Grid", isEnabled: true),
        "a removal with the wrong old title": .removed(id: testID(1), index: 0, title: "Gird", isEnabled: true),
        "a rename whose old title is wrong": .renamed(id: testID(3), oldTitle: "Rink", newTitle: "Ring Two"),
        "a move out of range": .moved(id: testID(1), from: 0, to: 3),
        "a toggle to the value it already has": .toggled(id: testID(1), isEnabled: true),
        "an add past the end": .added(id: testID(4), title: "Far", isEnabled: true, index: 9)
    ]

    /// In log format 4 the five records are one batch frame: the salvage keeps its first three.
    @Test(arguments: bad.keys.sorted(), [LogFormat.currentVersion, LogFormat.batchVersion])
    func aRecordTheFoldCannotApplyIsReportedWithItsSeqAndSalvageKeepsThePrefix(name: String, format: UInt16) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("semantic-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("log").path
        // Valid frames all the way: the damage is only in what the events mean.
        var options = LogWriter.Options(createIfMissing: true)
        options.newLogFormat = format
        let writer = try LogWriter.open(path: path, options: options)
        try writer.append((Self.good + [Self.bad[name]!, .toggled(id: testID(2), isEnabled: true)]).map { LogEntry($0) })
        writer.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))

        do {
            _ = try LabelStore.open(path: path)
            Issue.record("\(name): the store opened")
        } catch {
            guard case .inconsistentEvent(let cause) = error.code else {
                Issue.record("\(name): \(error)")
                return
            }
            #expect(cause.seq == 4, "\(name): \(cause)")
            #expect(error.message.contains("seq 4"), "\(error.message)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "a refused open changed the file")

        // Salvage: keep exactly the records before the bad one.
        let repair = try LogWriter.open(path: path)
        try repair.discardRecords(after: 3)
        // The writer goes on after the salvage (in format 4, in the file the salvage wrote).
        try repair.append([LogEntry(.toggled(id: testID(2), isEnabled: true))])
        repair.close()
        let store = try LabelStore.open(path: path)
        #expect(store.labels.map(\.title) == ["Grid", "Tile", "Ring"])
        #expect(store.labels.map(\.isEnabled) == [true, true, true])
        #expect(store.lastSeq == 4)
        store.close()
        #expect(try LogReader.readAll(path: path).records.map(\.event) == Self.good + [.toggled(id: testID(2), isEnabled: true)])
        #expect(try LogReader(path: path).header.version == format)
    }
}

@Suite struct StoreRecoveryReportTests {
    @Test func theStoreSaysWhetherItCreatedTheLogAndWhatOpeningCut() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("report-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("log").path
        let store = try LabelStore.open(path: path, options: .init(createIfMissing: true))
        #expect(store.createdLog)
        try store.add("Amber")
        store.close()
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([9, 0, 0, 0, 1, 2, 3]))
        try handle.close()
        let reopened = try LabelStore.open(path: path)
        #expect(!reopened.createdLog)
        #expect(reopened.recoveryReport?.droppedBytes == 7)
        #expect(reopened.recoveryReport?.damage?.isTornTail == true)
        #expect(reopened.labels.map(\.title) == ["Amber"])
        reopened.close()
        #expect(try LabelStore(storage: InMemoryEventLog()).recoveryReport == nil)
    }
}
