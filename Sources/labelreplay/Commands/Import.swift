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

            --resume makes the import idempotent: the longest run of records at the start of the input that the log \
            already ends with is skipped, compared by content (kind, id, fields, actor, note, and time when the line \
            has one; never by seq), and only the rest is appended. Rerunning an import that was interrupted, or \
            importing a growing export again, then appends nothing twice.

            Ctrl-C before the records are committed leaves the log as it was (a log this import created is removed \
            again) and says so; after the commit it says how many records were committed and at which seqs. Either \
            way the exit status is 130.
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

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let log = try arguments.logPath()
        let source = arguments.optionalPositional("file") ?? "-"
        let name = source == "-" ? "standard input" : source
        Platform.deferInterrupts()
        // The log first, so that a log that cannot be written fails before a long input is read.
        let store = try Writing.open(log, create: true, console: console)
        defer { store.close() }
        let created = store.createdLog
        let before = store.lastSeq
        let records: [EventRecord]
        var skipped = 0
        do {
            let data = try read(source)
            try Platform.checkInterrupt()
            let progress = Progress("importing \(name)", total: Int64(data.count), console: console)
            defer { progress.finish() }
            var (entries, lines) = try decode(data, from: name, progress: progress)
            if arguments.flag("resume") {
                progress.message("comparing with the records at the end of \(log)")
                skipped = try alreadyPresent(entries, in: log, lastSeq: before)
                entries.removeFirst(skipped)
                lines.removeFirst(skipped)
            }
            guard !entries.isEmpty else {
                if created { Writing.discardNewLog(store, path: log) }
                progress.finish()
                let why =
                    skipped > 0
                    ? "all \(count(skipped)) of \(name) are already at the end of \(log) (seq \(before - UInt64(skipped) + 1)…\(before))"
                    : "\(name) holds no records"
                console.line(Escape.text("nothing to import: " + why))
                return ExitStatus.success
            }
            TestHooks.pause(at: "import-before-commit", console: console)
            try Platform.checkInterrupt()  // the last point where stopping leaves the log as it was
            progress.message("checking and appending \(count(entries.count))")
            records = try append(entries, lines: lines, from: name, to: store)
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
        TestHooks.pause(at: "import-after-commit", console: console)
        let range = Self.range(records.map(\.seq))
        let skippedText = skipped > 0 ? " (skipped the first \(count(skipped)), already in the log)" : ""
        console.line(Escape.text("imported \(count(records.count)) into \(log) as \(range)\(skippedText)"))
        if let signal = Platform.pendingInterrupt {
            console.error(
                "\(log): interrupted after the import was committed: \(count(records.count)) were committed as \(range); running the same import again would append them again, unless with --resume"
            )
            return Interrupted(signal: signal).status
        }
        return ExitStatus.success
    }

    /// Appends `entries` in one atomic write; a refusal names the input line.
    private static func append(_ entries: [LogEntry], lines: [Int], from name: String, to store: LabelStore) throws -> [EventRecord] {
        do {
            return try store.append(entries: entries)
        } catch {
            let index = error.batchIndex ?? 0
            var reason = ErrorText.describe(error)
            if case .inconsistentEvent(let refusal) = error.code { reason = "the record does not apply to the log: " + refusal.message }
            throw Failure("\(name) line \(lines[index]): \(reason); nothing was imported")
        }
    }

    /// `1 record`, `7 records`.
    static func count(_ count: Int) -> String { "\(count) record\(count == 1 ? "" : "s")" }

    /// `seq 4` or `seq 4…9` for consecutive seqs.
    static func range(_ seqs: [UInt64]) -> String {
        guard let first = seqs.first, let last = seqs.last else { return "no seq" }
        return first == last ? "seq \(first)" : "seq \(first)…\(last)"
    }
}
