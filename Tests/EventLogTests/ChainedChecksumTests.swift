import Foundation
import LabelStoreTestSupport
import Testing

@testable import EventLog

/// The chained checksum of a record kept outside a file (a server row's
/// `crc`) is a version 2 frame's `crc` of the same payload, keyed by the same
/// id, chained to the same previous value (docs/POSTGRES.md, "Integrity").
@Suite struct ChainedChecksumTests {
    @Test func chainedChecksumIsTheFrameChecksum() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let writer = try LogWriter.open(path: path, options: .init(durability: .syncEachAppend, createIfMissing: true))
        // One record per append and each synced: no continuation flag, as the server's rows have none.
        for i in 0..<20 {
            try writer.append(
                LogEntry(.added(id: LabelID(), title: "chain \(i) " + String(repeating: "é", count: i), isEnabled: true, index: 0)))
        }
        let logID = writer.header.logID
        writer.close()
        let bytes = readBytes(path)
        let checksums = ChainedChecksum(historyID: logID.uuid)
        var previous: UInt32 = 0
        var checked = 0
        for offset in frameOffsets(bytes) {
            let word = bytes[offset..<(offset + 4)].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self).littleEndian }
            let stored = bytes[(offset + 4)..<(offset + 8)].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self).littleEndian }
            #expect(word & FrameFormat.continuationFlag == 0)
            let payload = Array(bytes[(offset + 12)..<(offset + 12 + Int(word & FrameFormat.lengthBits))])
            #expect(checksums.next(after: previous, payload: payload) == stored, "seq \(checked + 1)")
            previous = stored
            checked += 1
        }
        #expect(checked == 20)
        // Another id, or another predecessor, gives another checksum.
        let payload = Array(bytes[(frameOffsets(bytes)[0] + 12)...].prefix(10))
        #expect(ChainedChecksum(historyID: UUID()).next(after: 0, payload: payload) != checksums.next(after: 0, payload: payload))
        #expect(checksums.next(after: 1, payload: payload) != checksums.next(after: 0, payload: payload))
    }
}
