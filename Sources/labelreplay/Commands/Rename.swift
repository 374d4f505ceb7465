import LabelProjection

/// `rename LOG ID TITLE`: changes a label's title.
enum Rename: Command {
    static let spec = CommandSpec(
        name: "rename",
        abstract: "Rename a label.",
        discussion: "Renaming to the current title changes nothing (and exits 0). A title starting with '-' goes after '--'.",
        arguments: Writing.labelArguments([.positional("title", "The new title.")]),
        examples: ["rename labels.labellog 3f2a Copper --actor row-ui"])

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        try Writing.performOnLabel(arguments, console: console) { store, id, options in
            (
                try store.rename(id, to: arguments.positional("title"), options: options),
                "label \(Writing.rawName(id, in: store)) already has that title"
            )
        }
    }
}
