import Foundation
import Testing

@testable import EventLog

/// A deterministic clock for tests: starts at a fixed time, +1 ms per call.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var now: Int64
    init(start: Int64 = 1_764_460_800_000) { now = start }
    func tick() -> EventTimestamp {
        lock.lock()
        defer { lock.unlock() }
        now += 1
        return EventTimestamp(millisecondsSince1970: now)
    }
}

/// Fixed ids, so encoded bytes are reproducible.
func fixedID(_ n: UInt8) -> LabelID {
    LabelID(bytes: (n, 1, 2, 3, 4, 5, 0x40, 7, 0x80, 9, 10, 11, 12, 13, 14, n))
}

/// One entry of every kind, with varied titles and envelopes.
func sampleEntries() -> [LogEntry] {
    let a = fixedID(1), b = fixedID(2)
    return [
        LogEntry(.added(id: a, title: "Amber", isEnabled: true, index: 0), actor: "ana", note: "first"),
        LogEntry(.added(id: b, title: "Cobalt ✨ — ĉu?", isEnabled: false, index: 1)),
        LogEntry(.renamed(id: a, oldTitle: "Amber", newTitle: "Copper"), actor: "bo"),
        LogEntry(.toggled(id: a, isEnabled: false), note: "stale row #12"),
        LogEntry(.moved(id: a, from: 0, to: 1)),
        LogEntry(.reordered(order: [a, b])),
        LogEntry(.rejected(id: b, command: "rename to 'X'", reason: "Edit skipped: label was removed.")),
        LogEntry(.removed(id: b, index: 1, title: "Cobalt ✨ — ĉu?", isEnabled: false)),
        LogEntry(.added(id: b, title: "", isEnabled: true, index: 0)),
        LogEntry(.rejected(id: nil, command: "reverse", reason: "nothing"))
    ]
}

/// Writes `entries` to a new log at `path` and returns the records: one
/// append and one sync per entry, so every record is durable before the
/// next is written (as acknowledged appends leave them: each frame after
/// the first says the records before it were durable); or, with `batch`,
/// all in one unsynced append (every frame after the first a continuation),
/// or with `syncEvery`, in appends of that many entries, each synced.
@discardableResult
func writeLog(_ path: String, _ entries: [LogEntry] = sampleEntries(), batch: Bool = false, syncEvery: Int? = nil) throws -> [EventRecord] {
    let clock = TestClock()
    let writer = try LogWriter.open(path: path, options: .init(durability: .noSync, createIfMissing: true, clock: { clock.tick() }))
    defer { writer.close() }
    if batch, let syncEvery {
        return try stride(from: 0, to: entries.count, by: syncEvery).flatMap { start in
            let records = try writer.append(Array(entries[start..<min(entries.count, start + syncEvery)]))
            try writer.sync()
            return records
        }
    }
    if batch { return try writer.append(entries) }
    return try entries.map { entry in
        let record = try writer.append(entry)
        try writer.sync()
        return record
    }
}

func readBytes(_ path: String) -> [UInt8] { Array(FileManager.default.contents(atPath: path)!) }

func writeBytes(_ path: String, _ bytes: [UInt8]) {
    _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
}

/// The byte offset at which each record's frame starts, by walking the frames.
func frameOffsets(_ bytes: [UInt8]) -> [Int] {
    let version = UInt16(bytes[8]) | UInt16(bytes[9]) << 8
    let headerLength = LogFormat.frameHeaderLength(version: version)
    var offsets: [Int] = []
    var position = LogFormat.headerLength
    while position + headerLength <= bytes.count {
        var length = Int(bytes[position]) | Int(bytes[position + 1]) << 8 | Int(bytes[position + 2]) << 16 | Int(bytes[position + 3]) << 24
        if version >= 2 { length &= Int(FrameFormat.lengthBits) }
        guard length > 0, position + headerLength + length <= bytes.count else { break }
        offsets.append(position)
        position += headerLength + length
    }
    return offsets
}

/// The frame format of the log whose bytes are `bytes` (its header's version and id).
func frameFormat(of bytes: [UInt8]) throws -> FrameFormat {
    FrameFormat(header: try LogHeader.decode(Array(bytes[0..<LogFormat.headerLength]), fileSize: Int64(bytes.count), path: "test"))
}

/// The stored checksum of the last whole frame of the log whose bytes are `bytes` (0 if it has none).
func lastFrameChecksum(of bytes: [UInt8]) -> UInt32 {
    guard let last = frameOffsets(bytes).last else { return 0 }
    return UInt32(bytes[last + 4]) | UInt32(bytes[last + 5]) << 8 | UInt32(bytes[last + 6]) << 16 | UInt32(bytes[last + 7]) << 24
}

/// A frame holding `payload` (any bytes) as the log whose bytes are `bytes`
/// would write it next: its format, chained to its last frame.
func nextFrame(payload: [UInt8], after bytes: [UInt8]) throws -> [UInt8] {
    let format = try frameFormat(of: bytes)
    let previous = lastFrameChecksum(of: bytes)
    var frame = [UInt8](repeating: 0, count: format.headerLength) + payload
    frame.withUnsafeMutableBytes { raw in
        _ = Frame.seal(raw.baseAddress!, payloadLength: payload.count, format: format, previous: previous, continues: false)
    }
    return frame
}

/// The frame of `record` as the log whose bytes are `bytes` would write it
/// next: its format, chained to its last frame, not a continuation.
func nextFrame(_ record: EventRecord, after bytes: [UInt8], continues: Bool = false) throws -> [UInt8] {
    let format = try frameFormat(of: bytes)
    let previous = lastFrameChecksum(of: bytes)
    var out = ByteWriter()
    Frame.encode(record, into: &out, format: format, previous: previous, continues: continues)
    return out.bytes
}

/// Rewrites a file in place (same inode), as another process's writes would appear to an open reader.
func overwriteInPlace(_ path: String, _ bytes: [UInt8]) throws {
    let handle = try #require(FileHandle(forWritingAtPath: path))
    defer { try? handle.close() }
    try handle.truncate(atOffset: 0)
    try handle.write(contentsOf: Data(bytes))
}
