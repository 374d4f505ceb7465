import EventLog
import Foundation
import LabelProjection

/// `archive LOG --before SEQ|TIME [--to DIR] [--delete] [--dry-run]`: cuts a
/// log's earliest records off to an archive file (or drops them); the log
/// then starts from a base.
enum Archive: Command {
    static let spec = CommandSpec(
        name: "archive",
        abstract: "Move a log's records before a seq or time to an archive file (or drop them); the log then starts from a base.",
        discussion: """
            The records before the cut move to an archive: a log file of its own (LOG's header and frames up to the \
            cut, byte for byte) named STEM.FIRST-LAST.labellog in --to DIR (default: the log's directory), which every \
            command reads as any log ('verify ARCHIVE' checks it alone). LOG then starts at the cut (format version 3, \
            docs/FORMAT.md): its header holds a base with the list at the cut (every label, removed ones included), \
            the history tree's frontier there, and what was cut (seqs, time range, and the archive's name or that \
            they were dropped). Its first record's chained checksum continues the archive's last, so 'verify LOG' \
            checks the two join, and its head ('head LOG') is the same as before: nothing was changed, removed or \
            inserted. A store opens it from the base; 'show', 'diff' and the other commands answer for every seq \
            from the cut on as before, and for an earlier seq say where it went.

            --before SEQ cuts the records before SEQ; --before TIME those before the first record stamped at or \
            after TIME. --delete drops the records instead of writing an archive (the base records what was \
            dropped). --dry-run says what would be done and changes nothing.

            It needs the log to itself: a store or writer that has it open makes it fail ('in use'), and nothing \
            changes. A crash at any step leaves the old log or the new layout, never a log that does not open (the \
            archive is written and synced before the log is replaced by a rename). The history caches (snapshots, \
            LOG.index, LOG.checkpoints, LOG.tree) describe the old file: they are removed and written again by the \
            next update.

            A server list (URL) is archived the same way: --to FILE or --to DIR (LIST.FIRST-LAST.labellog in it) \
            names the archive written on this machine, or --delete drops the records; one of them is required. \
            The records are read, checked and written to the archive first; then one transaction stores the base in \
            the list's head row and deletes the rows before it, so hosts that open the list later start from the \
            base. Appends go on meanwhile. Needs schema version 4 ('upgrade').

            JSON (--json): {"path", "archive", "dropped", "dryRun", "first", "last", "records", "bytes", "firstTime", \
            "lastTime", "firstSeq", "keptRecords", "keptBytes"} where first…last are the seqs cut and archive is null \
            when they are dropped; for a server list, bytes counts the payloads cut and keptBytes is left out.
            """,
        arguments: [
            .positional("log", "The label log file, or a server list's URL."),
            .option("before", value: "seq|time", "Cut the records before this seq, or before the first stamped at or after this time."),
            .option("to", value: "dir", "The directory of the archive file (default: the log's); for a server list, a file or directory."),
            .flag("delete", "Drop the records instead of archiving them."),
            .flag("dry-run", "Say what would be cut, and change nothing."),
            .flag("json", "Print one JSON object instead of text.")
        ],
        examples: [
            "archive labels.labellog --before 120000 --dry-run", "archive labels.labellog --before 2026-01-01 --to archives/",
            "archive labels.labellog --before 30d --delete"
        ])

