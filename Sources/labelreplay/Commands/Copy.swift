import EventLog
import Foundation

/// `copy SRC DST [--follow]`: copies a history between any two locations (log
/// files, server lists), record for record, resumable, all or nothing per batch.
enum Copy: Command {
    static let spec = CommandSpec(
        name: "copy",
        abstract: "Copy a history between two locations (log files or server lists), keeping every record as it is.",
        discussion: """
            SRC and DST are each a log file or a list on a PostgreSQL server (postgres://…?list=NAME): file → server \
            migrates a log, server → file backs a list up or lets you read it offline, and file → file or server → \
            server copy as well. Each record keeps its seq, time, actor and note exactly. The records are written in \
            batches of \(batchSize), each one append that is all or nothing and that expects DST to end where the copy \
            left it, so a second writer of DST makes the copy stop rather than interleave.

            DST is created if missing (a file, or the list and its schema on a server). If it already holds records, \
            they must be SRC's first records, compared record by record (seq, time, actor, note and event): the copy \
            then continues after them, so an interrupted copy is resumed by running it again. A DST whose records \
            differ is refused, naming the first seq that differs; a DST holding more records than SRC is refused. A \
            copy that fails (a damaged SRC, a full disk) into a log file it created removes that file, so no empty or \
            partial log is left behind; an interrupted one keeps what it copied.

            A based SRC (its records before a cut archived or dropped by 'archive') is copied into a based DST of the \
            same history: DST is created with SRC's id, base and chained checksum at the cut, so its head is SRC's and \
            SRC's archive joins it (named by its file name when DST is a log file in SRC's directory, else by its \
            absolute path); an existing DST must be a based log or list of that history from the same seq.

            --follow keeps copying as SRC grows (a server list wakes the copy on its notifications; a file is polled), \
            until interrupted: Ctrl-C ends it after the batch being written, with exit status 0 and the summary. \
            Without --follow, Ctrl-C also stops after the current batch (exit status 130); what was copied stays, and \
            running the copy again resumes it.

            Progress goes to standard error on a terminal. JSON (--json): {"source", "destination", "created", \
            "skipped" (the records DST already held), "copied", "from", "to" (the seqs copied; absent when none), \
            "lastSeq" (where DST ends)}.
            """,
        arguments: [
            .positional("source", "The history to copy: a log file, or a postgres:// URL naming a list."),
            .positional("destination", "Where to copy it: a log file or a postgres:// URL (created if missing)."),
            .flag("follow", "Keep copying the records appended to the source until interrupted."),
            .flag("json", "Print one JSON object instead of text.")
        ],
        examples: [
            "copy labels.labellog 'postgres://app@db.example.com/labels?list=inbox'",
            "copy 'postgres://app@db.example.com/labels?list=inbox' backup.labellog",
            "copy 'postgres://app@db.example.com/labels?list=inbox' mirror.labellog --follow"
        ])

    /// The most records one append writes.
    static let batchSize = 1024

