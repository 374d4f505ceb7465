import LabelProjection

/// `disable LOG ID`: disables a label (nothing changes if it already is).
enum Disable: Command {
    static let spec = CommandSpec(
        name: "disable",
        abstract: "Disable a label (nothing changes if it already is disabled).",
        discussion: "Disabling a disabled label appends nothing, says so, and exits 0.",
        arguments: Writing.labelArguments(),
        examples: ["disable labels.labellog 3f2a --actor row-ui"])

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        try Writing.performOnLabel(arguments, console: console) { store, id, options in
            (try store.setEnabled(id, false, options: options), "label \(Writing.rawName(id, in: store)) is already disabled")
        }
    }
}
