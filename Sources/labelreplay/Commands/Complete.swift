import EventLog

/// `__complete ids LOG PREFIX`: what the completion scripts ask the tool
/// (hidden from help): the label ids of a log (live and removed) starting with
/// PREFIX, as 8-digit short ids (the full id when another id shares its first
/// 8 digits), each with its title after a tab. Prints
/// nothing, and exits 0, for a log it cannot read: completion must stay quiet.
enum Complete: Command {
    static let spec = CommandSpec(
        name: "__complete",
        abstract: "Candidates for shell completion (used by the completion scripts).",
        arguments: [
            .positional("what", "What to complete: ids."),
            .positional("log", "The label log file."),
            .positional("prefix", optional: true, "What was typed so far.")
        ],
        hidden: true)

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        guard arguments.positional("what") == "ids" else { throw UsageError("expected 'ids'") }
        let prefix = (arguments.optionalPositional("prefix") ?? "").lowercased().filter { $0 != "-" }
        let quiet = Console(stderrIsTerminal: false, stdoutIsTerminal: false)
        guard let replay = try? Replay(path: arguments.positional("log"), strict: false, folds: false, console: quiet) else {
            return ExitStatus.success
        }
        var ids: [LabelID] = []
        var seen = Set<LabelID>()
        while let step = try? replay.next() {
            if let id = step.record.event.labelID, seen.insert(id).inserted { ids.append(id) }
        }
        let shared = Dictionary(grouping: ids, by: EventText.shortID).filter { $0.value.count > 1 }
        for id in ids where id.description.filter({ $0 != "-" }).hasPrefix(prefix) {
            let title = replay.titles[id].map { Escape.text($0).replacingOccurrences(of: "\t", with: " ") } ?? ""
            let short = EventText.shortID(id)
            console.line((shared[short] == nil ? short : id.description) + "\t" + title)
        }
        return ExitStatus.success
    }
}
