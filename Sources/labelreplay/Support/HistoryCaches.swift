import EventLog
import Foundation
import LabelProjection

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeping `LOG.index`, `LOG.checkpoints` and `LOG.tree` current without
/// anyone running `index` (docs/CLI.md, "History caches"): write commands
/// (`import`, `copy` into a file, the edits) extend them after they wrote,
/// and read commands that use them (`log` with filters, `show --at`, `diff`,
/// `trace`) extend or build them first, when the log is large and they miss
/// much of it, and the log's directory may be written; else the read answers
/// by scanning and says once how to make it fast. They stay caches: a failure
/// to write them is a warning, and nothing reads them over the log.
enum HistoryCaches {
    /// A log smaller than this reads in milliseconds: no caches are made for it
    /// (`LABELREPLAY_CACHE_BYTES` sets it, for tests).
    static var worthwhileBytes: Int64 { threshold(default: 8 << 20) }
    /// The caches are brought up to date when they miss at least this many
    /// bytes of the log, half of ``worthwhileBytes`` (a few tens of thousands
    /// of records): a small tail is read after the index at little cost, and
    /// each update appends a segment to the index (16 of them are merged).
    static var behindBytes: Int64 { worthwhileBytes / 2 }

    /// When the caches are kept.
    enum Occasion {
        /// Before a read that uses them.
        case read
        /// After a command wrote the log.
        case write
    }

    /// Brings the caches of the log at `path` up to date if they are worth it
    /// (``worthwhileBytes``) and behind by ``behindBytes`` or more; says so in
    /// one line on standard error, with progress. A log whose directory cannot
    /// be written is read as it is (a read says once how to make it fast).
    /// Returns the reader of the log that checked the caches, for the read to
    /// go on with (it remembers how far it verified the log, so checking a
    /// cache again costs nothing more), or `nil` when none was opened.
    @discardableResult
    static func keep(_ path: String, console: Console, occasion: Occasion) -> LogReader? {
        guard !LogLocation.isServer(path), let size = fileSize(path), size >= worthwhileBytes, let reader = try? LogReader(path: path)
        else { return nil }
        let covered = coveredBytes(reader)
        let missing = size - covered
        guard missing >= behindBytes else { return reader }
        let directory = SystemFile.directoryName(of: path)
        let names = "\(HistoryIndexFile.path(for: path)), \(CheckpointFile.path(for: path)) and \(HistoryTreeFile.path(for: path))"
        guard access(directory, W_OK) == 0 else {
            if occasion == .read {
                console.warning(
                    "\(path): its history caches miss \(megabytes(missing)) of the log and its directory cannot be written: reading the whole log ('\(Tool.name) index' on a writable copy makes such reads fast)"
                )
            }
            return reader
        }
        let why = covered <= Int64(reader.header.length) ? "the log has none yet" : "\(megabytes(missing)) of the log is not covered yet"
        console.errorLine(Escape.text("note: updating \(names) (\(why)); later commands read through them"))
        do {
            _ = try update(path, rebuild: false, console: console)
        } catch {
            console.warning("\(path): the history caches could not be updated: \(ErrorText.describe(error)); the log is read instead")
        }
        return reader
    }

    /// What ``update(_:rebuild:console:)`` wrote.
    struct Written {
        let index: HistoryIndexFile.Update
        let checkpoints: CheckpointFile.Update
        let tree: HistoryTreeFile.Update
    }

