import EventLog

/// `--label` for the read-only commands: an id or prefix resolved against
/// every id the log's records name (so removed labels, and ids only seen in
/// `rejected` records, can be named).
enum LabelFilter {
    /// The id `--label` names, or `nil` when it was not given. A prefix costs
    /// one extra pass over the log to learn its ids.
    static func resolve(_ arguments: ParsedArguments, path: String, console: Console) throws -> LabelID? {
        guard let text = arguments.option("label") else { return nil }
        let display = arguments.spec.argument(named: "label")?.display ?? "--label <id>"
        var known = Set<LabelID>()
        if case .prefix = try LabelIDArgument.parse(text, for: display) {
            let pass = try Replay(path: path, strict: false, console: console, progress: "reading ids")
            while let step = try pass.next() {
                if let id = step.record.event.labelID { known.insert(id) }
            }
            return try LabelIDArgument.resolve(text, for: display, known: known, in: path) { id in
                pass.titles[id].map { "\"\($0)\"" } ?? ""
            }
        }
        return try LabelIDArgument.resolve(text, for: display, known: [], in: path, allowUnknown: true) { _ in "" }
    }

    /// Whether `event` is about `id`: it names it, or reorders a list that holds it.
    static func event(_ event: LabelEvent, concerns id: LabelID) -> Bool {
        if event.labelID == id { return true }
        if case .reordered(let order) = event { return order.contains(id) }
        return false
    }
}
