/// `help [<command>]`: the tool's help, or one command's (same as `<command> --help`).
enum Help: Command {
    static let spec = CommandSpec(
        name: "help",
        abstract: "Show the help of the tool or of one command.",
        arguments: [.positional("command", optional: true, "The command to explain.")],
        examples: ["help trace"])

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        guard let name = arguments.optionalPositional("command") else {
            console.line(HelpText.root())
            return ExitStatus.success
        }
        guard let command = Tool.command(named: name) else {
            throw UsageError("unknown command '\(name)'; the commands are: " + Tool.commands.map { $0.spec.name }.joined(separator: ", "))
        }
        console.line(HelpText.render(command.spec))
        return ExitStatus.success
    }
}
