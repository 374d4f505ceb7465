import EventLog
import LabelProjection

/// `disable LOG ID`: disables a label (nothing changes if it already is).
enum Disable: Command {
    static let spec = CommandSpec(
        name: "disable",
        abstract: "Disable a label (nothing changes if it already is disabled).",
        discussion: "Disabling a disabled label appends nothing, says so, and exits 0.",
        arguments: [
            .positional("log", "The label log file."),
            .positional("id", "The label's id, or a unique prefix of at least 4 hex digits."),
            Writing.expectLabelVersion,
        ] + Writing.common,
        examples: ["disable labels.labellog 3f2a --actor row-ui"])

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let version = try Writing.expectedVersion(arguments)
        return try Writing.perform(arguments, console: console) { store, options in
            let id = try Writing.labelID(arguments, in: store)
            var options = options
            options.expectation = version.map { .label(id, version: $0) }
            return (try store.setEnabled(id, false, options: options), "label \(Writing.rawName(id, in: store)) is already disabled")
        }
    }
}
