import EventLog
import Foundation
import LabelProjection
import LabelStoreTestSupport

/// A fresh temporary directory, removed when released.
final class Scratch: Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("labelreplay-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// The path of `name` inside the directory.
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// The names of the files in the directory, sorted.
    var files: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted() }
}

/// Creates a log at `path` through the store (in this process), with a step
/// clock, and closes it. Each write is synced before it returns, as an app's
/// acknowledged writes are: damage a test puts among them is then damage,
/// not a write a crash could have lost.
func makeLog(at path: String, recordRejections: Bool = false, _ build: (LabelStore) throws -> Void) throws {
    let options = LabelStore.Options(
        durability: .syncEachAppend, createIfMissing: true, recordRejections: recordRejections,
        clock: StepClock().now)
    let store = try LabelStore.open(path: path, options: options)
    defer { store.close() }
    try build(store)
}

/// `seconds` after 2026-01-01T00:00:00Z.
func at(_ seconds: Int64) -> EventTimestamp {
    EventTimestamp(millisecondsSince1970: StepClock.start + seconds * 1000)
}

/// Write options stamping the record at `at(seconds)`.
func stamped(_ seconds: Int64, actor: String? = nil, note: String? = nil) -> WriteOptions {
    WriteOptions(actor: actor, note: note, timestamp: at(seconds))
}

/// Scenario B's start: Grid (on) id 1, Tile (off) id 2, Ring (on) id 3, added at seqs 1, 2, 3
/// by `setup`, stamped 00:00:01, 00:00:02 and 00:00:03.
func makeGridTileRing(at path: String) throws {
    try makeLog(at: path) { store in
        try store.add("Grid", isEnabled: true, id: testID(1), options: stamped(1, actor: "setup"))
        try store.add("Tile", isEnabled: false, id: testID(2), options: stamped(2, actor: "setup"))
        try store.add("Ring", isEnabled: true, id: testID(3), options: stamped(3, actor: "setup"))
    }
}

/// ``makeGridTileRing(at:)``, then a rename of label 1 from a title it does
/// not have, written past the store (seq 4): a log sound by its checksums
/// whose event contradicts the state before it.
func makeContradictingLog(at path: String) throws {
    try makeGridTileRing(at: path)
    let writer = try LogWriter.open(path: path)
    defer { writer.close() }
    try writer.append([LogEntry(.renamed(id: testID(1), oldTitle: "Not Grid", newTitle: "X"))])
}

/// The rows of `show --json` as (title, isEnabled) pairs.
func rows(_ show: [String: Any]) -> [String] {
    (show["labels"] as? [[String: Any]] ?? []).map { row in
        "\(row["title"] as? String ?? "?") (\((row["isEnabled"] as? Bool) == true ? "on" : "off"))"
    }
}

/// The bytes of a file.
func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

/// Overwrites a file with `bytes`.
func write(_ bytes: [UInt8], to path: String) throws { try Data(bytes).write(to: URL(fileURLWithPath: path)) }
