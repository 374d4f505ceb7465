import EventLog
import Foundation
import LabelStoreTestSupport
import Testing

@testable import LabelProjection

/// A checkpoint's chain (a full image and the deltas after it) leaves the
/// titles' UTF-8 check to one pass over the titles the list keeps
/// (`CheckpointState.list(tombstones:)`): a live label whose title bytes are
/// not UTF-8 is refused by name, while bytes no live label points at (a title
/// a later delta replaced) are never looked at.
@Suite struct CheckpointStateTitleTests {
    /// The state decoded from the full image of a list of `count` labels, some titles not ASCII.
    func decodedState(count: Int) throws -> (state: CheckpointState, list: LabelList) {
        var list = LabelList()
        for k in 0..<count {
            try list.apply(
                EventRecord(
                    seq: UInt64(k + 1), timestamp: EventTimestamp(millisecondsSince1970: 1_000 + Int64(k)),
                    event: .added(
                        id: testID(k + 1), title: "label \(k) \(k % 2 == 0 ? "Zürich" : "Ελλάδα")", isEnabled: k % 3 == 0, index: k)))
        }
        let position = LogPosition(seq: list.lastSeq, offset: 4_096, length: 48, checksum: 7)
        let bytes = list.checkpointImageBytes(logID: SnapshotCodecTests.logID, logPosition: position)
        let state = try bytes.withUnsafeBytes { raw in
            try Result { () throws(SnapshotError) in try CheckpointState(fullImage: raw, removedLimit: 0) }.get()
        }
        return (state, list)
    }

    @Test func aLiveTitleThatIsNotUTF8IsRefusedByItsSlotAndLabel() throws {
        var (state, _) = try decodedState(count: 12)
        let bad: [UInt8] = [0x6F, 0x6B, 0xC3, 0x28]  // "ok" then a lead byte followed by an ASCII byte
        let ref = bad.withUnsafeBytes { state.titles.append($0) }
        let victim = Int(state.liveIndex[5])
        state.live[victim].title = ref
        #expect(throws: SnapshotError.self) { _ = try state.list(tombstones: TombstoneTable(slotCount: 12)) }
        do {
            _ = try state.list(tombstones: TombstoneTable(slotCount: 12))
        } catch {
            #expect(error.code == .invalidContent)
            #expect(
                error.message.contains("live slot 5 (label \(testID(6)))") && error.message.contains("not valid UTF-8"), "\(error.message)")
        }
    }

    @Test func titleBytesNoLiveLabelPointsAtAreNotChecked() throws {
        var (state, list) = try decodedState(count: 12)
        // A title a later delta replaced: in the arena, released, pointed at by nothing live.
        let stale: [UInt8] = [0xFF, 0xFE, 0x80]
        let ref = stale.withUnsafeBytes { state.titles.append($0) }
        state.titles.release(ref)
        let rebuilt = try state.list(tombstones: TombstoneTable(slotCount: 12))
        #expect(rebuilt == list)
        rebuilt._checkInvariants()
    }
}
