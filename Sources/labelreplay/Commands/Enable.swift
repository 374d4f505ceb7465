import LabelProjection

/// `enable LOG ID`: enables a label (nothing changes if it already is).
enum Enable: Command {
    static let spec = CommandSpec(
        name: "enable",
        abstract: "Enable a label (nothing changes if it already is enabled).",
        discussion: "Enabling an enabled label appends nothing, says so, and exits 0.",
        arguments: Writing.labelArguments(),
        examples: ["enable labels.labellog 3f2a --actor row-ui"])

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        try Writing.performOnLabel(arguments, console: console) { store, id, options in
            (try store.setEnabled(id, true, options: options), "label \(Writing.rawName(id, in: store)) is already enabled")
        }
    }
}
