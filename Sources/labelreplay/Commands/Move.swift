import EventLog
import LabelProjection

/// `move LOG ID POSITION`: moves a label to a position of the full list.
enum Move: Command {
    static let spec = CommandSpec(
        name: "move",
        abstract: "Move a label to a position of the full list.",
        discussion: """
            <position> is the label's position after the move, from 0 to the full list's length − 1 (never a position in a \
            filtered view). Moving a label to where it is changes nothing. --expect-version checks the list's version, \
            since a move changes the order.
            """,
        arguments: [
            .positional("log", "The label log file."),
            .positional("id", "The label's id, or a unique prefix of at least 4 hex digits."),
            .positional("position", "The position the label should have (0 is the first)."),
            Writing.expectListVersion
        ] + Writing.common,
        examples: ["move labels.labellog 3f2a 0"])

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let version = try Writing.expectedVersion(arguments)
        let position = try arguments.position("position") ?? 0
        let subject = Writing.Subject()
        return try Writing.perform(arguments, console: console, subject: subject) { store, options in
            let id = try Writing.labelID(arguments, in: store)
            subject.id = id
            var options = options
            options.expectation = version.map { .list(version: $0) }
            return (
                try store.move(id, to: position, options: options),
                "label \(Writing.rawName(id, in: store)) is already at position \(position)"
            )
        }
    }
}