    /// Extends (or, with `rebuild`, rebuilds) the three caches of the log at `path`, with progress;
    /// `merge` merges the index's segments into a new base.
    ///
    /// The three are independent passes over the log, each writing its own
    /// file under its own lock: with two cores the checkpoints are written on
    /// a second thread while this one writes the index and then the tree (the
    /// progress line follows the slower), and this one waits for it before
    /// returning. Each cache is tried whatever became of the others; the first
    /// failure (the index's, the checkpoints', the tree's) is thrown once all are done.
    static func update(_ path: String, rebuild: Bool, merge: Bool = false, console: Console) throws -> Written {
        let checkpointsAside = ProcessInfo.processInfo.activeProcessorCount > 1
        // The checkpoints' seq while they are written aside, for the progress line.
        let asideSeq = Locked<UInt64>(0)
        let aside =
            checkpointsAside
            ? Aside("labelreplay checkpoints") {
                try writeCheckpoints(path, rebuild: rebuild) { seq in asideSeq.withLock { $0 = seq } }
            } : nil
        func slower(_ seq: UInt64) -> UInt64 { checkpointsAside ? min(seq, asideSeq.withLock { $0 }) : seq }
        // Each cache is tried whatever became of the others; the first failure is thrown at the end.
        let index = Result { () throws -> HistoryIndexFile.Update in
            let progress = Progress("indexing \(path)", total: nil, unit: "records", console: console)
            defer { progress.finish() }
            return try HistoryIndexFile.update(logPath: path, rebuild: rebuild, merge: merge) { seq in progress.update(Int64(slower(seq))) }
        }
        var tree = checkpointsAside ? Result { try hashTree(path, console: console, slower: slower) } : nil
        let checkpoints: Result<CheckpointFile.Update, any Error>
        if let aside {
            // Waits, drawing the checkpoints' progress while they are still being written.
            let progress = Progress("writing checkpoints of \(path)", total: nil, unit: "records", console: console)
            while !aside.wait(upTo: .milliseconds(100)) { progress.update(Int64(asideSeq.withLock { $0 })) }
            progress.finish()
            checkpoints = aside.result()
        } else {
            let progress = Progress("writing checkpoints of \(path)", total: nil, unit: "records", console: console)
            checkpoints = Result { try writeCheckpoints(path, rebuild: rebuild) { seq in progress.update(Int64(seq)) } }
            progress.finish()
            tree = Result { try hashTree(path, console: console, slower: { $0 }) }
        }
        if let failure = try? checkpoints.get().foldFailure {
            console.warning("\(path): \(failure); no checkpoint is written after it (run '\(Tool.name) verify')")
        }
        return Written(index: try index.get(), checkpoints: try checkpoints.get(), tree: try tree!.get())
    }

    /// Extends or builds `LOG.checkpoints` at the command's interval, telling `progress` each seq folded.
    private static func writeCheckpoints(_ path: String, rebuild: Bool, progress: @escaping (UInt64) -> Void) throws
        -> CheckpointFile.Update
    {
        try CheckpointFile.update(logPath: path, rebuild: rebuild, interval: TestHooks.checkpointInterval, progress: progress)
    }

    /// Extends or builds `LOG.tree`, with progress (`slower` gives the seq to show for its own).
    private static func hashTree(_ path: String, console: Console, slower: @escaping (UInt64) -> UInt64) throws -> HistoryTreeFile.Update {
        let progress = Progress("hashing \(path)", total: nil, unit: "records", console: console)
        defer { progress.finish() }
        return try HistoryTreeFile.update(logPath: path) { seq in progress.update(Int64(slower(seq))) }
    }

    /// The bytes of the log `reader` reads that the index covers (the header's when there is no usable index).
    private static func coveredBytes(_ reader: LogReader) -> Int64 {
        if case .usable(let index) = HistoryIndexFile.load(for: reader), let covered = index.covered {
            return covered.offset + covered.length
        }
        return Int64(reader.header.length)
    }

    /// The size of the file at `path`, or `nil` when it cannot be read.
    static func fileSize(_ path: String) -> Int64? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value
    }

    /// `14.2 MB` (decimal megabytes, one decimal).
    static func megabytes(_ bytes: Int64) -> String {
        String(format: "%.1f MB", Double(bytes) / 1_000_000)
    }

    private static func threshold(default value: Int64) -> Int64 {
        ProcessInfo.processInfo.environment["LABELREPLAY_CACHE_BYTES"].flatMap { Int64($0) } ?? value
    }
}
