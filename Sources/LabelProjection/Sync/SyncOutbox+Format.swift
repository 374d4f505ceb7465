import EventLog
import Foundation

/// The outbox file's layout (docs/SYNC.md, "The outbox file"): a 16-byte
/// header, then entries, each a frame of a 4-byte length, a 4-byte CRC-32C
/// and the payload.
extension SyncOutbox {
    /// `LBOUTBOX`.
    static let magic: [UInt8] = Array("LBOUTBOX".utf8)
    /// The one version written and read.
    static let version: UInt16 = 1
    /// Header bytes: magic, version, 2 reserved zero bytes, the CRC-32C of the first 12.
    static let headerLength: Int64 = 16
    /// Frame header bytes: length, CRC-32C.
    static let frameHeaderLength = 8
    /// The largest payload an entry may have.
    static let maxPayloadBytes = 64 * 1024 * 1024

    /// The header's 16 bytes.
    static func header() -> [UInt8] {
        var w = ByteWriter(capacity: 16)
        w.bytes += magic
        w.u16(version)
        w.u16(0)
        w.u32(w.bytes.withUnsafeBytes { CRC32C.checksum($0) })
        return w.bytes
    }

    /// One entry of the file.
    enum Entry: Sendable, Hashable {
        /// A command the app was told is saved (kind 1).
        case command(SyncCommand)
        /// The command `batch` is about to be sent to append after seq `afterSeq` (kind 2):
        /// after a crash, the server's row at `afterSeq + 1` says whether it was.
        case attempt(batch: UUID, afterSeq: UInt64)
        /// The command `batch` left the outbox with this outcome (kind 3).
        case done(batch: UUID, outcome: SyncLedger.Outcome)

        /// The frame of this entry: length, CRC-32C of the length bytes and the payload, payload.
        func frame() -> [UInt8] {
            var payload = ByteWriter()
            switch self {
            case .command(let command):
                payload.u8(1)
                command.encode(into: &payload)
            case .attempt(let batch, let afterSeq):
                payload.u8(2)
                payload.uuid(batch)
                payload.varint(afterSeq)
            case .done(let batch, let outcome):
                payload.u8(3)
                payload.uuid(batch)
                switch outcome {
                case .applied(let firstSeq):
                    payload.u8(1)
                    payload.varint(firstSeq)
                case .satisfied:
                    payload.u8(2)
                case .refused(let refusal, let seq):
                    payload.u8(3)
                    payload.u8(refusal.reason == .labelRemoved ? 1 : 2)
                    payload.varint(seq)
                }
            }
            var frame = ByteWriter(capacity: payload.bytes.count + 8)
            frame.u32(UInt32(payload.bytes.count))
            let crc = frame.bytes.withUnsafeBytes { length in
                payload.bytes.withUnsafeBytes { CRC32C.update(CRC32C.checksum(length), $0) }
            }
            frame.u32(crc)
            frame.bytes += payload.bytes
            return frame.bytes
        }

        /// The entry in `payload` (a frame's checked payload).
        static func decode(_ payload: UnsafeRawBufferPointer) throws(DecodeFailure) -> Entry {
            var r = ByteReader(payload)
            let entry: Entry
            switch try r.u8() {
            case 1:
                entry = .command(try SyncCommand.decode(&r))
            case 2:
                entry = .attempt(batch: try r.uuid(), afterSeq: try r.varint())
            case 3:
                let batch = try r.uuid()
                let outcome: SyncLedger.Outcome
                switch try r.u8() {
                case 1: outcome = .applied(firstSeq: try r.varint())
                case 2: outcome = .satisfied
                case 3:
                    let reason: SyncRefusal.Reason
                    switch try r.u8() {
                    case 1: reason = .labelRemoved
                    case 2: reason = .titleChanged
                    case let other: throw DecodeFailure("unknown refusal reason \(other)")
                    }
                    outcome = .refused(SyncRefusal(reason), seq: try r.varint())
                case let other: throw DecodeFailure("unknown outcome \(other)")
                }
                entry = .done(batch: batch, outcome: outcome)
            case let other:
                throw DecodeFailure("unknown entry kind \(other)")
            }
            guard r.isAtEnd else { throw DecodeFailure("\(r.remaining) bytes follow the entry") }
            return entry
        }
    }
}
