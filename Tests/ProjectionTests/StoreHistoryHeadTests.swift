import EventLog
import Foundation
import LabelStoreTestSupport
import Testing

@testable import LabelProjection

/// `LabelStore.head`, `historyHead(atSeq:)` and the proofs: the same values
/// the log's records give when hashed on their own, on any storage, open or
/// closed, kept current as records are appended.
@Suite struct StoreHistoryHeadTests {
    /// The head of records `1…seq` of the file at `path`, hashed straight from its frames.
    static func fileHead(_ path: String, _ seq: UInt64) throws -> HistoryHead {
        var builder = HistoryTreeBuilder()
        let reader = try LogReader(path: path)
        try reader.forEachView { view in
            if view.seq <= seq { builder.append(payload: Array(view.payload)) }
        }
        return builder.head
    }

    @Test func aStoresHeadsAreTheLogsAtEverySeqOpenAndClosed() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let store = try LabelStore.open(path: path, options: .init(durability: .noSync, createIfMissing: true))
        #expect(try store.head == HistoryHead(seq: 0, hash: .empty))
        var ids: [LabelID] = []
        for n in 0..<40 {
            ids.append(try store.add("Label \(n)"))
            if n % 9 == 0 { #expect(try store.head.seq == UInt64(n + 1)) }  // kept current as records come
        }
        try store.rename(ids[3], to: "Renamed")
        try store.remove(ids[5])
        let last = store.lastSeq
        for seq in [0, 1, 2, 17, 33, last] as [UInt64] {
            #expect(try store.historyHead(atSeq: seq) == (try Self.fileHead(path, seq)), "seq \(seq)")
        }
        #expect(try store.head == (try Self.fileHead(path, last)))
        #expect(try store.head == (try HistoryProver.head(of: HistoryRecords(path: path))))
        #expect(throws: StoreError.self) { try store.historyHead(atSeq: last + 1) }

        let old = try store.historyHead(atSeq: 20)
        let proof = try store.inclusionProof(ofSeq: 7, underHeadAt: 20)
        #expect(proof.head == old)
        let reader = try LogReader(path: path)
        var payload: [UInt8] = []
        try reader.forEachView { view in if view.seq == 7 { payload = Array(view.payload) } }
        try proof.verify(payload: payload)
        let extended = try store.consistencyProof(from: 20)
        let now = try store.head
        #expect(extended.old == old && extended.new == now)
        try extended.verify()

        store.close()
        #expect(try store.historyHead(atSeq: 11) == (try Self.fileHead(path, 11)))
        #expect(try store.inclusionProof(ofSeq: 40).seq == 40)
    }

    /// The head is the records' bytes only: a store over memory with the same
    /// records (the same timestamps and actors) has the same head as the file's.
    @Test func theSameRecordsHaveTheSameHeadOnAnyStorage() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let clock = StepClock()
        let file = try LabelStore.open(path: path, options: .init(durability: .noSync, createIfMissing: true, clock: clock.now))
        for n in 0..<25 { _ = try file.add("Label \(n)", options: .init(actor: n % 2 == 0 ? "ana" : nil)) }
        let memory = InMemoryEventLog()
        let reader = try LogReader(path: path)
        var entries: [LogEntry] = []
        while let record = try reader.next() {
            entries.append(LogEntry(record.event, timestamp: record.timestamp, actor: record.actor, note: record.note))
        }
        _ = try memory.append(entries, expectedLastSeq: 0)
        let copy = try LabelStore(storage: memory)
        #expect(try copy.head == (try file.head))
        #expect(try copy.historyHead(atSeq: 13) == (try file.historyHead(atSeq: 13)))
        file.close()
    }

    @Test func frontiersAreKeptEverySpacingAndTheNearestIsUsed() {
        var frontiers = HistoryFrontiers()
        func builder(_ count: UInt64) -> HistoryTreeBuilder {
            var builder = HistoryTreeBuilder()
            for n in 0..<count { builder.append(leaf: .leaf(payload: Array("\(n)".utf8))) }
            return builder
        }
        #expect(frontiers.start(for: 10).count == 0)
        frontiers.note(builder(5))
        #expect(frontiers.start(for: 10).count == 5)
        #expect(frontiers.start(for: 3).count == 0)
        frontiers.note(builder(3))
        #expect(frontiers.newest.count == 5)  // an older one does not replace the newest
        #expect(frontiers.kept.isEmpty)
    }
}
