import EventLog
import LabelProjection

/// `rename LOG ID TITLE`: changes a label's title.
enum Rename: Command {
    static let spec = CommandSpec(
        name: "rename",
        abstract: "Rename a label.",
        discussion: "Renaming to the current title changes nothing (and exits 0). A title starting with '-' goes after '--'.",
        arguments: [
            .positional("log", "The label log file."),
            .positional("id", "The label's id, or a unique prefix of at least 4 hex digits."),
            .positional("title", "The new title."),
            Writing.expectLabelVersion,
        ] + Writing.common,
        examples: ["rename labels.labellog 3f2a Copper --actor row-ui"])

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let version = try Writing.expectedVersion(arguments)
        return try Writing.perform(arguments, console: console) { store, options in
            let id = try Writing.labelID(arguments, in: store)
            var options = options
            options.expectation = version.map { .label(id, version: $0) }
            let title = arguments.positional("title")
            return (try store.rename(id, to: title, options: options), "label \(Writing.rawName(id, in: store)) already has that title")
        }
    }
}
