import EventLog
import Foundation
import LabelProjection

/// The long history of the `state-at-*` and `cli-*` workloads: one log of
/// `eventCount` events of the stream (at most ~100,000 live labels: the
/// stream's `liveLimit`), written directly with the library (no JSON, no
/// syncs but one), with its history files — the history index (`LOG.index`)
/// and the checkpoints (`LOG.checkpoints`) — written by
/// `LabelStore.updateHistoryFiles()`. Built once, untimed, by the first
/// workload that needs it; the store stays open (for `state(atSeq:)`) and
/// everything is removed when the last of its `users` finishes.
final class HistoryFixture {
    /// Live labels the history keeps at most (about), as issue 13's history.
    static let liveLimit = 100_000

    let eventCount: Int
    private let seed: UInt64
    /// The workloads that have yet to finish with it (set once the run's selection is known).
    var users: Int
    private(set) var directory: String?
    private(set) var store: LabelStore?
    /// Records between checkpoints (read from the checkpoint file's header).
    private(set) var interval = 0
    /// How many checkpoints the file holds.
    private(set) var checkpointCount = 0
    /// How many of them are full images (the others are deltas).
    private(set) var fullCheckpoints = 0
    /// The label of the record at the middle of the history.
    private(set) var label = LabelID()
    /// The timestamp of the record at the middle of the history.
    private(set) var middleTime: Int64 = 0
    /// Labels live at the end.
    private(set) var liveLabels = 0
    /// Labels removed by the end (the list keeps every id it has seen).
    private(set) var removedLabels = 0
    /// The checkpoint file's size in bytes.
    private(set) var checkpointBytes = 0
    /// The log's size in bytes.
    private(set) var logBytes = 0

    /// A fixture of `eventCount` events of the stream for `seed`, shared by `users` workloads.
    init(eventCount: Int, seed: UInt64, users: Int) {
        self.eventCount = eventCount
        self.seed = seed
        self.users = users
    }

    var logPath: String { "\(directory ?? "")/\(Fixtures.logName)" }
    /// The history files a scan peer moves away.
    var historyFiles: [String] { [HistoryIndexFile.path(for: logPath), HistoryIndexFile.deltaPath(for: logPath), logPath + ".checkpoints"] }

    /// `1m`, `200k`, `10m`: the size in workload ids.
    static func sizeName(_ count: Int) -> String {
        count % 1_000_000 == 0 ? "\(count / 1_000_000)m" : "\(count / 1_000)k"
    }

    /// Writes the log and its history files and opens the store, the first time.
    func acquire(_ context: BenchContext) throws {
        guard directory == nil else { return }
        let directory = try context.scratch.freshDirectory("history-\(Self.sizeName(eventCount))")
        self.directory = directory
        context.progress("    writing a \(eventCount.grouped)-event history, its history index and checkpoints (untimed)…")
        try Fixtures.writeLog(count: eventCount, stream: EventStream(seed: seed, liveLimit: Self.liveLimit), path: logPath)
        let store = try LabelStore.open(path: logPath, options: Self.storeOptions)
        self.store = store
        try store.updateHistoryFiles()
        liveLabels = store.snapshot.count
        removedLabels = store.knownIDs.count - liveLabels
        checkpointBytes = Int(ScratchSpace.fileSize(logPath + ".checkpoints"))
        logBytes = Int(ScratchSpace.fileSize(logPath))
        (interval, checkpointCount, fullCheckpoints) = try Self.checkpointHeader(path: logPath + ".checkpoints")
        let reader = try LogReader(path: logPath)
        let middle = try reader.record(atSeq: UInt64(eventCount / 2), using: nil)
        label = middle?.event.labelID ?? LabelID()
        middleTime = middle?.timestamp.millisecondsSince1970 ?? 0
        ScratchSpace.flushFileSystems()
    }

