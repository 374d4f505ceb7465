import Foundation
import Testing
@testable import EventLog

/// A fresh temporary directory, removed when the value is released.
final class TemporaryDirectory {
    let path: String

    init() {
        let base = FileManager.default.temporaryDirectory.path
        path = "\(base)/eventlog-tests-\(UUID().uuidString)"
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String = "test.labellog") -> String { "\(path)/\(name)" }
}

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

/// A small deterministic random generator (SplitMix64), so failures reproduce from the seed.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
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
        LogEntry(.rejected(id: nil, command: "reverse", reason: "nothing")),
    ]
}

/// Writes `entries` to a new log at `path` (no sync) and returns the records.
@discardableResult
func writeLog(_ path: String, _ entries: [LogEntry] = sampleEntries(), batch: Bool = false) throws -> [EventRecord] {
    let clock = TestClock()
    let writer = try LogWriter.open(path: path, options: .init(durability: .noSync, createIfMissing: true, clock: { clock.tick() }))
    defer { writer.close() }
    if batch { return try writer.append(entries) }
    return try entries.map { try writer.append($0) }
}

func readBytes(_ path: String) -> [UInt8] { Array(FileManager.default.contents(atPath: path)!) }

func writeBytes(_ path: String, _ bytes: [UInt8]) {
    _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
}

/// The byte offset at which each record's frame starts, by walking the frames.
func frameOffsets(_ bytes: [UInt8]) -> [Int] {
    var offsets: [Int] = []
    var position = LogFormat.headerLength
    while position + 8 <= bytes.count {
        let length = Int(bytes[position]) | Int(bytes[position + 1]) << 8 | Int(bytes[position + 2]) << 16 | Int(bytes[position + 3]) << 24
        guard position + 8 + length <= bytes.count else { break }
        offsets.append(position)
        position += 8 + length
    }
    return offsets
}

/// Rewrites a file in place (same inode), as another process's writes would appear to an open reader.
func overwriteInPlace(_ path: String, _ bytes: [UInt8]) throws {
    let handle = try #require(FileHandle(forWritingAtPath: path))
    defer { try? handle.close() }
    try handle.truncate(atOffset: 0)
    try handle.write(contentsOf: Data(bytes))
}