    /// `archive --json`.
    struct Result: Encodable {
        let path: String
        let archive: String?
        let dropped: Bool
        let dryRun: Bool
        let first: UInt64
        let last: UInt64
        let records: UInt64
        let bytes: Int64
        let firstTime: String
        let lastTime: String
        let firstSeq: UInt64
        let keptRecords: UInt64
        /// The bytes of the frames kept (log files only: a server list's are not counted).
        let keptBytes: Int64?
    }

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let path = try arguments.logPath()
        if case .server = LogLocation.resolve(path) { return try runServer(path, arguments: arguments, console: console) }
        guard FileManager.default.fileExists(atPath: path) else {
            throw Failure("\(path): no such file; check the path ('\(Tool.name) demo' writes an example log)")
        }
        guard let before = arguments.option("before") else { throw UsageError("archive needs --before SEQ or --before TIME") }
        if arguments.flag("delete"), arguments.option("to") != nil {
            throw UsageError("--to names where an archive goes: it cannot go with --delete")
        }
        let header = try LogReader(path: path).header
        let reader = try LogReader(path: path)
        let lastCut = try lastCutSeq(before: before, arguments: arguments, path: path, firstSeq: header.firstSeq) { try reader.next() }
        let archive =
            arguments.flag("delete") ? nil : archivePath(for: path, directory: arguments.option("to"), cut: header.firstSeq...lastCut)
        if let directory = arguments.option("to") {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw Failure("\(directory): no such directory (--to names the directory the archive goes to)")
            }
        }
        let dryRun = arguments.flag("dry-run")
        // The cut plans itself (reading and hashing the records it cuts): a dry run only plans.
        let report = dryRun ? try LogCut.plan(logPath: path, through: lastCut) : try cut(path, through: lastCut, archive: archive)
        let result = Result(
            path: path, archive: archive, dropped: archive == nil, dryRun: dryRun, first: report.cut.lowerBound,
            last: report.cut.upperBound,
            records: report.cut.upperBound - report.cut.lowerBound + 1, bytes: report.cutBytes,
            firstTime: report.timeRange.lowerBound.iso8601, lastTime: report.timeRange.upperBound.iso8601, firstSeq: report.firstSeq,
            keptRecords: report.keptRecords, keptBytes: report.keptBytes)
        if !dryRun { HistoryCaches.keep(path, console: console, occasion: .write) }
        return try Archive.report(result, arguments: arguments, console: console)
    }

    /// Prints what was (or would be) cut.
    static func report(_ result: Result, arguments: ParsedArguments, console: Console) throws -> Int32 {
        let path = result.path
        let archive = result.archive
        let dryRun = result.dryRun
        if arguments.flag("json") {
            console.line(try JSONLines().line(result))
            return ExitStatus.success
        }
        let what =
            "seqs \(result.first)…\(result.last) (\(result.records) record\(result.records == 1 ? "" : "s"), \(result.bytes) bytes, stamped \(result.firstTime) to \(result.lastTime))"
        let verb = dryRun ? (archive == nil ? "would drop" : "would archive") : (archive == nil ? "dropped" : "archived")
        let whereTo = archive.map { " to \($0)" } ?? ""
        let bytes = result.keptBytes.map { ", \($0) bytes" } ?? ""
        let rest =
            "\(path) \(dryRun ? "would start" : "now starts") at seq \(result.firstSeq) (\(result.keptRecords) record\(result.keptRecords == 1 ? "" : "s")\(bytes))"
        console.line(Escape.text("\(verb) \(what)\(whereTo); \(rest)"))
        if dryRun { console.line("(dry run: nothing was changed)") }
        return ExitStatus.success
    }

    /// The last seq to cut for `--before`: a seq, or a time (`next` reads the records from the log's first, for a time).
    static func lastCutSeq(
        before: String, arguments: ParsedArguments, path: String, firstSeq: UInt64, next: () throws -> EventRecord?
    ) throws -> UInt64 {
        if let seq = UInt64(before) {
            guard seq > firstSeq else {
                throw Failure("\(path): nothing is before seq \(seq): the log starts at seq \(firstSeq)")
            }
            return seq - 1
        }
        guard let time = try TimeArgument.option("before", of: arguments) else {
            throw UsageError("archive needs --before SEQ or --before TIME")
        }
        // The records before the first one stamped at or after the time.
        var last = firstSeq - 1
        while let record = try next(), record.timestamp < time { last = record.seq }
        guard last >= firstSeq else {
            throw Failure("\(path): no record is stamped before \(time.iso8601) (the first is seq \(firstSeq)): nothing to archive")
        }
        return last
    }

    /// STEM.FIRST-LAST.labellog in `directory` (default: the log's), as a store's retention names it.
    static func archivePath(for path: String, directory: String?, cut: ClosedRange<UInt64>) -> String {
        LabelStore.archivePath(forLog: path, directory: directory, cut: cut)
    }

    /// Cuts through `lastCut`, with progress and the errors in words.
    private static func cut(_ path: String, through lastCut: UInt64, archive: String?) throws -> LogCut.Report {
        do {
            return try LabelStore.cutHistory(path: path, through: lastCut, archiveTo: archive)
        } catch {
            if case .storage(let cause) = error.code {
                if cause.code == .logInUse {
                    if Mirror.isMirror(path) { throw cause }  // a synced log: its own message names the outbox
                    throw Failure("\(path): the log is in use by a writer (a store or another command): close it, then archive")
                }
                if cause.code == .fileExists, let archive {
                    throw Failure("\(archive): an archive is already there; choose another --to or remove it")
                }
            }
            throw error
        }
    }
}
