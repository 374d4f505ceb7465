import EventLog
import Foundation
import LabelProjection

/// `log LOG`: the events, one per line, optionally filtered, optionally following new ones.
enum Log: Command {
    static let spec = CommandSpec(
        name: "log",
        abstract: "List the events: seq, time, actor, kind, label, old → new.",
        discussion: """
            Filters combine: an event is listed when it passes every filter given. A filter given more than once \
            accepts any of its values: --label (events naming the label, and reorders of a list holding it), --kind \
            (kinds may also be separated by commas: added, renamed, toggled, removed, moved, reordered, rejected), \
            --actor (--no-actor: events recorded without one). --since/--until keep the events stamped in a time \
            window (both ends included); a time without a zone is local time, as in git, and 15m, 2h, 3d mean that \
            long ago.

            Where to start: --from SEQ jumps to that seq (the records before it are skipped without being folded); \
            --from end starts after the last record; -n/--last N prints only the last N events that pass the \
            filters. --to SEQ stops after that seq.

            --follow keeps printing events that another process appends, until interrupted (Ctrl-C). Alone it starts \
            at the end, like tail -f; with -n N it first prints the last N events, with --from where that says. It \
            reads without locking, so it works beside a writer. It notices the file being replaced (another file \
            moved to the path): if the new file holds the same history it goes on from the next seq, saying so on \
            standard error; otherwise, and when the log is cut or rewritten under it (records already printed are \
            gone), it says so and exits 1.

            Text output has fixed column widths, so every line, including those --follow prints later, lines up \
            with the header (--no-header leaves the header out). When nothing matches, '(no matching events)' goes \
            to standard error, so standard output stays empty. On a terminal the output goes through a pager \
            ($PAGER, default 'less -FRX'; --no-pager to avoid it) and is coloured (see --color).

            JSON (--json): one object per line, exactly the records' JSON form (the same as 'export'): seq, time, kind, \
            id, actor, note, and the kind's fields.

            With --label, --actor, --no-actor, --since or --until, a log with a usable history index (LOG.index, \
            'labelreplay index') is read through it: only the records that can match are read, with the same \
            output. Records it skips are not checked ('help index' says what is); 'verify' reads every record.
            """,
        arguments: [
            .positional("log", "The label log file."),
            .option("label", value: "id", repeating: true, "Only events about this label (id or unique prefix; removed labels too)."),
            .option("kind", value: "kind", repeating: true, "Only events of this kind (commas allowed)."),
            .option("actor", value: "name", repeating: true, "Only events by this actor."),
            .flag("no-actor", "Only events recorded without an actor (with --actor: those as well)."),
            .option("since", value: "time", "Only events stamped at or after this time (local time if no zone is given)."),
            .option("until", value: "time", "Only events stamped at or before this time."),
            .option("from", value: "seq", "Start at this seq, or 'end' (after the last record)."),
            .option("to", value: "seq", "Stop after this seq."),
            .option("last", short: "n", value: "count", "Print only the last <count> matching events."),
            .flag("json", "Print JSON Lines instead of text."),
            .flag("follow", "Keep printing new events until interrupted (alone: from the end)."),
            .flag("no-header", "Leave out the header line."),
            Style.option,
            .flag("no-pager", "Do not send the output through a pager, even on a terminal.")
        ],
        examples: [
            "log labels.labellog", "log labels.labellog --kind rejected", "log labels.labellog -n 20",
            "log labels.labellog --actor setup --actor row-ui --since 2026-11-30", "log labels.labellog --label 3f2a --json",
            "log labels.labellog --follow --actor row-ui"
        ])

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let path = try arguments.logPath()
        let start = try LogStart.parse(arguments)
        let last = try arguments.number("last", what: "a number of events (a whole number ≥ 0)").map { Int(min($0, 1 << 40)) }
        let follow = arguments.flag("follow")
        // An index narrows a read that ends (not --follow) and filters by label, actor or time.
        // (Not when the read reaches a based log's archive: the index holds the log's own records only.)
        let fromSeq: UInt64? = if case .seq(let seq) = start { seq } else { nil }
        let archived = fromSeq.map { Replay.reachesArchive(path, from: $0) } ?? false
        let history =
            !follow && !archived && EventSelection.narrows(arguments) ? try IndexedHistory.open(path, console: console) : nil
        let selection = try EventSelection.parse(arguments, path: path, console: console, history: history)
        if case .seq(let from) = start, let to = selection.to, to < from { throw UsageError("'--from' (\(from)) is after '--to' (\(to))") }
        let style = try Style.resolve(arguments, console: console)

