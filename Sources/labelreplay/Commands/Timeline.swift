import EventLog
import Foundation
import LabelProjection

/// `timeline LOG`: writes one self-contained HTML page to explore the log in
/// a browser — the events, the list at any seq, who was told, diffs, a label's
/// history, charts — with no network access and no third-party code.
///
/// Who was told comes from the store: the log is replayed into a real
/// ``LabelStore`` with `trace`'s subscriptions (``NotifyingReplay``), and what
/// each subscription received is embedded per event. The list at any seq is
/// folded in the page from checkpoints the real fold wrote (``TimelineData``).
enum Timeline: Command {
    /// It makes and drops one list after another: freed lists' memory is reused, not faulted in anew.
    static var largeBlocks: Platform.LargeBlockUse { .keptForReuse }

    static let spec = CommandSpec(
        name: "timeline",
        abstract: "Write a self-contained HTML page to explore the log in a browser.",
        discussion: """
            The page shows the events (filterable by kind, actor and label; rejected edits with their reason), the \
            list and the filtered view of --query/--enabled-only at the current seq (rows the event changed \
            highlighted, a removed label shown as gone), who was told about the current event (as 'trace' says: the \
            store's own notifications, recorded while replaying into a real store), the diff between two seqs (as \
            'diff'), a label's history, and charts of events per kind over time and of the list's length and \
            enabled count over seq. A scrubber, the arrow keys or a click on an event set the current seq; the \
            selection is kept in the URL's fragment (#seq=17&label=...), so a link names a moment.

            The page is one file: inline style and script, no network access (its Content-Security-Policy forbids \
            any), no third-party code; it opens from a file: URL. Titles, actors and notes are shown as text only, \
            never as markup, with control and bidi characters escaped.

            The replay starts at seq 1 (the state needs every event); --from/--to choose the events the page holds. \
            Without -o the page is written to the log's file name with .timeline.html, in the current directory \
            (an existing page is replaced); --output=- writes it to standard output.
            """,
        arguments: [
            .positional("log", "The label log file."),
            .option("output", short: "o", value: "path", "Write the page here ('-': standard output)."),
            .option("from", value: "seq", "The first event the page holds (default: 1)."),
            .option("to", value: "seq", "The last event the page holds (default: the log's last)."),
            .option("query", value: "text", "Show and trace a filtered view whose titles contain <text>."),
            .flag("enabled-only", "Show and trace a view of enabled labels only (with or without --query)."),
            .option("label", value: "id", "Open the page with this label selected (id or unique prefix).")
        ],
        examples: [
            "timeline labels.labellog", "timeline labels.labellog -o bug-1234.html --query tile",
            "timeline labels.labellog --from 1000 --to 2000 --label 3f2a"
        ])

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let path = try arguments.logPath()
        let from = try arguments.seq("from") ?? 1
        let to = try arguments.seq("to")
        if from == 0 { throw UsageError("the value '0' is invalid for '--from <seq>': expected a seq of 1 or more") }
        if let to, to < from { throw UsageError("'--from' (\(from)) is after '--to' (\(to))") }
        let query: ViewQuery? =
            arguments.option("query") != nil || arguments.flag("enabled-only")
            ? ViewQuery(arguments.option("query") ?? "", enabledOnly: arguments.flag("enabled-only")) : nil
        let output = arguments.option("output") ?? defaultOutput(for: path)
        if output.isEmpty { throw UsageError("the value '' is invalid for '--output <path>': expected a file path, or '-'") }
        // An id prefix resolves through the history index, when there is one, instead of a pass over the log.
        let history = try LabelFilter.namesPrefix(arguments) ? try IndexedHistory.open(path, console: console) : nil
        let selected = try LabelFilter.resolve(arguments, path: path, console: console, history: history)?.first

        let replay = try NotifyingReplay(
            path: path, query: query, archived: (from, arguments.option("from") != nil || Replay.reachesArchive(path, from: to ?? .max)),
            console: console, progress: "reading \(path)")
        var data = TimelineData()
        // A based log begins at its base's list (the seq before its first record).
        var began = from <= replay.list.lastSeq + 1
        if began { data.begin(with: replay.list) }
        while let step = try replay.nextStep() {
            let seq = step.record.seq
            if seq < from {
                if seq == from - 1 {
                    data.begin(with: replay.list)
                    began = true
                }
                continue
            }
            data.append(step, list: replay.list)
            if let to, seq >= to { break }
        }
        if !began || (from > 1 && data.eventCount == 0) {
            throw Failure("\(path): there is no seq \(from): the log ends at seq \(replay.list.lastSeq)")
        }
        replay.replay.warnAboutTail()
        if let selected, !data.labels.contains(selected) {
            let last = data.firstSeq + UInt64(data.eventCount) - 1
            console.warning("label \(selected) does not appear in seq \(data.firstSeq)–\(last); the page opens with none selected")
        }

        let page = try TimelinePage.html(
            data.document(path: path, header: replay.replay.header, query: query, selected: selected))
        if output == "-" {
            console.line(String(decoding: page.dropLast(), as: UTF8.self))  // the page ends with its own newline
            return ExitStatus.success
        }
        do {
            switch Platform.outputTarget(output) {
            case .directory:
                throw Failure("\(output): is a directory; give the page's file name (e.g. \(output)/\(defaultOutput(for: path)))")
            case .special:
                // A device or a pipe (`-o /dev/null`): written into, never renamed over.
                guard let handle = FileHandle(forWritingAtPath: output) else {
                    throw Failure("\(output): cannot write the page: cannot open it for writing")
                }
                defer { try? handle.close() }
                try handle.write(contentsOf: Data(page))
            case .replaceable:
                // Written aside and renamed over the file (through a symbolic link, over the file it names).
                try Data(page).write(to: URL(fileURLWithPath: output).resolvingSymlinksInPath(), options: .atomic)
            }
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure("\(output): cannot write the page: \(ErrorText.describe(error, path: output))")
        }
        let held =
            data.eventCount == 0
            ? "no events (the log is empty), \(page.count) bytes"
            : "\(data.eventCount) event\(data.eventCount == 1 ? "" : "s") (seq \(data.firstSeq)–\(data.firstSeq + UInt64(data.eventCount) - 1)), "
                + "\(page.count) bytes (\(String(format: "%.1f", Double(page.count) / Double(data.eventCount))) per event)"
        console.line(Escape.text("wrote \(output): \(held)"))
        console.line(Escape.text("open it in a browser: \(URL(fileURLWithPath: output).absoluteString)"))
        return ExitStatus.success
    }

    /// `<log's file name without its extension>.timeline.html`, in the current directory.
    static func defaultOutput(for path: String) -> String {
        let name = (path as NSString).lastPathComponent
        let stem = (name as NSString).deletingPathExtension
        return (stem.isEmpty ? name : stem) + ".timeline.html"
    }
}
