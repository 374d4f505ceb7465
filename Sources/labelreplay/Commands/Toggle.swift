import EventLog
import LabelProjection

/// `toggle LOG ID`: flips a label's isEnabled.
enum Toggle: Command {
    static let spec = CommandSpec(
        name: "toggle",
        abstract: "Flip a label between enabled and disabled.",
        discussion: "Always appends one 'toggled' record (unlike enable and disable, which change nothing when the label already has that state).",
        arguments: [
            .positional("log", "The label log file."),
            .positional("id", "The label's id, or a unique prefix of at least 4 hex digits."),
            Writing.expectLabelVersion,
        ] + Writing.common,
        examples: ["toggle labels.labellog 3f2a --actor row-ui"])

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let version = try Writing.expectedVersion(arguments)
        return try Writing.perform(arguments, console: console) { store, options in
            let id = try Writing.labelID(arguments, in: store)
            var options = options
            options.expectation = version.map { .label(id, version: $0) }
            return (try store.toggle(id, options: options), "")
        }
    }
}
