import EventLog
import Foundation

/// Which events `log` prints: its filters, each repeat of one combining as OR,
/// different filters as AND.
struct EventSelection {
    /// `--kind`: any of these kinds (all when empty).
    var kinds: Set<LabelEvent.Kind> = []
    /// `--actor` and `--no-actor`: any of these actors, `nil` standing for "no actor" (all when empty).
    var actors: Set<String?> = []
    /// `--label`: events about any of these labels (all when `nil`).
    var labels: Set<LabelID>?
    /// `--since` / `--until`: the time window, both ends included.
    var since: EventTimestamp?
    var until: EventTimestamp?
    /// `--to`: the last seq.
    var to: UInt64?

    /// The filters a history index narrows (all but `--kind` and `--to`).
    var query: HistoryQuery { HistoryQuery(labels: labels, actors: actors.isEmpty ? nil : actors, since: since, until: until) }

    /// Whether `record` is selected.
    func selects(_ record: EventRecord) -> Bool {
        (kinds.isEmpty || kinds.contains(record.event.kind)) && query.matches(record)
    }

    /// Whether `arguments` give a filter a history index narrows.
    static func narrows(_ arguments: ParsedArguments) -> Bool {
        !arguments.values("label").isEmpty || !arguments.values("actor").isEmpty || arguments.flag("no-actor")
            || arguments.option("since") != nil || arguments.option("until") != nil
    }

    /// The filters of `arguments` (labels resolved against the log at `path`, through `history` when given).
    static func parse(_ arguments: ParsedArguments, path: String, console: Console, history: IndexedHistory? = nil) throws
        -> EventSelection
    {
        var selection = EventSelection()
        selection.kinds = try Log.parseKinds(arguments)
        selection.actors = Set(arguments.values("actor").map { Optional($0) })
        if arguments.flag("no-actor") { selection.actors.insert(nil) }
        selection.since = try TimeArgument.option("since", of: arguments)
        selection.until = try TimeArgument.option("until", of: arguments)
        if let since = selection.since, let until = selection.until, until < since {
            throw UsageError("'--since' (\(since.iso8601)) is after '--until' (\(until.iso8601))")
        }
        selection.to = try arguments.seq("to")
        selection.labels = try LabelFilter.resolve(arguments, path: path, console: console, history: history)
        return selection
    }
}

/// Where `log` starts: a seq, or the end of the log.
enum LogStart: Equatable {
    case seq(UInt64)
    case end

    /// `--from`: a seq or `end`; `--follow` alone starts at the end (and `-n` reads everything to keep the last ones).
    static func parse(_ arguments: ParsedArguments) throws(UsageError) -> LogStart {
        guard let text = arguments.option("from") else {
            return arguments.flag("follow") && arguments.option("last") == nil ? .end : .seq(1)
        }
        if text == "end" { return .end }
        guard let seq = UInt64(text) else {
            if text.hasPrefix("-") {
                throw UsageError(
                    "the value '\(text)' is invalid for '--from <seq>': expected a seq or 'end' (for the last \(text.dropFirst()) events use '-n \(text.dropFirst())')"
                )
            }
            if case .time = TimeArgument.parse(text) {
                throw arguments.invalid(text, for: "from", expected: "a seq or 'end' (for events from a time on use '--since \(text)')")
            }
            throw arguments.invalid(text, for: "from", expected: "a seq (a whole number ≥ 0) or 'end'")
        }
        return .seq(seq)
    }
}

extension Log {
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
