/// A small command-line parser following swift-argument-parser's conventions
/// (without depending on it):
///
/// - positionals in declared order; `--name value` and `--name=value` options;
///   `--flag` flags; `-h` / `--help` anywhere before `--` asks for help;
/// - `--` ends option parsing: every later word is a positional (so a title
///   may start with a dash: `rename LOG ID -- -draft-`);
/// - an option's value is the next word unless that word starts with `--`
///   (use `--note=--x` for such a value);
/// - a repeated single-value option keeps its last value; a repeating option
///   keeps all of them.
///
/// Every mistake is a ``UsageError`` (exit status 64); its message holds raw
/// text, escaped when printed.

/// One argument a command accepts.
struct ArgumentSpec: Sendable {
    /// How the argument appears on the command line.
    enum Kind: Sendable, Equatable {
        /// A word in order; `optional` ones may be left out (only at the end).
        case positional(optional: Bool)
        /// `--name <value>`; `repeating` keeps every occurrence.
        case option(value: String, repeating: Bool)
        /// `--name`, present or not.
        case flag
    }

    /// The positional's name (`log` shows as `<log>`) or the option's long name without dashes.
    let name: String
    /// A one-letter alias (`-h`), if any.
    let short: Character?
    let kind: Kind
    /// One sentence for `--help`.
    let help: String

    /// A positional argument.
    static func positional(_ name: String, optional: Bool = false, _ help: String) -> ArgumentSpec {
        ArgumentSpec(name: name, short: nil, kind: .positional(optional: optional), help: help)
    }

    /// An option taking a value.
    static func option(_ name: String, value: String, repeating: Bool = false, _ help: String) -> ArgumentSpec {
        ArgumentSpec(name: name, short: nil, kind: .option(value: value, repeating: repeating), help: help)
    }

    /// A boolean flag.
    static func flag(_ name: String, short: Character? = nil, _ help: String) -> ArgumentSpec {
        ArgumentSpec(name: name, short: short, kind: .flag, help: help)
    }

    /// How the argument is written in usage lines and messages: `<log>`, `--at <seq>`, `--json`.
    var display: String {
        switch kind {
        case .positional: "<\(name)>"
        case .option(let value, _): "--\(name) <\(value)>"
        case .flag: "--\(name)"
        }
    }

    var isPositional: Bool { if case .positional = kind { true } else { false } }
}

/// What a command is and which arguments it takes; the source of its `--help`.
struct CommandSpec: Sendable {
    /// The subcommand's name, e.g. `show`.
    let name: String
    /// One line for the command list.
    let abstract: String
    /// More explanation for `--help`, if any (paragraphs separated by blank lines).
    var discussion: String = ""
    /// The arguments, positionals first in order.
    var arguments: [ArgumentSpec] = []
    /// Example invocations (without the leading `labelreplay`).
    var examples: [String] = []

    /// The usage line, e.g. `labelreplay show <log> [--at <seq>] [--json]`.
    var usage: String {
        var parts = ["\(Tool.name) \(name)"]
        for argument in arguments {
            switch argument.kind {
            case .positional(let optional): parts.append(optional ? "[\(argument.display)]" : argument.display)
            case .option(_, let repeating): parts.append("[\(argument.display)]" + (repeating ? " ..." : ""))
            case .flag: parts.append("[\(argument.display)]")
            }
        }
        return parts.joined(separator: " ")
    }

    func argument(named name: String) -> ArgumentSpec? { arguments.first { $0.name == name } }
}

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
            guard word.hasPrefix("--") else {
                throw UsageError("unknown option '\(word)'" + Self.hint(for: word, in: spec))
            }
            var name = String(word.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard let argument = spec.argument(named: name), !argument.isPositional else {
                throw UsageError("unknown option '--\(name)'" + Self.hint(for: "--" + name, in: spec))
            }
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
                if repeating {
                    result.options[name, default: []].append(value)
                } else {
                    result.options[name] = [value]
                }
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
        let known = spec.arguments.filter { !$0.isPositional }.map { "--" + $0.name }
        let bare = word.drop { $0 == "-" }
        if let close = known.first(where: { $0.dropFirst(2).hasPrefix(bare) && !bare.isEmpty }) {
            return " (did you mean '\(close)'?)"
        }
        if word.count > 1, word.dropFirst().allSatisfy(\.isNumber) {
            return " (to pass a value starting with '-', put it after '--')"
        }
        return ""
    }

    // MARK: Reading values

    /// A required positional (parsing already checked it is there).
    func positional(_ name: String) -> String { positionals[name] ?? "" }

    /// An optional positional, or `nil`.
    func optionalPositional(_ name: String) -> String? { positionals[name] }

    /// Whether a flag was given.
    func flag(_ name: String) -> Bool { flags.contains(name) }

    /// The (last) value of an option, or `nil`.
    func option(_ name: String) -> String? { options[name]?.last }

    /// Every value of a repeating option, in order.
    func values(_ name: String) -> [String] { options[name] ?? [] }

    /// A whole number ≥ 0 from an option or positional (`nil` when absent).
    func number(_ name: String, what: String = "a whole number ≥ 0") throws(UsageError) -> UInt64? {
        guard let text = positionals[name] ?? option(name) else { return nil }
        guard let value = UInt64(text) else { throw invalid(text, for: name, expected: what) }
        return value
    }

    /// A seq (whole number ≥ 0) from an option or positional.
    func seq(_ name: String) throws(UsageError) -> UInt64? {
        try number(name, what: "a seq (a whole number ≥ 0)")
    }

    /// A list position (whole number in 0...2³¹−1) from an option or positional.
    func position(_ name: String) throws(UsageError) -> Int? {
        guard let value = try number(name, what: "a position (a whole number ≥ 0)") else { return nil }
        guard value <= UInt64(Int32.max) else {
            throw invalid(String(value), for: name, expected: "a position no larger than \(Int32.max)")
        }
        return Int(value)
    }

    /// The error for a value that does not parse.
    func invalid(_ text: String, for name: String, expected: String) -> UsageError {
        let display = spec.argument(named: name)?.display ?? name
        return UsageError("the value '\(text)' is invalid for '\(display)': expected \(expected)")
    }

    /// Fails when more than one of `names` was given.
    func exclusive(_ names: String...) throws(UsageError) {
        let given = names.filter { options[$0] != nil || flags.contains($0) }
        if given.count > 1 {
            throw UsageError("'--\(given[0])' and '--\(given[1])' cannot be used together")
        }
    }
}
