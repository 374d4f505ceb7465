/// What a command is and which arguments it takes; the source of its `--help`,
/// its usage line, its did-you-mean hints and its shell completion.

/// One argument a command accepts.
struct ArgumentSpec: Sendable {
    /// How the argument appears on the command line.
    enum Kind: Sendable, Equatable {
        /// A word in order; `optional` ones may be left out (only at the end).
        case positional(optional: Bool)
        /// `--name <value>`; `repeating` keeps every occurrence (else giving it twice is a usage error).
        case option(value: String, repeating: Bool)
        /// `--name`, present or not.
        case flag
    }

    /// The positional's name (`log` shows as `<log>`) or the option's long name without dashes.
    let name: String
    /// A one-letter alias (`-h`, `-n`), if any.
    var short: Character?
    let kind: Kind
    /// One sentence for `--help`.
    let help: String

    /// A positional argument.
    static func positional(_ name: String, optional: Bool = false, _ help: String) -> ArgumentSpec {
        ArgumentSpec(name: name, short: nil, kind: .positional(optional: optional), help: help)
    }

    /// An option taking a value.
    static func option(_ name: String, short: Character? = nil, value: String, repeating: Bool = false, _ help: String) -> ArgumentSpec {
        ArgumentSpec(name: name, short: short, kind: .option(value: value, repeating: repeating), help: help)
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

    /// Whether the option takes a value.
    var takesValue: Bool { if case .option = kind { true } else { false } }
}

/// A subcommand's name, help text and arguments.
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
    /// Whether `--help` leaves it out (the helper the completion scripts call).
    var hidden = false
    /// Options that were renamed, with what to say when the old name is used (`--at` → `use '--position'`).
    var renamedOptions: [String: String] = [:]

    /// The words of the usage line, e.g. `[--at <seq>]`, after `labelreplay show`.
    var usageParts: [String] {
        arguments.map { argument in
            switch argument.kind {
            case .positional(let optional): optional ? "[\(argument.display)]" : argument.display
            case .option(_, let repeating): "[\(argument.display)]" + (repeating ? " ..." : "")
            case .flag: "[\(argument.display)]"
            }
        }
    }

    /// The usage line on one line, e.g. `labelreplay show <log> [--at <seq>] [--json]`.
    var usage: String { (["\(Tool.name) \(name)"] + usageParts).joined(separator: " ") }

    func argument(named name: String) -> ArgumentSpec? { arguments.first { $0.name == name } }

    /// The option or flag whose one-letter alias is `short`.
    func argument(short: Character) -> ArgumentSpec? { arguments.first { $0.short == short } }
}
