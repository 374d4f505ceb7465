/// A small command-line parser following swift-argument-parser's conventions
/// (without depending on it):
///
/// - positionals in declared order; `--name value` and `--name=value` options;
///   `-n value` and `-n5` for options with a one-letter alias; `--flag` flags;
///   `-h` / `--help` anywhere before `--` asks for help;
/// - `--` ends option parsing: every later word is a positional (so a title
///   may start with a dash: `rename LOG ID -- -draft-`);
/// - an option's value is the next word unless that word starts with `--`
///   (use `--note=--x` for such a value);
/// - a repeating option keeps every value (filters combine them as OR); any
///   other option given twice is a usage error, never silently the last one;
/// - an unknown option or command gets a did-you-mean hint (``Suggestion``).
///
/// Every mistake is a ``UsageError`` (exit status 64); its message holds raw
/// text, escaped when printed.

/// A command line that does not fit the command's spec (exit status 64).
struct UsageError: Error, Sendable {
    /// What is wrong, e.g. `unknown option '--bogus'`.
    let message: String
    init(_ message: String) { self.message = message }
}

/// The words of one command line, sorted by the command's spec.
struct ParsedArguments: Sendable {
    /// The command they were parsed for.
    let spec: CommandSpec
    private(set) var positionals: [String: String] = [:]
    private(set) var options: [String: [String]] = [:]
    private(set) var flags: Set<String> = []
    /// Whether `-h` or `--help` was given (then nothing else is checked).
    private(set) var helpRequested = false

    /// Sorts `words` (the arguments after the subcommand's name) by `spec`.
    static func parse(_ words: [String], spec: CommandSpec) throws(UsageError) -> ParsedArguments {
        var result = ParsedArguments(spec: spec)
        // Help wins over every other mistake, as in swift-argument-parser.
        if words.prefix(while: { $0 != "--" }).contains(where: { $0 == "--help" || $0 == "-h" }) {
            result.helpRequested = true
            return result
        }
        let positionalSpecs = spec.arguments.filter(\.isPositional)
        var loose: [String] = []
        var index = 0
        var optionsEnded = false
        while index < words.count {
            let word = words[index]
            index += 1
            if optionsEnded || word == "-" || !word.hasPrefix("-") {
                loose.append(word)
                continue
            }
            if word == "--" {
                optionsEnded = true
                continue
            }
            var inlineValue: String?
            let argument: ArgumentSpec
            if word.hasPrefix("--") {
                var name = String(word.dropFirst(2))
                if let equals = name.firstIndex(of: "=") {
                    inlineValue = String(name[name.index(after: equals)...])
                    name = String(name[..<equals])
                }
                guard let found = spec.argument(named: name), !found.isPositional else {
                    throw UsageError("unknown option '--\(name)'" + Self.hint(for: "--" + name, in: spec))
                }
                argument = found
            } else {
                // `-n 5`, `-n5`, `-n=5`, or a flag's `-j`.
                let letter = word.dropFirst().first!
                guard let found = spec.argument(short: letter) else {
                    throw UsageError("unknown option '\(word)'" + Self.hint(for: word, in: spec))
                }
                let rest = word.dropFirst(2)
                if !rest.isEmpty {
                    guard found.takesValue else { throw UsageError("unknown option '\(word)'" + Self.hint(for: word, in: spec)) }
                    inlineValue = String(rest.hasPrefix("=") ? rest.dropFirst() : rest)
                }
                argument = found
            }
            let name = argument.name
            switch argument.kind {
            case .flag:
                if inlineValue != nil { throw UsageError("the flag '--\(name)' takes no value") }
                result.flags.insert(name)
            case .option(_, let repeating):
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else if index < words.count, !words[index].hasPrefix("--") {
                    value = words[index]
                    index += 1
                } else {
                    throw UsageError("missing value for '\(argument.display)'")
                }
                if !repeating, let earlier = result.options[name]?.first {
                    throw UsageError(
                        "'--\(name)' was given twice ('\(earlier)' and '\(value)'); give it once")
                }
                result.options[name, default: []].append(value)
            case .positional:
                break
            }
        }
        for (position, argument) in positionalSpecs.enumerated() {
            if position < loose.count {
                result.positionals[argument.name] = loose[position]
            } else if case .positional(optional: false) = argument.kind {
                throw UsageError("missing expected argument '\(argument.display)'")
            }
        }
        if loose.count > positionalSpecs.count {
            throw UsageError("unexpected argument '\(loose[positionalSpecs.count])'")
        }
        return result
    }

    /// ` (did you mean '--at'?)` when an option is close to a known one.
    private static func hint(for word: String, in spec: CommandSpec) -> String {
        if let renamed = spec.renamedOptions[word] {
            return " (\(renamed))"
        }
        if word.count > 1, word.dropFirst().allSatisfy(\.isNumber) {
            return " (to pass a value starting with '-', put it after '--')"
        }
        let known = spec.arguments.filter { !$0.isPositional }.map { "--" + $0.name } + ["--help"]
        return Suggestion.closest(to: word, among: known).map { " (did you mean '\($0)'?)" } ?? ""
    }
}
