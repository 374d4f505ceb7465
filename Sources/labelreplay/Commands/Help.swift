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
        guard let command = Tool.command(named: name), !command.spec.hidden else {
            let names = Tool.commands.filter { !$0.spec.hidden }.map { $0.spec.name }
            let close = Suggestion.closest(to: name, among: names).map { " (did you mean '\($0)'?)" } ?? ""
            throw UsageError("unknown command '\(name)'\(close); the commands are: " + names.joined(separator: ", "))
        }
        console.line(HelpText.render(command.spec))
        return ExitStatus.success
    }
}
