import EventLog
import LabelProjection

/// `trace LOG`: replays the log step by step and shows, for each event, which
/// subscribers the store notifies and with what — the stale-row debugger.
///
/// Who hears what is not computed here: the records are appended, in order,
/// to a real ``LabelStore`` over an ``InMemoryEventLog`` with live
/// subscriptions (the list's membership, each label's title and isEnabled,
/// the filtered view, the enabled count), and what those subscriptions
/// receive is printed. The projection's own dispatch decides.
enum Trace: Command {
    /// It makes and drops one list after another: freed lists' memory is reused, not faulted in anew.
    static var largeBlocks: Platform.LargeBlockUse { .keptForReuse }

    static let spec = CommandSpec(
        name: "trace",
        abstract: "Replay step by step, showing which subscribers each event notifies.",
        discussion: """
            For every event: the list's membership subscriber, the title and isEnabled subscribers of each label, the \
            filtered view of --query/--enabled-only (how its rows changed, and the rows after it) and the enabled-count \
            subscriber — notified or not. A row that shows stale data is a row whose subscriber was not told: find the \
            event that changed its label and see who heard it.

            The replay starts at seq 1 (the state needs every event); --from/--to only choose what is printed. --label \
            prints only events that concern that label (its own events, reorders, and view rows of it); repeated, events that concern any of them.

            JSON (--json): one object per event: {"seq", "record" (the record's JSON form), "notified": [...], \
            "notNotified": [...], "count", "enabledCount"}; each notified entry has "dependency" (membership, title, \
            isEnabled, view, enabledCount) and its values: title id, oldTitle, newTitle; isEnabled id, oldIsEnabled, \
            newIsEnabled; view query, changes [{change, id, at | from, to}], rows (ids); enabledCount oldCount, \
            newCount. Absent old/new values mean the label was not live.
            """,
        arguments: [
            .positional("log", "The label log file."),
            .option("query", value: "text", "Trace a filtered view whose titles contain <text>."),
            .flag("enabled-only", "Trace a view of enabled labels only (with or without --query)."),
            .option(
                "label", value: "id", repeating: true,
                "Only print events concerning this label (id or unique prefix; repeat it for any of several)."),
            .option("from", value: "seq", "Print from this seq on."),
            .option("to", value: "seq", "Stop after this seq."),
            .flag("json", "Print one JSON object per event."),
            Style.option,
            .flag("no-pager", "Do not send the output through a pager, even on a terminal.")
        ],
        examples: [
            "trace labels.labellog --query ring", "trace labels.labellog --enabled-only --from 13 --to 16",
            "trace labels.labellog --label 3f2a --json"
        ])

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let path = try arguments.logPath()
        let from = try arguments.seq("from") ?? 1
        let to = try arguments.seq("to")
        if let to, to < from { throw UsageError("'--from' (\(from)) is after '--to' (\(to))") }
        let query: ViewQuery? =
            arguments.option("query") != nil || arguments.flag("enabled-only")
            ? ViewQuery(arguments.option("query") ?? "", enabledOnly: arguments.flag("enabled-only")) : nil
        // The history index resolves id prefixes without a pass over the log (opened once: it also
        // finds the events to trace).
        let prefixHistory: IndexedHistory?? =
            try LabelFilter.namesPrefix(arguments) ? .some(try IndexedHistory.open(path, console: console)) : .none
        let label = try LabelFilter.resolve(arguments, path: path, console: console, history: prefixHistory ?? nil)
        let style = try Style.resolve(arguments, console: console)
        let printer = TracePrinter(console: console, query: query, json: arguments.flag("json"), style: style)
        let pager = Pager.start(console: console, disabled: arguments.flag("no-pager"))
        defer { pager?.finish(console: console) }

        // A read that reaches a based log's archive replays it first, without the log's caches (they hold its own records only).
        let lastCut = Replay.base(of: path)?.lastCutSeq ?? 0
        let archived = from <= lastCut
        let checkpoints = !archived && (from > 1 || label != nil) ? try Checkpoints.open(path, console: console) : nil
        if let label, let checkpoints,
            let printed = try traceThroughCheckpoints(
                path, labels: label, query: query, from: from, to: to, checkpoints: checkpoints,
                history: try prefixHistory ?? IndexedHistory.open(path, console: console), printer: printer, console: console)
        {
            if printed == 0 && !arguments.flag("json") { console.errorLine("(no matching events)") }
            return ExitStatus.success
        }

        // Replay from seq 1, or from the nearest checkpoint before --from.
        let start = from > 1 ? checkpoints?.checkpoint(atOrBefore: from - 1) : nil
        let explicit = arguments.option("from") != nil || to.map { $0 <= lastCut } == true
        let replay = try NotifyingReplay(
            path: path, query: query, labels: label, start: start, through: to, archived: (from, explicit), console: console)
        if let start, let query { printer.resetRows(FilteredView(query: query, list: start.list).labels(in: start.list).map(\.id)) }
        let progress = from > 1 ? Progress("replaying to seq \(from)", total: try replay.replay.fileSize(), console: console) : nil
        var printed = 0
        while let step = try replay.nextStep() {
            progress?.update(step.offset, detail: "seq \(step.record.seq)")
            printer.follow(step.notifications)
            if step.record.seq >= from, label.map({ concerns(step.record, step.notifications, $0) }) ?? true {
                progress?.finish()
                try printer.print(step.change, notifications: step.notifications, list: replay.list) { replay.lastTitles[$0] }
                printed += 1
            }
        }
        progress?.finish()
        replay.replay.warnAboutTail()
        if printed == 0 && !arguments.flag("json") { console.errorLine("(no matching events)") }
        return ExitStatus.success
    }

    /// Whether an event concerns one of `ids`: it is about it, reorders it, or moves its view row.
    static func concerns(_ record: EventRecord, _ notes: [ChangeNotification], _ ids: Set<LabelID>) -> Bool {
        HistoryQuery.event(record.event, concerns: ids) || notes.contains { $0.viewChanges.contains { ids.contains($0.id) } }
    }
}
