import EventLog
import Foundation
import LabelProjection

/// `import LOG [FILE|-]`: appends JSON Lines records, all or nothing.
enum Import: Command {
    static let spec = CommandSpec(
        name: "import",
        abstract: "Append JSON Lines records (the output of 'export') to a log, all or nothing.",
        discussion: """
            Each non-empty line is one record in the JSON form of 'export' and 'log --json'; its seq is ignored (the \
            log numbers records itself) and its time, actor and note are kept (a missing time means now). The log is \
            created if missing. Every event is checked against the state the ones before it leave, exactly as the \
            store checks raw entries; one bad line (malformed JSON, an unknown kind, an event that contradicts the \
            state) imports nothing and names its line number.

            An export that starts with a base line ({"base":{…}}, from a based log whose archive was not there) \
            creates the log as a based log of that history: its log id, first seq, chained checksum and base, as \
            'copy' does. An existing log must be a based log of the same history from the same seq (an import then \
            appends, or with --resume skips what it already ends with); any other is refused and left as it was.

            --resume makes the import idempotent: the longest run of records at the start of the input that the log \
            already ends with is skipped, compared by content (kind, id, fields, actor, note, and time when the line \
            has one; never by seq), and only the rest is appended. Rerunning an import that was interrupted, or \
            importing a growing export again, then appends nothing twice.

            The input is streamed: read a block at a time and checked and written 1,024 records at a time, so memory \
            stays bounded whatever its size. The records are written as one staged append that only the end commits: \
            until then no reader sees any of them, and a kill or a crash leaves none (the next writer's open cuts them, \
            saving them to LOG.salvaged-<ms>); once committed, all of them appear at once.

            Ctrl-C before the records are committed leaves the log as it was (a log this import created is removed \
            again) and says so; after the commit it says how many records were committed and at which seqs. Either \
            way the exit status is 130.

            Into a server list the records go in all-or-nothing batches of 10,000 (a server list has no staged \
            append): a bad line, a server out of reach or Ctrl-C stops the import between batches; the batches \
            before it stay committed and are named with their seqs, none of the batch in flight is, and the same \
            import with --resume appends the rest and nothing twice.
            """,
        arguments: [
            .positional("log", "The label log file (created if missing)."),
            .positional("file", optional: true, "The JSON Lines file; '-' or nothing reads standard input."),
            .flag("resume", "Skip the records at the start of the input that the log already ends with (matched by content).")
        ],
        examples: [
            "import copy.labellog labels.jsonl", "export a.labellog | labelreplay import b.labellog",
            "import copy.labellog labels.jsonl --resume"
        ])

