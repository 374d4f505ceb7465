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
            --at-time folds in seq order and stops before the first record stamped later than the time. On a synced \
            log ('labelreplay sync') with edits made on this device and not yet synced, the current list is the \
            device's: the file's with those edits on top, numbered after its last seq.

            --query and --enabled-only show a filtered view (case- and diacritic-insensitive "contains", in list \
            order): the row column is the label's row in the view (as 'trace' says "row 2"), the position column its \
            position in the full list (as 'add --position' and 'move' take it). --at-time takes a time as 'log \
            --since' does: without a zone it is local time.

            On a terminal the table goes through a pager ($PAGER, default 'less -FRX'; --no-pager to avoid it); \
            --no-header leaves out the heading and the column names.

            JSON (--json): {"seq", "count", "labels": [{"id", "title", "isEnabled", "version", "position"}]} where \
            labels are the rows shown, position is the index in the full list and count the full list's length.
            """,
        arguments: [
            .positional("log", "The label log file."),
            .option("at", value: "seq", "Show the list right after record <seq> (0: before the first record)."),
            .option("at-time", value: "time", "Show the list at a time, e.g. 2026-11-30T09:15:02Z (local time if no zone is given)."),
            .option("query", value: "text", "Show only labels whose title contains <text>."),
            .flag("enabled-only", "Show only enabled labels."),
            .flag("json", "Print one JSON object instead of a table."),
            .flag("no-header", "Leave out the heading and the column names."),
            .flag("no-pager", "Do not send the output through a pager, even on a terminal.")
        ],
        examples: ["show labels.labellog", "show labels.labellog --at 12 --query ring", "show labels.labellog --json"])

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let path = try arguments.logPath()
        try arguments.exclusive("at", "at-time")
        let seq = try arguments.seq("at")
        let time = try TimeArgument.option("at-time", of: arguments)
        let query = ViewQuery(arguments.option("query") ?? "", enabledOnly: arguments.flag("enabled-only"))
        let filtered = query != .all

        let replay = try Replay(path: path, console: console, progress: "reading \(path)")
        var list: LabelList
        if let seq {
            // From the nearest checkpoint at or before the seq (LOG.checkpoints), when there is one.
            if let checkpoint = try Checkpoints.open(path, console: console)?.checkpoint(atOrBefore: seq, withRemovedLabels: false) {
                try replay.start(from: checkpoint)
            }
            list = try replay.foldQuickly(through: seq)
        } else if let time {
            list = try replay.fold(until: time)
        } else {
            // The current list: from the newest checkpoint too (a server list's, or LOG.checkpoints),
            // then the records after it.
            if let checkpoints = try Checkpoints.open(path, console: console) {
                let last = try checkpoints.serverStorage?.refreshLastSeq() ?? checkpoints.seqs.max() ?? 0
                if last > 0, let checkpoint = checkpoints.checkpoint(atOrBefore: last, withRemovedLabels: false) {
                    try replay.start(from: checkpoint)
                }
            }
            list = try replay.foldAll()
        }
        // A synced log with edits not yet pushed: the device's list, as its write commands made it.
        var pendingEdits = 0
        if seq == nil, time == nil, let device = try Mirror.optimisticList(path) {
            list = device.list
            pendingEdits = device.pending
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
            console.json(shown)
            return ExitStatus.success
        }

        let header = !arguments.flag("no-header")
        let pager = Pager.start(console: console, disabled: arguments.flag("no-pager"))
        defer { pager?.finish(console: console) }
        var heading = "\(path) at seq \(list.lastSeq)"
        if let time {
            heading += " (time \(time.iso8601))"
        } else if pendingEdits > 0 {
            heading += " (now, with \(pendingEdits) edit\(pendingEdits == 1 ? "" : "s") made on this device and not yet synced)"
        } else if seq == nil {
            heading += " (now)"
        }
        if header {
            console.line(Escape.text(heading + ": \(list.count) label\(list.count == 1 ? "" : "s"), \(list.enabledCount) enabled"))
            if filtered {
                console.line("view \(Escape.text(query.description)): \(rows.count) of \(list.count) shown")
            }
        }
        if rows.isEmpty {
            console.errorLine(filtered ? "(no label matches)" : "(no labels)")
            return ExitStatus.success
        }
        var table = Table(filtered ? [.right, .right, .left, .left, .left, .right] : [.right, .left, .left, .left, .right])
        if header { table.append((filtered ? ["row"] : []) + ["position", "id", "title", "state", "version"]) }
        for (row, (position, label)) in rows.enumerated() {
            table.append(
                (filtered ? [String(row)] : []) + [
                    String(position), EventText.shortID(label.id), Escape.text(label.title), EventText.onOff(label.isEnabled),
                    String(label.version)
                ])
        }
        table.write(indent: header ? "  " : "", to: console)
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

extension ShownList: JSONPieces {
    func writeJSONPieces(_ emit: ((inout [UInt8]) -> Void) -> Void) {
        var first = true
        emit { out in
            JSONLine.key("count", first: &first, to: &out)
            JSONLine.number(count, to: &out)
            JSONLine.key("labels", first: &first, to: &out)
        }
        JSONLine.array(labels, pieces: emit)
        emit { out in
            JSONLine.key("seq", first: &first, to: &out)
            JSONLine.number(seq, to: &out)
            JSONLine.close(first, to: &out)
        }
    }
}

extension ShownLabel: JSONWritable {
    func writeJSON(to out: inout [UInt8]) {
        var first = true
        JSONLine.key("id", first: &first, to: &out)
        JSONLine.labelID(id, to: &out)
        JSONLine.key("isEnabled", first: &first, to: &out)
        JSONLine.bool(isEnabled, to: &out)
        JSONLine.key("position", first: &first, to: &out)
        JSONLine.number(position, to: &out)
        JSONLine.key("title", first: &first, to: &out)
        JSONLine.string(title, to: &out)
        JSONLine.key("version", first: &first, to: &out)
        JSONLine.number(version, to: &out)
        JSONLine.close(first, to: &out)
    }
}
