import EventLog

/// `--label` for the read-only commands: ids or prefixes resolved against
/// every id the log's records name (so removed labels, and ids only seen in
/// `rejected` records, can be named). Repeated, it selects events about any
/// of them.
enum LabelFilter {
    /// The ids `--label` names, or `nil` when it was not given. Prefixes cost
    /// one extra pass over the log to learn its ids.
    static func resolve(_ arguments: ParsedArguments, path: String, console: Console) throws -> Set<LabelID>? {
        let texts = arguments.values("label")
        guard !texts.isEmpty else { return nil }
        let display = arguments.spec.argument(named: "label")?.display ?? "--label <id>"
        var patterns: [(String, LabelIDArgument.Pattern)] = []
        for text in texts { patterns.append((text, try LabelIDArgument.parse(text, for: display))) }
        var known = Set<LabelID>()
        var titles: [LabelID: String] = [:]
        if patterns.contains(where: { if case .prefix = $0.1 { true } else { false } }) {
            let pass = try Replay(path: path, strict: false, folds: false, console: console, progress: "reading ids")
            while let step = try pass.next() {
                if let id = step.record.event.labelID { known.insert(id) }
            }
            titles = pass.titles
        }
        var ids = Set<LabelID>()
        for (text, pattern) in patterns {
            if case .full(let id) = pattern {
                ids.insert(id)
                continue
            }
            ids.insert(
                try LabelIDArgument.resolve(text, for: display, known: known, in: path) { id in
                    titles[id].map { "\"\($0)\"" } ?? ""
                })
        }
        return ids
    }

    /// Whether `event` is about one of `ids`: it names one, or reorders a list that holds one.
    static func event(_ event: LabelEvent, concerns ids: Set<LabelID>) -> Bool {
        if let id = event.labelID { return ids.contains(id) }
        if case .reordered(let order) = event { return order.contains { ids.contains($0) } }
        return false
    }
}
