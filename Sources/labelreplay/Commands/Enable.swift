import EventLog
import LabelProjection

/// `enable LOG ID`: enables a label (nothing changes if it already is).
enum Enable: Command {
    static let spec = CommandSpec(
        name: "enable",
        abstract: "Enable a label (nothing changes if it already is enabled).",
        discussion: "Enabling an enabled label appends nothing, says so, and exits 0.",
        arguments: [
            .positional("log", "The label log file."),
            .positional("id", "The label's id, or a unique prefix of at least 4 hex digits."),
            Writing.expectLabelVersion,
        ] + Writing.common,
        examples: ["enable labels.labellog 3f2a --actor row-ui"])

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let version = try Writing.expectedVersion(arguments)
        return try Writing.perform(arguments, console: console) { store, options in
            let id = try Writing.labelID(arguments, in: store)
            var options = options
            options.expectation = version.map { .label(id, version: $0) }
            return (try store.setEnabled(id, true, options: options), "label \(Writing.rawName(id, in: store)) is already enabled")
        }
    }
}
