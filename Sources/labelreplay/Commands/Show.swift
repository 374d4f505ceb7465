import EventLog
import LabelProjection

/// `show LOG`: the list now or at a seq or time, or a filtered view of it.
enum Show: Command {
    static let spec = CommandSpec(
        name: "show",
        abstract: "Show the list (now, or at a seq or time), or a filtered view of it.",
        discussion: """
            The list is the fold of the log's records, in seq order. --at SEQ shows it right after record SEQ \
            (0 is the empty list before the first record); a seq past the end is an error, not the latest state. \
            --at-time folds in seq order and stops before the first record stamped later than the time.

            --query and --enabled-only show a filtered view (case- and diacritic-insensitive "contains", in list \
            order); the # column is still the position in the full list.

            JSON (--json): {"seq", "count", "labels": [{"id", "title", "isEnabled", "version", "position"}]} where \
            labels are the rows shown, position is the index in the full list and count the full list's length.
            """,
        arguments: [
            .positional("log", "The label log file."),
            .option("at", value: "seq", "Show the list right after record <seq> (0: before the first record)."),
            .option("at-time", value: "time", "Show the list at an ISO 8601 time, e.g. 2026-11-30T09:15:02Z."),
            .option("query", value: "text", "Show only labels whose title contains <text>."),
            .flag("enabled-only", "Show only enabled labels."),
            .flag("json", "Print one JSON object instead of a table.")
        ],
        examples: ["show labels.labellog", "show labels.labellog --at 12 --query ring", "show labels.labellog --json"])

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let path = arguments.positional("log")
        try arguments.exclusive("at", "at-time")
        let seq = try arguments.seq("at")
        let time = try arguments.option("at-time").map { (text) throws(UsageError) -> EventTimestamp in
            switch EventTimestamp.parse(text) {
            case .time(let time):
                return time
            case .malformed:
                throw arguments.invalid(text, for: "at-time", expected: "an ISO 8601 time such as 2026-11-30T09:15:02Z or 2026-11-30")
            case .outOfRange:
                throw arguments.invalid(
                    text, for: "at-time", expected: "a time from \(EventTimestamp.earliest.iso8601) to \(EventTimestamp.latest.iso8601)")
            }
        }
        let query = ViewQuery(arguments.option("query") ?? "", enabledOnly: arguments.flag("enabled-only"))
        let filtered = query != .all

        let replay = try Replay(path: path, console: console, progress: "reading \(path)")
        let list: LabelList
        if let seq {
            list = try replay.fold(through: seq)
        } else if let time {
            list = try replay.fold(until: time)
        } else {
            list = try replay.foldAll()
        }

        let rows: [(position: Int, label: Label)]
        if filtered {
            let positions = Dictionary(uniqueKeysWithValues: list.ids.enumerated().map { ($1, $0) })
            rows = FilteredView(query: query, list: list).labels(in: list).map { (positions[$0.id]!, $0) }
        } else {
            rows = list.labels.enumerated().map { ($0, $1) }
        }

        if arguments.flag("json") {
            let shown = ShownList(
                seq: list.lastSeq, count: list.count,
                labels: rows.map {
                    ShownLabel(
                        id: $0.label.id, title: $0.label.title, isEnabled: $0.label.isEnabled, version: $0.label.version,
                        position: $0.position)
                })
            console.line(try JSONLines().line(shown))
            return ExitStatus.success
        }

        var heading = "\(path) at seq \(list.lastSeq)"
        if let time { heading += " (time \(time.iso8601))" } else if seq == nil { heading += " (now)" }
        console.line(Escape.text(heading + ": \(list.count) label\(list.count == 1 ? "" : "s"), \(list.enabledCount) enabled"))
        if filtered {
            console.line("view \(Escape.text(query.description)): \(rows.count) of \(list.count) shown")
        }
        if rows.isEmpty {
            console.line(filtered ? "  (no label matches)" : "  (no labels)")
            return ExitStatus.success
        }
        var table = Table([.right, .left, .left, .left, .right])
        table.append(["#", "id", "title", "state", "version"])
        for (position, label) in rows {
            table.append([
                String(position), EventText.shortID(label.id), Escape.text(label.title), EventText.onOff(label.isEnabled),
                String(label.version)
            ])
        }
        console.lines(table.render(indent: "  "))
        return ExitStatus.success
    }
}

/// `show --json`: the rows shown and the full list's length.
struct ShownList: Encodable {
    /// The seq the list is at.
    let seq: UInt64
    /// The full list's length.
    let count: Int
    /// The rows shown, in list order.
    let labels: [ShownLabel]
}

/// One row of `show --json`.
struct ShownLabel: Encodable {
    let id: LabelID
    let title: String
    let isEnabled: Bool
    let version: UInt64
    /// The index in the full list.
    let position: Int
}
