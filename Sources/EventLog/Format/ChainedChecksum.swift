import Foundation

/// The keyed, chained checksum of a record kept outside a file: exactly the
/// `crc` of a version 2 frame holding the same payload with the continuation
/// flag clear (docs/FORMAT.md, "Record frame"): CRC-32C of the history's id
/// (16 bytes), the payload length (`u32`, little-endian), the checksum of the
/// record before (`u32`; 0 before seq 1) and the payload.
///
/// Server lists store it in every row (docs/POSTGRES.md, "Integrity"), so a
/// row changed, removed, swapped or inserted by hand is found by the next
/// read, as a changed byte of a file frame is.
package struct ChainedChecksum: Sendable, Hashable {
    let format: FrameFormat

    /// The checksums of the history whose id is `historyID` (a server list's `log_id`).
    package init(historyID: UUID) {
        format = FrameFormat(version: 2, logID: LabelID(historyID))
    }

    /// The checksum of the record with `payload` whose predecessor's checksum is `previous`.
    package func next(after previous: UInt32, payload: UnsafeRawBufferPointer) -> UInt32 {
        var header = (UInt32(payload.count).littleEndian, previous.littleEndian)
        return withUnsafeBytes(of: &header) { raw in
            let word = UnsafeRawBufferPointer(rebasing: raw[0..<4])
            let previousBytes = UnsafeRawBufferPointer(rebasing: raw[4..<8])
            return CRC32C.update(CRC32C.update(format.seed, word), previousBytes, payload)
        }
    }

    /// ``next(after:payload:)`` of an array.
    package func next(after previous: UInt32, payload: [UInt8]) -> UInt32 {
        payload.withUnsafeBytes { next(after: previous, payload: $0) }
    }
}