    /// The interval and the number of checkpoints of a checkpoint file, format 5
    /// (docs/SNAPSHOTS.md: `u64` interval at byte 32 of the 56-byte header; then
    /// blocks, each behind a 40-byte entry whose magic is `CKPT` for a checkpoint
    /// — full image or delta — or `RMVD` for a removal block and whose `u64`
    /// length at byte 16 gives the bytes that follow it), and how many of the
    /// checkpoints are full images. Only the header and the entries are read.
    static func checkpointHeader(path: String) throws -> (interval: Int, count: Int, full: Int) {
        guard let file = FileHandle(forReadingAtPath: path) else { throw BenchError("\(path): cannot be opened") }
        defer { try? file.close() }
        func int(_ bytes: [UInt8], _ at: Int, _ count: Int) -> Int { (0..<count).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
        let header = [UInt8](try file.read(upToCount: 56) ?? Data())
        guard header.count == 56, header.prefix(8) == ArraySlice("LABELCKP".utf8), int(header, 8, 2) == 5 else {
            throw BenchError("\(path): not a checkpoint file of format 5")
        }
        var count = 0
        var full = 0
        var offset: UInt64 = 56
        while true {
            try file.seek(toOffset: offset)
            let entry = [UInt8](try file.read(upToCount: 40) ?? Data())
            let magic = entry.prefix(4)
            guard entry.count == 40, magic == ArraySlice("CKPT".utf8) || magic == ArraySlice("RMVD".utf8) else { break }
            if magic == ArraySlice("CKPT".utf8) {
                count += 1
                if int(entry, 4, 4) & 1 == 0 { full += 1 }
            }
            offset += 40 + UInt64(int(entry, 16, 8))
        }
        return (int(header, 32, 8), count, full)
    }

    /// How the fixture's stores open the log: no automatic snapshot, no update of the history files.
    static let storeOptions = LabelStore.Options(durability: .noSync, snapshots: .manual)

    /// Runs `body` with a store that has just opened the log from a snapshot
    /// at its end (written the first time, left for the next call): its
    /// writer has read no record before the snapshot. The fixture's own
    /// store is closed meanwhile (one writer per log) and opened again
    /// afterwards (from the snapshot, until ``dropSnapshots()``).
    func withStoreJustOpened<T>(_ body: (LabelStore) throws -> T) throws -> T {
        store?.close()
        store = nil
        defer { store = try? LabelStore.open(path: logPath, options: Self.storeOptions) }
        if !hasSnapshot {
            let writing = try LabelStore.open(path: logPath, options: Self.storeOptions)
            defer { writing.close() }
            _ = try writing.writeSnapshot()
            hasSnapshot = true
        }
        let opened = try LabelStore.open(path: logPath, options: Self.storeOptions)
        defer { opened.close() }
        return try body(opened)
    }

    /// Whether ``withStoreJustOpened(_:)`` wrote its snapshot. Every store
    /// opened after it resumes there; ``dropSnapshots()`` removes it.
    private(set) var hasSnapshot = false

    /// Removes the snapshots ``withStoreJustOpened(_:)`` wrote, and opens the
    /// fixture's store again from seq 1 (the other workloads' conditions).
    func dropSnapshots() throws {
        guard hasSnapshot, let directory else { return }
        store?.close()
        store = nil
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) where name.hasPrefix(Fixtures.logName + ".snapshot") {
            try FileManager.default.removeItem(atPath: directory + "/" + name)
        }
        hasSnapshot = false
        store = try LabelStore.open(path: logPath, options: Self.storeOptions)
    }

    /// Moves the history files away while `body` runs (a scan peer), then back.
    func withoutHistoryFiles<T>(_ body: () throws -> T) throws -> T {
        let files = historyFiles
        for file in files { guard rename(file, file + ".away") == 0 else { throw BenchError("cannot move \(file) away") } }
        defer { for file in files { rename(file + ".away", file) } }
        return try body()
    }

    /// Called by each user when it finishes; closes the store and removes the files after the last.
    func release(_ context: BenchContext) {
        users -= 1
        guard users == 0, let directory else { return }
        store?.close()
        store = nil
        context.scratch.remove(directory)
        self.directory = nil
    }
}
