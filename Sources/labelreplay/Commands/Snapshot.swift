import EventLog
import LabelProjection

/// `snapshot LOG`: writes a checkpoint of the projection so the next open replays only the tail.
enum Snapshot: Command {
    static let spec = CommandSpec(
        name: "snapshot",
        abstract: "Write a snapshot of the list now, so opening the log replays only the records after it.",
        discussion: """
            Opens the log for writing (taking its lock), folds it, and writes LOG.snapshot-<seq>: a checksummed \
            file holding the list, versions and removed ids at that seq (docs/SNAPSHOTS.md). Stores also write \
            snapshots automatically (every 100,000 records or 64 MiB, and at close after 1,000 new records), keeping \
            the newest two. A damaged, foreign or stale snapshot is never trusted: opening ignores it, says so, and \
            replays the log. The output says how this open used the snapshots already there.
            JSON (--json): {"path", "seq", "bytes", "opened"} where opened is how the store opened (snapshot used, \
            records replayed, snapshots ignored).
            """,
        arguments: [.positional("log", "The label log file."), .flag("json", "Print one JSON object instead of text.")],
        examples: ["snapshot labels.labellog"])

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let path = try arguments.filePath(
            why: "snapshots are files beside a log file; a store over a server list folds its records at open")
        let store = try Writing.open(path, create: false, console: console)
        defer { store.close() }
        let opened = store.snapshotReport.summary
        let info = try store.writeSnapshot()
        if arguments.flag("json") {
            console.line(try JSONLines().line(SnapshotResult(path: info.path, seq: info.seq, bytes: info.byteCount, opened: opened)))
        } else {
            console.line(Escape.text("wrote \(info.path): the list at seq \(info.seq), \(info.byteCount) bytes"))
            console.line(Escape.text("  this open: \(opened)"))
        }
        return ExitStatus.success
    }
}

/// `snapshot --json`.
struct SnapshotResult: Encodable {
    let path: String
    let seq: UInt64
    let bytes: Int
    let opened: String
}