        // Through the history indexes: the log's, or, for a read that reaches archives, each archive's
        // (written at the cut) and the log's.
        let indexed =
            if let history {
                try indexedSelection(history, selection: selection, start: start, last: last, console: console)
            } else if archived && !follow && EventSelection.narrows(arguments) {
                try indexedSelectionAcrossArchives(
                    path, selection: selection, start: start,
                    explicit: arguments.option("from") != nil
                        || selection.to.map { to in (try? LogReader(path: path).header.firstSeq).map { to < $0 } ?? true } == true,
                    last: last, console: console)
            } else if !follow && !archived {
                // A server list: through the server's label index.
                try serverSelection(path, selection: selection, start: start, last: last)
            } else {
                nil as (records: [EventRecord], titles: IndexedHistory.Titles)?
            }
        if let (records, titles) = indexed {
            let size =
                archived || LogLocation.isServer(path)
                ? try Replay(path: path, strict: false, folds: false, console: console).columnsSize()
                : try LogReader(path: path).columnsBytes()
            let printer = LogPrinter(
                console: console, json: arguments.flag("json"), header: !arguments.flag("no-header"),
                columns: EventColumns(fileSize: size, style: style))
            let pager = Pager.start(console: console, disabled: arguments.flag("no-pager"))
            defer { pager?.finish(console: console) }
            for record in records where !console.outputFailed {
                try printer.print(record) { titles.title(of: $0, atOrBefore: record.seq) }
            }
            if !printer.printedAny && !arguments.flag("json") { console.errorLine("(no matching events)") }
            return ExitStatus.success
        }

        let replay = try Replay(path: path, strict: false, folds: false, console: console, progress: "reading \(path)")
        let printer = LogPrinter(
            console: console, json: arguments.flag("json"), header: !arguments.flag("no-header"),
            columns: EventColumns(fileSize: try replay.columnsSize(), style: style))
        let pager = follow ? nil : Pager.start(console: console, disabled: arguments.flag("no-pager"))
        defer { pager?.finish(console: console) }

        // With -n, records cut off only matter when the log's own do not give the last N.
        var archivedWarning: String?
        switch start {
        case .end: try replay.skip(to: .max)
        case .seq(let seq):
            let firstSeq = replay.header.firstSeq
            archivedWarning = try replay.includeArchived(
                from: seq, explicit: arguments.option("from") != nil || selection.to.map { $0 < firstSeq } == true,
                deferWarning: last != nil)
            try replay.skip(to: seq)
        }
        var kept = LastEvents(capacity: last)
        /// Reads what is there now; returns false once past `--to`.
        func drain() throws -> Bool {
            while let step = try replay.next() {
                let record = step.record
                if let to = selection.to, record.seq > to { return false }
                guard selection.selects(record) else { continue }
                if kept.isKeeping {
                    kept.append(record, titles: replay.titles)
                } else {
                    try printer.print(record) { replay.titles[$0] }
                }
            }
            return true
        }

        let more = try drain()
        replay.stopProgress()
        if let archivedWarning, !kept.isFull { console.warning(archivedWarning) }
        for (record, titles) in kept.take() { try printer.print(record) { titles[$0] } }
        guard follow else {
            replay.warnAboutTail()
            if !printer.printedAny && !arguments.flag("json") { console.errorLine("(no matching events)") }
            return ExitStatus.success
        }
        printer.printHeader()
        console.flush()
        Platform.allowInterrupts()
        if more, let storage = replay.serverStorage {
            try Self.followServer(storage, after: replay, console: console, drain: drain)
        } else if more {
            try Self.followLive(replay, path: path, console: console, drain: drain)
        }
        return ExitStatus.success
    }
}
