import EventLog
import Foundation

/// Records that stress the writer and recovery: reorders over 10 MB, and
/// records whose bytes contain a whole, valid frame of the log they are
/// appended to (so a torn write of such a record leaves a checksummed frame
/// behind the damage).
///
/// Nothing here knows the frame layout: frames are made by a `LogWriter`
/// appending to a scratch copy of the target log's header (same log id, same
/// code path), and located with `lastPosition`. The kill tests' child
/// (`logtorture`) and the tests that check what it wrote both use this one
/// copy, so the records they build are the same byte for byte.
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

    /// The bytes of a whole frame that is valid in the log at `logPath` (keyed
    /// by its log id, checksummed), holding seq `seq`, or `nil` if none is made.
    ///
    /// A writer appending to a scratch log with the same header gives a real
    /// record's frame: the strongest bytes someone who can read the log's id
    /// could put inside a record.
    package static func frameBytes(validIn logPath: String, seq: UInt64) throws -> [UInt8]? {
        guard let handle = FileHandle(forReadingAtPath: logPath) else { return nil }
        let header = [UInt8](try handle.read(upToCount: LogFormat.headerLength) ?? Data())
        try handle.close()
        _ = try LogHeader.decode(header, fileSize: Int64(header.count), path: logPath)
        let scratch = "\(logPath).frame-scratch-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        guard FileManager.default.createFile(atPath: scratch, contents: Data(header)) else { return nil }
        let writer = try LogWriter.open(path: scratch, options: LogWriter.Options(durability: .noSync, preallocation: 0))
        if seq > 1 {
            try writer.append(
                (1..<seq).map { LogEntry(.toggled(id: asciiID(Int($0)), isEnabled: true), timestamp: .init(millisecondsSince1970: 1)) })
        }
        try writer.append(LogEntry(.toggled(id: asciiID(1000), isEnabled: true), timestamp: .init(millisecondsSince1970: 1)))
        guard let position = writer.lastPosition else { return nil }
        writer.close()
        guard let bytes = FileManager.default.contents(atPath: scratch) else { return nil }
        return Array(bytes[Int(position.offset)..<Int(position.end)])
    }

    /// The first id of every frame carrier (its bytes spell `frame carrier ⟨⟩` in part).
    package static let carrierMark = LabelID(
        bytes: (
            0x66, 0x72, 0x61, 0x6D, 0x65, 0x20, 0x63, 0x61, 0x72, 0x72, 0x69, 0x65, 0x72, 0x20, 0x3C, 0x3E
        ))

    /// Whether `event` is a frame carrier (``frameCarrier(tag:frame:length:timestamp:actor:)``).
    package static func carriesFrame(_ event: LabelEvent) -> Bool {
        if case .reordered(let order) = event { return order.first == carrierMark }
        return false
    }

    /// The ids of a frame carrier: ``carrierMark``, then 16-byte ids whose
    /// bytes are `tag`'s UTF-8, then `frame`, then distinct filler ids, about
    /// `length` bytes in all.
    ///
    /// Every frame's length word holds a zero byte, and no string of a record
    /// may hold U+0000 (docs/FORMAT.md, "Strings"), so label ids are where a
    /// caller can put a frame's bytes inside a record; the tag's length puts
    /// the frame at any byte offset of the payload.
    package static func frameCarrierIDs(tag: String, frame: [UInt8], length: Int = 4000) -> [LabelID] {
        var bytes = Array(tag.utf8) + frame
        bytes += [UInt8](repeating: UInt8(ascii: "p"), count: (16 - bytes.count % 16) % 16)
        var ids = [carrierMark]
        ids += stride(from: 0, to: bytes.count, by: 16).map { at in
            let b = bytes[at..<(at + 16)].map { $0 }
            return LabelID(bytes: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
        }
        var filler = 0
        while ids.count * 16 < length {
            filler += 1
            ids.append(asciiID(filler))
        }
        return ids
    }

    /// A reorder of about `length` bytes whose body holds `frame` (a valid
    /// frame of the log) after `tag`'s bytes (``frameCarrierIDs(tag:frame:length:)``).
    package static func frameCarrier(
        tag: String, frame: [UInt8], length: Int = 4000, timestamp: EventTimestamp? = nil, actor: String? = nil
    ) -> LogEntry {
        LogEntry(.reordered(order: frameCarrierIDs(tag: tag, frame: frame, length: length)), timestamp: timestamp, actor: actor ?? tag)
    }

    /// The seq of the record whose frame the mixed kill test's carriers embed.
    package static let embeddedSeq: UInt64 = 7

    /// The plain title of the record at `seq`, as the kill tests' child writes
    /// it and the parent checks every acknowledged record against it.
    package static func plainTitle(_ seq: UInt64) -> String {
        "seq \(seq) " + String(repeating: "ø", count: Int(seq % 61))
    }

    /// The record at `seq` in the mixed kill test, by actor `child`: every
    /// fifth one is a frame carrier holding `frame` (a valid frame of the log),
    /// the others add a label with the plain title.
    package static func mixedEntry(_ seq: UInt64, frame: [UInt8]?) -> LogEntry {
        guard let frame, isCarrier(seq) else {
            return LogEntry(.added(id: LabelID(), title: plainTitle(seq), isEnabled: true, index: 0), actor: "child")
        }
        return frameCarrier(tag: "seq \(seq) ", frame: frame, length: 200 + Int(seq % 7) * 900, actor: "child")
    }

    /// Whether the mixed kill test's record at `seq` is a frame carrier (when a frame could be built).
    package static func isCarrier(_ seq: UInt64) -> Bool { seq % 5 == 2 }

    /// A label id whose 16 bytes are printable ASCII, distinct for each `n` below 10^16.
    package static func asciiID(_ n: Int) -> LabelID {
        var digits = Array(String(n).utf8)
        digits = [UInt8](repeating: UInt8(ascii: "0"), count: max(0, 16 - digits.count)) + digits
        let b = digits.suffix(16).map { $0 + 0x11 }  // "0"..."9" → "A"..."J"
        return LabelID(bytes: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }
}
