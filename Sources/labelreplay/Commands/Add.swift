import EventLog
import LabelProjection

/// `add LOG TITLE`: appends a label (creating the log on first use) and prints its id.
enum Add: Command {
    static let spec = CommandSpec(
        name: "add",
        abstract: "Add a label (creating the log if it does not exist) and print its id.",
        discussion: """
            Prints the new label's full id on standard output (or, with --json, the appended record). \
            --id gives the id yourself: a new UUID, or the id of a removed label to bring it back. \
            --expect-version checks the list's version, since an add changes membership. \
            A title starting with '-' goes after '--': add LOG -- -draft-
            """,
        arguments: [
            .positional("log", "The label log file (created if missing)."),
            .positional("title", "The new label's title."),
            .flag("disabled", "Add the label disabled (default: enabled)."),
            .option("position", value: "position", "Insert at this position of the full list (default: the end)."),
            .option("id", value: "id", "Use this id (a new UUID, or a removed label's id or unique prefix)."),
            Writing.expectListVersion
        ] + Writing.common,
        examples: ["add labels.labellog Amber", "add labels.labellog Cobalt --disabled --position 0 --actor row-ui"],
        renamedOptions: ["--at": "'--at' is now '--position'; '--at' is a seq everywhere, as in 'show --at'"])

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let position = try arguments.position("position")
        let version = try Writing.expectedVersion(arguments)
        var added: LabelID?
        let status = try Writing.perform(arguments, console: console, create: true) { store, options in
            var options = options
            options.expectation = version.map { .list(version: $0) }
            let id = try arguments.option("id").map { _ in try Writing.labelID(arguments, in: store) } ?? LabelID()
            added = id
            let records = try store.execute(
                .add(title: arguments.positional("title"), isEnabled: !arguments.flag("disabled"), id: id, at: position),
                options: options)
            return (records, "")
        } report: { records in
            added.map { [$0.description] } ?? []
        }
        return status
    }
}
