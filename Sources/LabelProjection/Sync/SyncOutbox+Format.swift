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
        /// Commands the app was told are saved together (kind 4): one frame, so
        /// a crash keeps all of them or none.
        case commands([SyncCommand])
        /// A push about to be sent (kind 2): after a crash, the server's row at
        /// `afterSeq + 1` holds the attempt's group id exactly when it committed.
        case attempt(Attempt)
        /// Commands that left the outbox, with what became of each (kind 3).
        case done([SyncLedger.Entry])

        /// The frame of this entry: length, CRC-32C of the length bytes and the payload, payload.
        func frame() -> [UInt8] {
            var payload = ByteWriter()
            switch self {
            case .command(let command):
                payload.u8(1)
                command.encode(into: &payload)
            case .commands(let commands):
                payload.u8(4)
                payload.varint(UInt64(commands.count))
                for command in commands { command.encode(into: &payload) }
            case .attempt(let attempt):
                payload.u8(2)
                payload.uuid(attempt.group)
                payload.varint(attempt.afterSeq)
                payload.ledgerEntries(attempt.plan)
            case .done(let entries):
                payload.u8(3)
                payload.ledgerEntries(entries)
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
            case 1: entry = .command(try SyncCommand.decode(&r))
            case 4:
                let n = try r.count(max: r.remaining / 20, what: "command count")
                var commands: [SyncCommand] = []
                commands.reserveCapacity(n)
                for _ in 0..<n { commands.append(try SyncCommand.decode(&r)) }
                entry = .commands(commands)
            case 2: entry = .attempt(Attempt(group: try r.uuid(), afterSeq: try r.varint(), plan: try r.ledgerEntries()))
            case 3: entry = .done(try r.ledgerEntries())
            case let other: throw DecodeFailure("unknown entry kind \(other)")
            }
            guard r.isAtEnd else { throw DecodeFailure("\(r.remaining) bytes follow the entry") }
            return entry
        }
    }
}

extension ByteWriter {
    /// Appends a varint count and each entry: batch id, outcome (a code byte —
    /// 1 applied and a varint first seq, 2 satisfied, 3 refused, a reason byte
    /// and a varint seq), varint title seq (0: none).
    mutating func ledgerEntries(_ entries: [SyncLedger.Entry]) {
        varint(UInt64(entries.count))
        for entry in entries {
            uuid(entry.batchID)
            switch entry.outcome {
            case .applied(let firstSeq):
                u8(1)
                varint(firstSeq)
            case .satisfied:
                u8(2)
            case .refused(let refusal, let seq):
                u8(3)
                u8(refusal.reason == .labelRemoved ? 1 : 2)
                varint(seq)
            }
            varint(entry.titleSeq ?? 0)
        }
    }
}

extension ByteReader {
    /// Reads what ``ByteWriter/ledgerEntries(_:)`` wrote.
    mutating func ledgerEntries() throws(DecodeFailure) -> [SyncLedger.Entry] {
        let n = try count(max: remaining / 18, what: "entry count")
        var entries: [SyncLedger.Entry] = []
        entries.reserveCapacity(n)
        for _ in 0..<n {
            let batch = try uuid()
            let outcome: SyncLedger.Outcome
            switch try u8() {
            case 1: outcome = .applied(firstSeq: try varint())
            case 2: outcome = .satisfied
            case 3:
                let reason: SyncRefusal.Reason
                switch try u8() {
                case 1: reason = .labelRemoved
                case 2: reason = .titleChanged
                case let other: throw DecodeFailure("unknown refusal reason \(other)")
                }
                outcome = .refused(SyncRefusal(reason), seq: try varint())
            case let other: throw DecodeFailure("unknown outcome \(other)")
            }
            let titleSeq = try varint()
            entries.append(SyncLedger.Entry(batchID: batch, outcome: outcome, titleSeq: titleSeq == 0 ? nil : titleSeq))
        }
        return entries
    }
}
