import EventLog
import Foundation
import LabelProjection

/// `log LOG`: the events, one per line, optionally filtered, optionally following new ones.
enum Log: Command {
    static let spec = CommandSpec(
        name: "log",
        abstract: "List the events: seq, time, actor, kind, label, old → new.",
        discussion: """
            Filters combine: --label (events naming the label, and reorders of a list holding it), --kind (repeat it or \
            separate kinds with commas: added, renamed, toggled, removed, moved, reordered, rejected), --actor, and the \
            seq range --from/--to (inclusive).

            --follow keeps printing events that another process appends, until interrupted (Ctrl-C). It reads without \
            locking, so it works beside a writer.

            JSON (--json): one object per line, exactly the records' JSON form (the same as 'export'): seq, time, kind, \
            id, actor, note, and the kind's fields.
            """,
        arguments: [
            .positional("log", "The label log file."),
            .option("label", value: "id", "Only events about this label (id or unique prefix; removed labels too)."),
            .option("kind", value: "kind", repeating: true, "Only events of this kind (repeatable; commas allowed)."),
            .option("actor", value: "name", "Only events by this actor."),
            .option("from", value: "seq", "Start at this seq."),
            .option("to", value: "seq", "Stop after this seq."),
            .flag("json", "Print JSON Lines instead of text."),
            .flag("follow", "Keep printing new events until interrupted.")
        ],
        examples: [
            "log labels.labellog", "log labels.labellog --kind rejected", "log labels.labellog --label 3f2a --json",
            "log labels.labellog --follow --actor row-ui"
        ])

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let path = arguments.positional("log")
        let kinds = try parseKinds(arguments)
        let from = try arguments.seq("from") ?? 1
        let to = try arguments.seq("to")
        if let to, to < from { throw UsageError("'--from' (\(from)) is after '--to' (\(to))") }
        let actor = arguments.option("actor")
        let json = arguments.flag("json")
        let label = try LabelFilter.resolve(arguments, path: path, console: console)

        let replay = try Replay(path: path, strict: false, console: console)
        let encoder = JSONLines()
        var printedAny = false
        var pending: [[String]] = []  // text rows, or one JSON line each

        func flush() {
            defer { pending.removeAll() }
            if json {
                for line in pending { console.line(line[0]) }
            } else if !pending.isEmpty {
                var table = Table([.right])
                if !printedAny { table.append(EventText.header) }
                for row in pending { table.append(row) }
                console.lines(table.render())
            }
            printedAny = printedAny || !pending.isEmpty
            console.flush()
        }
        /// Reads what is there now; returns false once past `--to`.
        func drain() throws -> Bool {
            while let step = try replay.next() {
                let record = step.record
                if let to, record.seq > to { return false }
                guard record.seq >= from,
                    kinds.isEmpty || kinds.contains(record.event.kind),
                    actor == nil || record.actor == actor,
                    label.map({ LabelFilter.event(record.event, concerns: $0) }) ?? true
                else { continue }
                // Rendered now, so labels are named as they were at this seq.
                pending.append(json ? [try encoder.line(record)] : EventText.row(record) { replay.titles[$0] })
                if pending.count >= 1024 { flush() }
            }
            return true
        }

        var more = try drain()
        flush()
        guard arguments.flag("follow") else {
            replay.warnAboutTail()
            if !printedAny && !json { console.line("(no matching events)") }
            return ExitStatus.success
        }
        Platform.allowInterrupts()
        while more {
            Thread.sleep(forTimeInterval: 0.2)
            more = try drain()
            flush()
            if console.outputFailed { break }
        }
        return ExitStatus.success
    }

    /// The kinds of `--kind`, each repeat possibly holding several separated by commas.
    static func parseKinds(_ arguments: ParsedArguments) throws(UsageError) -> Set<LabelEvent.Kind> {
        var kinds = Set<LabelEvent.Kind>()
        for value in arguments.values("kind") {
            for name in value.split(separator: ",") {
                guard let kind = LabelEvent.Kind(rawValue: name.trimmingCharacters(in: .whitespaces).lowercased()) else {
                    throw arguments.invalid(
                        String(name), for: "kind",
                        expected: "one of " + LabelEvent.Kind.allCases.map(\.rawValue).joined(separator: ", "))
                }
                kinds.insert(kind)
            }
        }
        return kinds
    }
}
