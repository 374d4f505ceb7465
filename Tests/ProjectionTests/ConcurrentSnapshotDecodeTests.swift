import EventLog
import LabelStoreTestSupport
import Testing

@testable import LabelProjection

/// Large version 2 snapshots build their id index on a second thread while
/// the columns are parsed: the result is the same list, a duplicate id is
/// still found, and a column error still waits for the other thread
/// (this suite also runs under ThreadSanitizer in CI).
@Suite struct ConcurrentSnapshotDecodeTests {
    /// A list above the concurrent decoder's threshold (50,000 slots), with removals.
    static func bigList() throws -> LabelList {
        var list = LabelList()
        var seq: UInt64 = 0
        for i in 0..<60_000 {
            seq += 1
            try list.apply(
                record(
                    seq,
                    .added(id: testID(i + 1), title: i % 5 == 0 ? "" : "label \(i) — ünïcode", isEnabled: i % 3 == 0, index: list.count)))
        }
        for i in stride(from: 0, to: 60_000, by: 7) {
            seq += 1
            let id = testID(i + 1)
            let position = list.position(of: id)!
            let label = list.label(id)!
            try list.apply(record(seq, .removed(id: id, index: position, title: label.title, isEnabled: label.isEnabled)))
        }
        return list
    }

    func decode(_ bytes: [UInt8]) throws(SnapshotError) -> LabelList {
        try bytes.withUnsafeBytes { raw in Result { () throws(SnapshotError) in try LabelList.decodeSnapshot(raw).list } }.get()
    }

    @Test func aLargeSnapshotDecodesToTheSameListWithEveryIDFindable() throws {
        let list = try Self.bigList()
        let decoded = try decode(list.snapshotBytes(logID: testID(1), fingerprint: 0))
        #expect(decoded == list && decoded.slots.count == 60_000)
        decoded._checkInvariants()
        for i in stride(from: 1, through: 60_000, by: 997) {
            #expect(decoded.label(testID(i)) == list.label(testID(i)) && decoded.removal(of: testID(i)) == list.removal(of: testID(i)))
        }
    }

    @Test func aDuplicateIDAndABadColumnAreFoundInALargeSnapshot() throws {
        let list = try Self.bigList()
        let bytes = list.snapshotBytes(logID: testID(1), fingerprint: 0)
        // The ids column starts after the header and the three count varints.
        func varintLength(_ v: Int) -> Int { v < 1 << 7 ? 1 : v < 1 << 14 ? 2 : v < 1 << 21 ? 3 : 4 }
        let idsStart =
            SnapshotFormat.headerLength + varintLength(list.slots.count) + varintLength(list.count) + varintLength(list.enabledCount)
        #expect(Array(bytes[idsStart..<idsStart + 16]) == withUnsafeBytes(of: testID(1).uuid.uuid) { Array($0) })
        var duplicated = bytes
        duplicated.replaceSubrange((idsStart + 16 * 59_999)..<(idsStart + 16 * 60_000), with: bytes[idsStart..<idsStart + 16])
        SnapshotCodecTests.reseal(&duplicated)
        do {
            _ = try decode(duplicated)
            Issue.record("a snapshot with one id in two slots decoded")
        } catch {
            #expect(error.code == .invalidContent && error.message.contains("two slots"))
        }
        var badState = bytes
        badState[idsStart + 16 * 60_000 + 123] = 9  // a state column entry
        SnapshotCodecTests.reseal(&badState)
        do {
            _ = try decode(badState)
            Issue.record("a snapshot with state 9 decoded")
        } catch {
            #expect(error.code == .invalidContent && error.message.contains("state 9"))
        }
    }
}
