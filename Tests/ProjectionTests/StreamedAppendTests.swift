import EventLog
import Foundation
import LabelStoreTestSupport
import Testing

@testable import LabelProjection

/// `LabelStore.appendStreamed` (what `labelreplay import` uses): chunks of raw
/// entries checked against the state and appended all or nothing, without the
/// store ever showing part of them.
@Suite struct StreamedAppendTests {
    /// Chunks of adds of `count` labels numbered from `first` (ids `testID(first)` on), `size` per chunk.
    static func chunks(first: Int, count: Int, size: Int, startIndex: Int) -> [[LogEntry]] {
        stride(from: 0, to: count, by: size).map { start in
            (start..<min(start + size, count)).map { i in
                LogEntry(.added(id: testID(first + i), title: "L\(first + i)", isEnabled: i % 3 != 0, index: startIndex + i), actor: "s")
            }
        }
    }

    /// A `next` closure yielding `chunks` in turn.
    static func source(_ chunks: [[LogEntry]]) -> () throws -> [LogEntry]? {
        var rest = chunks[...]
        return { rest.popFirst() }
    }

    @Test func theChunksAreAppendedAllAtOnceAndTheProjectionIsTheirFold() throws {
        let dir = TemporaryDirectory()
        let store = try LabelStore.open(path: dir.file(), options: .init(createIfMissing: true))
        defer { store.close() }
        try store.add("first", id: testID(1))
        var before: [Int] = []
        let seqs = try store.appendStreamed(Self.source(Self.chunks(first: 10, count: 2_500, size: 700, startIndex: 1))) {
            // Before the commit, the log holds none of the chunks for any reader (the store's own reads wait on its lock).
            before.append(try LogReader.readAll(path: dir.file()).records.count)
            before.append(try store.storage.read(from: 2, maxCount: 10).count)
        }
        #expect(seqs == 2...2_501)
        #expect(before == [1, 0])
        var expected = LabelList()
        for record in try LogReader.readAll(path: dir.file()).records { try expected.replay(record) }
        #expect(store.snapshot == expected && store.snapshot.count == 2_501)
        #expect(try store.add("after") == store.snapshot.id(at: 2_501), "the store writes on after it")
    }

    @Test func subscribersHearEveryRecordOnceTheyAreCommitted() throws {
        let dir = TemporaryDirectory()
        let store = try LabelStore.open(path: dir.file(), options: .init(createIfMissing: true))
        defer { store.close() }
        let heard = Collector<UInt64>()
        let subscription = store.subscribe(to: .membership) { heard.append($0.seq) }
        defer { subscription.cancel() }
        let seqs = try store.appendStreamed(Self.source(Self.chunks(first: 1, count: 1_000, size: 300, startIndex: 0))) {
            #expect(heard.count == 0, "nobody is told before the commit")
        }
        #expect(seqs == 1...1_000)
        #expect(heard.all == Array(1...1_000))
    }

    @Test func aRefusedEntryAnywhereAppendsNothingAndNamesItsPosition() throws {
        let dir = TemporaryDirectory()
        let store = try LabelStore.open(path: dir.file(), options: .init(createIfMissing: true))
        defer { store.close() }
        try store.add("first", id: testID(1))
        let before = store.snapshot
        var chunks = Self.chunks(first: 10, count: 900, size: 400, startIndex: 1)
        chunks[2][50] = LogEntry(.toggled(id: testID(99_999), isEnabled: false))
        do {
            _ = try store.appendStreamed(Self.source(chunks))
            Issue.record("an entry for an unknown label was appended")
        } catch let error as StoreError {
            #expect(error.batchIndex == 850, "\(error)")
            guard case .inconsistentEvent = error.code else { throw error }
        }
        // An error of the source, or of the last step, abandons it as well.
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try store.appendStreamed(Self.source(Self.chunks(first: 10, count: 10, size: 5, startIndex: 1))) { throw Stop() }
        }
        #expect(store.snapshot == before && store.lastSeq == 1)
        #expect(try LogReader.readAll(path: dir.file()).records.count == 1)
    }

    @Test func aLogThatCannotStageGetsOneAppendAtTheEnd() throws {
        let log = InMemoryEventLog()
        let store = try LabelStore(storage: log)
        let seqs = try store.appendStreamed(Self.source(Self.chunks(first: 1, count: 50, size: 20, startIndex: 0)))
        #expect(seqs == 1...50 && store.snapshot.count == 50 && log.lastSeq == 50)
        #expect(try store.appendStreamed({ nil }) == nil)
    }
}
