import LabelProjection

/// `remove LOG ID`: removes a label; its id stays known, so later edits to it are refused.
enum Remove: Command {
    static let spec = CommandSpec(
        name: "remove",
        abstract: "Remove a label.",
        discussion:
            "The id stays known: a later edit to it is refused with 'Edit skipped: label was removed.', and 'add --id' can bring it back.",
        arguments: Writing.labelArguments(),
        examples: ["remove labels.labellog 3f2a --actor row-ui"])

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        try Writing.performOnLabel(arguments, console: console) { store, id, options in
            (try store.remove(id, options: options), "")
        }
    }
}
