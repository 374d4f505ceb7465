import EventLog
import LabelProjection

/// `remove LOG ID`: removes a label (its id stays known: later edits to it are refused).
enum Remove: Command {
    static let spec = CommandSpec(
        name: "remove",
        abstract: "Remove a label.",
        discussion: "The id stays known: a later edit to it is refused with 'Edit skipped: label was removed.', and 'add --id' can bring it back.",
        arguments: [
            .positional("log", "The label log file."),
            .positional("id", "The label's id, or a unique prefix of at least 4 hex digits."),
            Writing.expectLabelVersion,
        ] + Writing.common,
        examples: ["remove labels.labellog 3f2a --actor row-ui"])

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let version = try Writing.expectedVersion(arguments)
        return try Writing.perform(arguments, console: console) { store, options in
            let id = try Writing.labelID(arguments, in: store)
            var options = options
            options.expectation = version.map { .label(id, version: $0) }
            return (try store.remove(id, options: options), "")
        }
    }
}
