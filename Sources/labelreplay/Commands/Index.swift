import EventLog
import Foundation
import LabelProjection

/// `index LOG`: builds or brings up to date the history index, so `log --label/--actor/--since/--until` read
/// only the records that can match.
enum Index: Command {
    static let spec = CommandSpec(
        name: "index",
        abstract:
            "Build or update LOG.index and LOG.checkpoints, so audit questions (log --label, --actor, --since) skip the records that cannot match and show --at, diff and trace fold only from the nearest checkpoint.",
        discussion: """
            The history index (docs/INDEX.md) lists, for every label and actor, the seqs of its records, and for \
            every 1,024 records where they start in the file and the range of their timestamps. 'log' uses it when \
            it is there and belongs to the log (same log id; the last record it covers is in the log at the \
            position and with the chained checksum it recorded), reads only the records it names plus those \
            appended after it, and prints exactly what reading the whole log would print. A missing, damaged, \
            foreign or stale index is never trusted: 'log' says so on standard error and reads the whole log.

            This command reads the log without locking it (it works beside a writer) and extends a usable index \
            with the records appended since it was written: it appends one segment of them to LOG.index-delta, so \
            an update costs those records and not the whole history. When the segments hold more than a quarter \
            of the base's records, or there would be more than 16 (or with --merge), it merges them instead: a \
            new LOG.index, written atomically. Without a usable index (or with --rebuild) it builds LOG.index \
            from seq 1. Updates of one log run one at a time (a lock on LOG.index-delta).

            It also writes LOG.checkpoints (docs/SNAPSHOTS.md): the list after every 65,536th record, so 'show \
            --at', 'diff' and 'trace' fold only the records after the nearest checkpoint at or before the seq they \
            need. Each checkpoint is used only once the log holds its record at the recorded position with the \
            chained checksum; one that does not check out (or a damaged or foreign file) is reported and the list \
            folded from an earlier one or from seq 1, with the same answer. A usable file is extended in place \
            from its newest checkpoint that checks out (the new ones are appended under the file's lock, so this \
            command and a store keeping the file wait for each other); --rebuild rebuilds it too.

            What a read through them checks: every record it reads or folds (framing, checksum, chain, seq and \
            content, as any read), the record it starts from, and every earlier record written in the same \
            unsynced write as that one, so it never answers past a torn tail at which a read from seq 1 stops. \
            It does not read the records it skips: damage in one of those (a flipped bit in a record synced long \
            before) is not seen by it, while a read from seq 1 fails there with exit status 1. 'verify' reads \
            every record; run it to check the whole log.

            And LOG.tree (docs/AUDIT.md): every record's leaf hash in the history tree, so that 'verify --head', \
            when the log does not extend a head, names the first record that differs. It is used only when the \
            head authenticates it (the root of its leaves is that head); it is extended with the records \
            appended since, or written again from seq 1 when it no longer matches the log.

            JSON (--json): {"path", "covered", "added", "rebuilt", "change", "segments", "deltaPath", "deltaBytes", \
            "labels", "actors", "bytes", "previous", \
            "checkpoints", "tree": {"path", "leaves", "added", "rebuilt"}} where previous says what was there before ("missing", "usable" or the reason it was \
            ignored), change is "unchanged", "appended-segment", "merged" or "rebuilt", and checkpoints is {"path", "seqs", "interval", "bytes", "extendedFrom", "previous"}.
            """,
        arguments: [
            .positional("log", "The label log file."),
            .flag("rebuild", "Build the index from seq 1 even if the one there is usable."),
            .flag("merge", "Merge the index's segments (LOG.index-delta) into a new LOG.index now."),
            .flag("json", "Print one JSON object instead of text.")
        ],
        examples: ["index labels.labellog", "index labels.labellog --rebuild"])

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let path = try arguments.filePath(
            why: "the history index and checkpoints are files beside a log file; a server list is read by seq from the server")
        guard FileManager.default.fileExists(atPath: path) else {
            throw Failure("\(path): no such file; check the path ('\(Tool.name) demo' writes an example log)")
        }
        let written = try HistoryCaches.update(path, rebuild: arguments.flag("rebuild"), merge: arguments.flag("merge"), console: console)
        let (update, checkpoints, tree) = (written.index, written.checkpoints, written.tree)
        let indexPath = HistoryIndexFile.path(for: path)
        let bytes = (try? FileManager.default.attributesOfItem(atPath: indexPath)[.size] as? Int) ?? 0
        let previous: String
        switch update.previous {
        case .missing: previous = "missing"
        case .usable: previous = "usable"
        case .ignored(let problem): previous = problem.reason
        }
        let rebuilt = update.change == .rebuilt
        let deltaPath = HistoryIndexFile.deltaPath(for: path)
        let deltaBytes = (try? FileManager.default.attributesOfItem(atPath: deltaPath)[.size] as? Int) ?? 0
        let labels = (try? update.index.labelCount) ?? 0
        let records = "\(update.added) record\(update.added == 1 ? "" : "s")"
        // How the files changed: its JSON name, and in words.
        let (change, how): (String, String)
        switch update.change {
        case .unchanged: (change, how) = ("unchanged", "already up to date")
        case .appendedSegment: (change, how) = ("appended-segment", "extended by \(records): a segment appended to \(deltaPath)")
        case .merged: (change, how) = ("merged", "extended by \(records), merged with its segments into a new base")
        case .rebuilt: (change, how) = ("rebuilt", "built from seq \(update.index.firstSeq)")
        }
        if arguments.flag("json") {
            console.line(
                try JSONLines().line(
                    IndexResult(
                        path: indexPath, covered: update.index.coveredSeq, added: update.added, rebuilt: rebuilt, change: change,
                        segments: update.index.segmentCount, deltaPath: deltaPath, deltaBytes: deltaBytes,
                        labels: labels, actors: update.index.actors.count, bytes: bytes, previous: previous,
                        checkpoints: CheckpointsResult(path, checkpoints),
                        tree: .init(path: HistoryTreeFile.path(for: path), leaves: tree.leaves, added: tree.added, rebuilt: tree.rebuilt))))
            return ExitStatus.success
        }
        let segments = update.index.segmentCount
        let parts = segments == 0 ? "" : " and \(segments) segment\(segments == 1 ? "" : "s") of \(deltaBytes) bytes"
        console.line(
            Escape.text(
                (update.change == .unchanged ? "" : "wrote ")
                    + "\(indexPath): records \(update.index.firstSeq) to \(update.index.coveredSeq), \(labels) labels, "
                    + "\(update.index.actors.count) actors, \(bytes) bytes\(parts) (\(how))"))
        if case .ignored(let problem) = update.previous {
            console.line(Escape.text("  the index there before was not used: \(problem.reason)"))
        }
        // A based log's are built from its first seq, on its base's list.
        let firstSeq = (try? LogReader(path: path).header.firstSeq) ?? 1
        let how2 = checkpoints.extendedFrom.map { "extended from seq \($0)" } ?? "built from seq \(firstSeq)"
        console.line(
            Escape.text(
                "wrote \(CheckpointFile.path(for: path)): \(checkpoints.seqs.count) checkpoint\(checkpoints.seqs.count == 1 ? "" : "s")"
                    + " (every \(TestHooks.checkpointInterval) records), \(checkpoints.byteCount) bytes (\(how2))"))
        if case .ignored(let problem) = checkpoints.previous {
            console.line(Escape.text("  the checkpoints there before were not used: \(problem.reason)"))
        }
        for problem in checkpoints.dropped {
            console.line(Escape.text("  a checkpoint there before was dropped: \(problem.reason)"))
        }
        console.line(
            Escape.text(
                "wrote \(HistoryTreeFile.path(for: path)): \(tree.leaves) leaf hash\(tree.leaves == 1 ? "" : "es") ("
                    + (tree.rebuilt ? "built from seq 1" : "extended by \(tree.added)") + ")"))
        return ExitStatus.success
    }
}

/// `index --json`'s `checkpoints`.
struct CheckpointsResult: Encodable {
    let path: String
    let seqs: [UInt64]
    let interval: UInt64
    let bytes: Int
    let extendedFrom: UInt64?
    let previous: String

    init(_ logPath: String, _ update: CheckpointFile.Update) {
        path = CheckpointFile.path(for: logPath)
        seqs = update.seqs
        interval = TestHooks.checkpointInterval
        bytes = update.byteCount
        extendedFrom = update.extendedFrom
        switch update.previous {
        case .missing: previous = "missing"
        case .usable: previous = update.dropped.first?.reason ?? "usable"
        case .ignored(let problem): previous = problem.reason
        }
    }
}

/// `index --json`.
struct IndexResult: Encodable {
    let path: String
    let covered: UInt64
    let added: UInt64
    let rebuilt: Bool
    let change: String
    let segments: Int
    let deltaPath: String
    let deltaBytes: Int
    let labels: Int
    let actors: Int
    let bytes: Int
    let previous: String
    let checkpoints: CheckpointsResult
    let tree: TreeResult

    /// `index --json`'s `tree`.
    struct TreeResult: Encodable {
        let path: String
        let leaves: UInt64
        let added: UInt64
        let rebuilt: Bool
    }
}
