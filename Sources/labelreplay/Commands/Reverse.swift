import EventLog
import LabelProjection

/// `reverse LOG`: reverses the order of the whole list.
enum Reverse: Command {
    static let spec = CommandSpec(
        name: "reverse",
        abstract: "Reverse the order of the whole list.",
        discussion:
            "Appends one 'reordered' record. A list of fewer than two labels is left as it is. --expect-version checks the list's version.",
        arguments: [.positional("log", "The label log file."), Writing.expectListVersion] + Writing.common,
        examples: ["reverse labels.labellog --actor filter-ui"])

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let version = try Writing.expectedVersion(arguments)
        return try Writing.perform(arguments, console: console) { store, options in
            var options = options
            options.expectation = version.map { .list(version: $0) }
            return (try store.reverse(options: options), "the list has fewer than two labels")
        }
    }
}
