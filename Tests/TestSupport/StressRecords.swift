import EventLog
import Foundation

/// Records that stress the writer and recovery: reorders over 10 MB, and
/// titles whose bytes contain a whole, valid frame of the log they are
/// appended to (so a torn write of such a record leaves a checksummed frame
/// behind the damage).
///
/// Nothing here knows the frame layout: frames are made by a `LogWriter`
/// appending to a scratch copy of the target log's header (same log id, same
/// code path), and located with `lastPosition`. The kill tests' child
/// (`logtorture`) and the tests that check what it wrote both use this one
/// copy, so the titles they build are the same byte for byte.
package enum StressRecords {
    /// Enough ids for a reorder payload over 10 MiB (16 bytes each).
    package static let largeReorderCount = (10 << 20) / 16 + 64

    /// `count` distinct ids determined by `seed`.
    package static func reorderIDs(seed: UInt64, count: Int) -> [LabelID] {
        (0..<count).map { i in
            let a = seed, b = UInt64(i)
            return LabelID(
                bytes: (
                    UInt8(truncatingIfNeeded: a), UInt8(truncatingIfNeeded: a >> 8), UInt8(truncatingIfNeeded: a >> 16),
                    UInt8(truncatingIfNeeded: a >> 24), UInt8(truncatingIfNeeded: a >> 32), UInt8(truncatingIfNeeded: a >> 40),
                    0x40, UInt8(truncatingIfNeeded: a >> 48), 0x80, UInt8(truncatingIfNeeded: a >> 56),
                    UInt8(truncatingIfNeeded: b), UInt8(truncatingIfNeeded: b >> 8), UInt8(truncatingIfNeeded: b >> 16),
                    UInt8(truncatingIfNeeded: b >> 24), UInt8(truncatingIfNeeded: b >> 32), 0x5A
                ))
        }
    }

    /// The ids of every large reorder (built once: a debug build takes a while).
    package static let largeReorderIDs = reorderIDs(seed: 0x1A26_E5EE, count: largeReorderCount)
    /// Their bytes, 16 per id, as a record stores them.
    package static let largeReorderBytes: [UInt8] = {
        precondition(MemoryLayout<LabelID>.stride == 16, "a LabelID is its 16 UUID bytes")
        return largeReorderIDs.withUnsafeBytes { Array($0) }
    }()

    /// A reorder entry of more than 10 MB (entries differ by their timestamp and `actor`).
    package static func largeReorder(timestamp: EventTimestamp? = nil, actor: String = "bulk") -> LogEntry {
        LogEntry(.reordered(order: largeReorderIDs), timestamp: timestamp, actor: actor)
    }

    /// The bytes of a whole frame that is valid in the log at `logPath` and valid
    /// UTF-8, holding seq `seq` (1...127), or `nil` if none is found.
    ///
    /// A writer appending to a scratch log with the same header gives a real
    /// record's frame; in format version 2 it is then re-framed as
    /// docs/FORMAT.md specifies, with an ASCII `previous` field, and the
    /// record's id varied until the checksum is ASCII too: the strongest title
    /// someone who can read the log's id could choose.
    package static func frameBytes(validIn logPath: String, seq: UInt64, attempts: Int = 4096) throws -> [UInt8]? {
        guard let handle = FileHandle(forReadingAtPath: logPath) else { return nil }
        let header = [UInt8](try handle.read(upToCount: LogFormat.headerLength) ?? Data())
        try handle.close()
        let logHeader = try LogHeader.decode(header, fileSize: Int64(header.count), path: logPath)
        let scratch = "\(logPath).frame-scratch-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        guard FileManager.default.createFile(atPath: scratch, contents: Data(header)) else { return nil }
        let writer = try LogWriter.open(path: scratch, options: LogWriter.Options(durability: .noSync, preallocation: 0))
        if seq > 1 {
            try writer.append(
                (1..<seq).map { LogEntry(.toggled(id: asciiID(Int($0)), isEnabled: true), timestamp: .init(millisecondsSince1970: 1)) })
        }
        let template = asciiID(1000)
        try writer.append(LogEntry(.toggled(id: template, isEnabled: true), timestamp: .init(millisecondsSince1970: 1)))
        guard let position = writer.lastPosition else { return nil }
        writer.close()
        guard let bytes = FileManager.default.contents(atPath: scratch) else { return nil }
        let frame = Array(bytes[Int(position.offset)..<Int(position.end)])
        let headerLength = LogFormat.frameHeaderLength(version: logHeader.version)
        guard logHeader.version >= 2 else {
            return frame.allSatisfy({ $0 < 0x80 }) ? frame : nil
        }
        var payload = Array(frame[headerLength...])
        var idBytes = ByteWriter()
        idBytes.id(template)
        guard let idAt = (0...(payload.count - 16)).first(where: { Array(payload[$0..<($0 + 16)]) == idBytes.bytes }) else { return nil }
        var keyBytes = ByteWriter()
        keyBytes.id(logHeader.logID)
        // The record's length, without the continuation flag (the scratch writer may have set it).
        let word = Array(frame[0..<3]) + [frame[3] & 0x7F]
        let previous: [UInt8] = [0x41, 0x41, 0x41, 0x41]
        for attempt in 0..<attempts {
            payload[idAt + 14] = 0x41 + UInt8(attempt / 26 % 26)
            payload[idAt + 15] = 0x41 + UInt8(attempt % 26)
            payload[idAt + 13] = 0x41 + UInt8(attempt / 676 % 26)
            let crc = CRC32C.checksum(keyBytes.bytes + word + previous + payload)
            let candidate = word + (0..<4).map { UInt8(truncatingIfNeeded: crc >> (8 * $0)) } + previous + payload
            if candidate.allSatisfy({ $0 < 0x80 }) { return candidate }
        }
        return nil
    }

    /// A title of about `length` bytes: `prefix`, then the frame's bytes (as text), then padding.
    package static func frameTitle(prefix: String, frame: [UInt8], length: Int = 4000) -> String {
        let text = String(decoding: frame, as: UTF8.self)
        let head = prefix + "⟨" + text + "⟩"
        let padding = max(0, min(length, LogLimits.maxTitleBytes) - head.utf8.count)
        return head + String(repeating: "p", count: padding)
    }

    /// The seq of the record whose frame the kill test's titles embed.
    package static let embeddedSeq: UInt64 = 7

    /// The plain title of the record at `seq`, as the kill tests' child writes
    /// it and the parent checks every acknowledged record against it.
    package static func plainTitle(_ seq: UInt64) -> String {
        "seq \(seq) " + String(repeating: "ø", count: Int(seq % 61))
    }

    /// The title of the record at `seq` in the mixed kill test: every fifth one
    /// holds `frame` (a valid frame of the log), the others are the plain titles.
    package static func mixedTitle(_ seq: UInt64, frame: [UInt8]?) -> String {
        guard let frame, seq % 5 == 2 else { return plainTitle(seq) }
        return frameTitle(prefix: "seq \(seq) ", frame: frame, length: 200 + Int(seq % 7) * 900)
    }

    /// A label id whose 16 bytes are printable ASCII, distinct for each `n` below 10^16.
    package static func asciiID(_ n: Int) -> LabelID {
        var digits = Array(String(n).utf8)
        digits = [UInt8](repeating: UInt8(ascii: "0"), count: max(0, 16 - digits.count)) + digits
        let b = digits.suffix(16).map { $0 + 0x11 }  // "0"..."9" → "A"..."J"
        return LabelID(bytes: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }
}