    /// The most entries handed to the store at a time.
    static let chunkSize = 1024

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let log = try arguments.logPath()
        // Once a store was opened, the caches are kept after it and the input are released (their memory with them).
        var storeOpened = false
        defer { if storeOpened { HistoryCaches.keep(log, console: console, occasion: .write) } }
        return try importRecords(arguments, into: log, storeOpened: &storeOpened, console: console)
    }

    /// Imports the records and closes the store (`storeOpened` says whether
    /// it was opened); ``run(_:console:)`` keeps the caches after (a new
    /// log's are written as the records are, and are then up to date).
    private static func importRecords(_ arguments: ParsedArguments, into log: String, storeOpened: inout Bool, console: Console) throws
        -> Int32
    {
        let source = arguments.optionalPositional("file") ?? "-"
        Platform.deferInterrupts()
        // The input is opened and its first line read (an export's base line, if any, says how to create the
        // log), then the log, so that a log that cannot be written fails before the rest of the input is read.
        let opened = try ImportInput(source)
        let basedOn: LogHeader?
        do {
            basedOn = try opened.takeBaseLine()
        } catch let interrupted as Interrupted {
            console.error("\(log): interrupted before the import was committed: nothing was imported; the log was not opened")
            return interrupted.status
        }
        let (store, created) =
            try basedOn.map { try openBased(log, header: $0, console: console) }
            ?? {
                let store = try Writing.open(log, create: true, console: console)
                return (store, store.createdLog)
            }()
        storeOpened = true
        defer { Writing.close(store, path: log) }
        // A new log's history caches are built from what the import writes and folds, not by reading it all again
        // after; not for an input too small to make a log worth them (a log's record is smaller than its JSON line).
        let worthCaches = opened.size.map { $0 >= HistoryCaches.worthwhileBytes } ?? true
        let caches = basedOn == nil && store.lastSeq == 0 && worthCaches ? stagedCaches(store, log: log) : nil
        defer { caches?.abandon() }
        let before = store.lastSeq
        let name = opened.name
        var matcher: ResumeMatcher?
        let seqs: ClosedRange<UInt64>?
        do {
            try Platform.checkInterrupt()
            let progress = Progress("importing \(name)", total: opened.size, console: console)
            defer { progress.finish() }
            let lineCount = arguments.flag("resume") ? try ImportInput.lineCount(source) : nil
            // The input is read and decoded on a second thread, while this one checks and writes.
            let pipeline = ImportPipeline(opened, chunkSize: chunkSize, depth: 8)
            pipeline.start()
            defer { pipeline.stop() }
            var next: () throws -> [LogEntry]? = {
                guard let chunk = try pipeline.next() else { return nil }
                progress.update(chunk.consumed, detail: "line \(chunk.lines)", often: false)
                return chunk.entries
            }
            if arguments.flag("resume") {
                let resume = ResumeMatcher(
                    storage: store.storage, lastSeq: before, firstSeq: (store.storage.base?.lastCutSeq ?? 0) + 1, inputCount: lineCount,
                    source: next)
                matcher = resume
                next = resume.next
            }
            if LogLocation.isServer(log) {
                seqs = try appendInBatches(next, to: store, log: log, input: opened, pipeline: pipeline, matcher: matcher) {
                    TestHooks.pause(at: "import-before-commit", console: console)
                    try Platform.checkInterrupt()  // the last point where stopping leaves the list as it was
                }
            } else {
                seqs = try appendStreamed(
                    next, to: store, log: log, input: opened, pipeline: pipeline, matcher: matcher, caches: caches
                ) {
                    TestHooks.pause(at: "import-before-commit", console: console)
                    try Platform.checkInterrupt()  // the last point where stopping leaves the log as it was
                    progress.message("committing")
                }
            }
        } catch let partial as PartialImport {
            return try report(partial, log: log, console: console)
        } catch {
            if created { Writing.discardNewLog(store, path: log) }
            if let interrupted = error as? Interrupted {
                console.error(
                    created
                        ? "\(log): interrupted before the import was committed: nothing was imported, and the new log was removed"
                        : "\(log): interrupted before the import was committed: nothing was imported; the log still ends at seq \(before)"
                )
                return interrupted.status
            }
            throw error
        }
        let skipped = matcher?.skipped ?? 0
        guard let seqs else {
            if let basedOn, skipped == 0 {
                // The base alone is a history: the based log stays.
                let done =
                    created
                    ? "created \(log), a based log starting at seq \(basedOn.firstSeq) from the base in \(name)" : "nothing to import"
                console.line(Escape.text("\(done); \(name) holds no records after its base"))
                return ExitStatus.success
            }
            if created { Writing.discardNewLog(store, path: log) }
            let why =
                skipped > 0
                ? "all \(count(skipped)) of \(name) are already at the end of \(log) (seq \(before - UInt64(skipped) + 1)…\(before))"
                : "\(name) holds no records"
            console.line(Escape.text("nothing to import: " + why))
            return ExitStatus.success
        }
        if let caches { keep(caches, log: log, console: console) }
        TestHooks.pause(at: "import-after-commit", console: console)
        let imported = Int(seqs.count)
        let range = Self.range(seqs)
        let skippedText = skipped > 0 ? " (skipped the first \(count(skipped)), already in the log)" : ""
        console.line(Escape.text("imported \(count(imported)) into \(log) as \(range)\(skippedText)"))
        if let signal = Platform.pendingInterrupt {
            console.error(
                "\(log): interrupted after the import was committed: \(count(imported)) were committed as \(range); running the same import again would append them again, unless with --resume"
            )
            return Interrupted(signal: signal).status
        }
        return ExitStatus.success
    }

    /// Appends what `next` yields as one streamed, all-or-nothing write; a refusal names the input line.
    private static func appendStreamed(
        _ next: () throws -> [LogEntry]?, to store: LabelStore, log: String, input: ImportInput, pipeline: ImportPipeline,
        matcher: ResumeMatcher?, caches: StagedHistoryCaches?,
        beforeCommit: () throws -> Void
    ) throws -> ClosedRange<UInt64>? {
        do {
            return try store.appendStreamed(next, building: caches, beforeCommit: beforeCommit)
        } catch let error as StoreError {
            var reason = ErrorText.describe(error)
            if case .inconsistentEvent(let refusal) = error.code { reason = "the record does not apply to the log: " + refusal.message }
            guard let index = error.batchIndex else { throw Failure("\(log): \(reason); nothing was imported") }
            // The entries appended are the input's from the first one not skipped on.
            pipeline.stop()  // the reading thread is done with the input's line numbers
            let line = input.lines.line(ofEntry: (matcher?.skipped ?? 0) + index)
            throw Failure("\(input.name) line \(line): \(reason); nothing was imported")
        } catch let failure as Failure {
            // A line that does not decode (from the reading thread): the staged append is abandoned.
            throw Failure(failure.message + "; nothing was imported", details: failure.details)
        }
    }

    /// The history caches of the new (or empty) file log `store` writes, built
    /// as the records are written; `nil` for a server list or a based log, or when a temporary
    /// file cannot be created (the caches are then built after the import,
    /// as for any log).
    private static func stagedCaches(_ store: LabelStore, log: String) -> StagedHistoryCaches? {
        guard !LogLocation.isServer(log), let writer = store.storage as? LogWriter, writer.header.firstSeq == 1 else { return nil }
        return try? StagedHistoryCaches(logPath: log, header: writer.header, interval: TestHooks.checkpointInterval)
    }

    /// Puts the caches built during the import in place once the records are
    /// committed, when the log is large enough to keep history caches for
    /// (``HistoryCaches/worthwhileBytes``); else they are dropped, as no
    /// caches are kept for a small log. A failure is a warning: the caches
    /// are then built from the log (``HistoryCaches/keep(_:console:occasion:)``).
    private static func keep(_ caches: StagedHistoryCaches, log: String, console: Console) {
        guard let size = HistoryCaches.fileSize(log), size >= HistoryCaches.worthwhileBytes else { return caches.abandon() }
        do {
            _ = try caches.finish()
            let names = "\(HistoryIndexFile.path(for: log)), \(CheckpointFile.path(for: log)) and \(HistoryTreeFile.path(for: log))"
            console.errorLine(Escape.text("note: wrote \(names) as the records were written; later commands read through them"))
        } catch {
            console.warning(
                "\(log): the history caches built during the import could not be written: \(ErrorText.describe(error)); they are built from the log instead"
            )
        }
    }

    /// `1 record`, `7 records`.
    static func count(_ count: Int) -> String { "\(count) record\(count == 1 ? "" : "s")" }

    /// `seq 4` or `seq 4…9`.
    static func range(_ seqs: ClosedRange<UInt64>) -> String {
        seqs.lowerBound == seqs.upperBound ? "seq \(seqs.lowerBound)" : "seq \(seqs.lowerBound)…\(seqs.upperBound)"
    }
}
