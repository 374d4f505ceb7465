import LabelProjection

/// `toggle LOG ID`: flips a label's isEnabled.
enum Toggle: Command {
    static let spec = CommandSpec(
        name: "toggle",
        abstract: "Flip a label between enabled and disabled.",
        discussion:
            "Always appends one 'toggled' record (unlike enable and disable, which change nothing when the label already has that state).",
        arguments: Writing.labelArguments(),
        examples: ["toggle labels.labellog 3f2a --actor row-ui"])

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        try Writing.performOnLabel(arguments, console: console) { store, id, options in
            (try store.toggle(id, options: options), "")
        }
    }
}