    /// `copy --json`.
    struct Summary: Encodable {
        let source: String
        let destination: String
        let created: Bool
        let skipped: UInt64
        let copied: UInt64
        let from: UInt64?
        let to: UInt64?
        let lastSeq: UInt64
    }

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let sourceText = try arguments.logPath("source")
        let destinationText = try arguments.logPath("destination")
        let follow = arguments.flag("follow")
        Platform.deferInterrupts()
        // A based source (its first records cut off) is copied to a based log of the same history.
        let basedHeader = try basedHeader(of: sourceText, destination: destinationText)
        let source = try Source(sourceText)
        let destination = try Destination.open(destinationText, console: console, basedOn: basedHeader)
        defer {
            destination.close()
            HistoryCaches.keep(destinationText, console: console, occasion: .write)
        }
        var caughtUp = false
        do {
            return try copy(
                from: source, to: destination, follow: follow, json: arguments.flag("json"), console: console, caughtUp: &caughtUp)
        } catch {
            // A failed copy leaves the destination as it was: a file it created is removed, unless the
            // copy had caught up with the source (`--follow`): the file is then a whole copy, and what
            // it mirrored since stays (running it again resumes).
            if destination.created && !caughtUp { destination.discard() }
            throw error
        }
    }

    /// Copies the records of `source` that `destination` lacks (and, with
    /// `follow`, those appended later) and reports; returns the exit status.
    private static func copy(
        from source: Source, to destination: Destination, follow: Bool, json: Bool, console: Console, caughtUp: inout Bool
    ) throws -> Int32 {
        let held = try checkPrefix(source: source, destination: destination)
        let progress = Progress("copying to \(destination.display)", total: nil, console: console)
        defer { progress.finish() }
        var last = held
        var firstCopied: UInt64?
        while Platform.pendingInterrupt == nil, !console.outputFailed {
            let records = try source.batch(batchSize)
            if records.isEmpty {
                guard follow else { break }
                caughtUp = true
                try source.waitForAppends(after: last, timeout: .milliseconds(500))
                continue
            }
            try append(records, after: last, to: destination, from: source)
            firstCopied = firstCopied ?? records[0].seq
            last = records[records.count - 1].seq
            let figures = source.progress(lastCopied: last)
            progress.update(figures.done, detail: "seq \(last)", often: false)
        }
        progress.finish()
        let summary = Summary(
            source: source.display, destination: destination.display, created: destination.created, skipped: held,
            copied: last - held, from: firstCopied, to: firstCopied.map { _ in last }, lastSeq: last)
        report(summary, json: json, console: console)
        if let signal = Platform.pendingInterrupt, !follow {
            console.error(
                "\(destination.display): interrupted: the copy stopped after seq \(last), between batches; running it again resumes it")
            return Interrupted(signal: signal).status
        }
        return ExitStatus.success
    }

    /// Checks that the destination's records are the source's first ones and
    /// returns how many it holds (the seq after which the copy continues).
    static func checkPrefix(source: Source, destination: Destination) throws -> UInt64 {
        let held = try destination.storage.refreshLastSeq()
        var seq: UInt64 = 1
        while seq <= held {
            let theirs = try destination.storage.read(from: seq, maxCount: batchSize)
            guard !theirs.isEmpty else { break }
            let ours = try source.batch(theirs.count)
            for (index, existing) in theirs.enumerated() {
                guard index < ours.count else {
                    let end = ours.last?.seq ?? (seq - 1)
                    throw Failure(
                        "\(destination.display): the destination is ahead of the source: it holds seq 1…\(held), but \(source.display) ends at seq \(end); refusing to copy (copy into a new destination, or remove the extra records)"
                    )
                }
                if let field = difference(ours[index], existing) {
                    throw Failure(
                        "\(destination.display): the destination's seq \(existing.seq) differs from the source's (\(field)): it holds another history than \(source.display); refusing to copy (copy into a new destination)"
                    )
                }
            }
            seq = theirs[theirs.count - 1].seq + 1
        }
        return held
    }

    /// The first field in which two records differ (`nil` if they are the same record).
    static func difference(_ a: EventRecord, _ b: EventRecord) -> String? {
        if a.seq != b.seq { return "seq \(a.seq) and \(b.seq)" }
        if a.timestamp != b.timestamp { return "time \(a.timestamp.iso8601) and \(b.timestamp.iso8601)" }
        if a.actor != b.actor { return "actor \(a.actor.map { "'\($0)'" } ?? "none") and \(b.actor.map { "'\($0)'" } ?? "none")" }
        if a.note != b.note { return "the note" }
        if a.event != b.event { return "event \(a.event.kind.rawValue) and \(b.event.kind.rawValue)" }
        return nil
    }

    /// Appends `records` after seq `last`, as they are, and checks they got their seqs.
    private static func append(_ records: [EventRecord], after last: UInt64, to destination: Destination, from source: Source) throws {
        guard records[0].seq == last + 1 else {
            throw Failure("\(source.display): after seq \(last) the source's next record is seq \(records[0].seq); refusing to copy a gap")
        }
        let entries = records.map { LogEntry($0.event, timestamp: $0.timestamp, actor: $0.actor, note: $0.note) }
        let storage = destination.storage
        let outcome = Result { () throws(EventLogError) in try storage.append(entries, expectedLastSeq: last) }
        if case .failure(let error) = outcome, error.code == .seqConflict {
            throw Failure(
                "\(destination.display): another writer appended to the destination during the copy (it no longer ends at seq \(last)); nothing of seq \(last + 1)…\(records[records.count - 1].seq) was written; stopped"
            )
        }
        if case .failure(let error) = outcome, error.code == .invalidEvent, error.message.contains("U+0000") {
            throw Failure(
                "\(source.display): \(error.message). Nothing of seq \(last + 1)…\(records[records.count - 1].seq) was written. "
                    + "To move this history: '\(Tool.name) export' it, replace each \\u0000 in the JSON (with \\ufffd, say), and "
                    + "'\(Tool.name) import' that into a new log; it is then another history, whose head differs")
        }
        let appended = try outcome.get()
        for (record, stored) in zip(records, appended) where difference(record, stored) != nil || appended.count != records.count {
            throw Failure(
                "\(destination.display): the destination stored seq \(record.seq) as seq \(stored.seq) or otherwise differently; stopped")
        }
    }

    private static func report(_ summary: Summary, json: Bool, console: Console) {
        if json {
            if let line = try? JSONLines().line(summary) { console.line(line) }
            return
        }
        let already = summary.skipped > 0 ? " (it already held seq 1…\(summary.skipped))" : ""
        if let from = summary.from, let to = summary.to {
            let range = from == to ? "seq \(from)" : "seq \(from)…\(to)"
            console.line(
                Escape.text(
                    "copied \(Import.count(Int(summary.copied))) (\(range)) from \(summary.source) to \(summary.destination)\(already)"))
        } else {
            console.line(Escape.text("nothing to copy: \(summary.destination) already holds every record of \(summary.source)\(already)"))
        }
    }
}
