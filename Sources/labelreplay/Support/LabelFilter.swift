import EventLog
import LabelProjection

/// `--label` for the read-only commands: ids or prefixes resolved against
/// every id the log's records name (so removed labels, and ids only seen in
/// `rejected` records, can be named). Repeated, it selects events about any
/// of them.
enum LabelFilter {
    /// Whether `--label` names an id by a prefix (resolving it needs the
    /// log's ids: the history index, or a pass over the log).
    ///
    /// - Throws: ``UsageError`` for a value that is not an id or a prefix of one.
    static func namesPrefix(_ arguments: ParsedArguments) throws -> Bool {
        let display = arguments.spec.argument(named: "label")?.display ?? "--label <id>"
        return try arguments.values("label").contains { text in
            if case .prefix = try LabelIDArgument.parse(text, for: display) { return true }
            return false
        }
    }

    /// The ids `--label` names, or `nil` when it was not given. A prefix is
    /// resolved through `history` (the log's index) when given, by the
    /// server for a server list, and otherwise by one extra pass over the
    /// log to learn its ids.
    static func resolve(_ arguments: ParsedArguments, path: String, console: Console, history: IndexedHistory? = nil) throws
        -> Set<LabelID>?
    {
        let texts = arguments.values("label")
        guard !texts.isEmpty else { return nil }
        let display = arguments.spec.argument(named: "label")?.display ?? "--label <id>"
        var patterns: [(String, LabelIDArgument.Pattern)] = []
        for text in texts { patterns.append((text, try LabelIDArgument.parse(text, for: display))) }
        var known = Set<LabelID>()
        var titles: [LabelID: String] = [:]
        let hasPrefix = patterns.contains { if case .prefix = $0.1 { true } else { false } }
        // A cut log's records start after its base: the labels its base's list knows (live and
        // removed, whose records may all be archived) are named as well. A non-folding pass keeps it.
        var origin: LabelList?
        var server: (any EventStorage)?
        if hasPrefix, let history {
            // The ids the prefixes can mean, from the chunks of the index's directory that hold them.
            var prefixes: [[UInt8]] = []
            for case (_, .prefix(let digits)) in patterns { prefixes.append(LabelIDArgument.nibbles(digits)) }
            known = try history.knownIDs(startingWithAnyOf: prefixes)
            if TestHooks.alwaysUsesIndex { console.errorLine("(label ids from the history index)") }
        } else if hasPrefix, LogLocation.isServer(path),
            let storage = try? ServerStorage.openForReading(LogLocation.resolve(path)).storage,
            let ids = try serverIDs(patterns, in: storage)
        {
            // A server list: the ids that start with each prefix, found by the server.
            known = ids
            server = storage
            if TestHooks.alwaysUsesIndex { console.errorLine("(label ids from the server)") }
        } else if hasPrefix {
            let pass = try Replay(path: path, strict: false, folds: false, console: console, progress: "reading ids")
            while let step = try pass.next() {
                if let id = step.record.event.labelID { known.insert(id) }
            }
            titles = pass.titles
            origin = pass.list
        }
        if hasPrefix {
            let origin = try origin ?? Replay(path: path, strict: false, folds: false, console: console).list
            known.formUnion(origin.knownIDs)
            for label in origin.labels where titles[label.id] == nil { titles[label.id] = label.title }
        }
        var ids = Set<LabelID>()
        for (text, pattern) in patterns {
            if case .full(let id) = pattern {
                ids.insert(id)
                continue
            }
            ids.insert(
                try LabelIDArgument.resolve(text, for: display, known: known, in: path) { id in
                    // Titles name the candidates of an ambiguous prefix: looked up only then.
                    let title =
                        history.map { try? $0.titles(for: [(id, .max)]).title(of: id, atOrBefore: .max) }
                        ?? server.flatMap { ServerStorage.lastStatedTitle(of: id, in: $0) } ?? titles[id]
                    return title.map { "\"\($0)\"" } ?? ""
                })
        }
        return ids
    }

    /// The ids a server list's records name that start with one of the
    /// prefixes among `patterns` (`nil` when the storage cannot say).
    private static func serverIDs(_ patterns: [(String, LabelIDArgument.Pattern)], in storage: any EventStorage) throws -> Set<LabelID>? {
        var ids = Set<LabelID>()
        for case (_, .prefix(let digits)) in patterns {
            guard let found = try ServerStorage.labelIDs(startingWith: LabelIDArgument.nibbles(digits), in: storage)
            else { return nil }
            ids.formUnion(found)
        }
        return ids
    }
}
