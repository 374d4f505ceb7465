import Foundation

/// `--help` text in swift-argument-parser's layout: OVERVIEW, USAGE,
/// ARGUMENTS, OPTIONS, then the discussion and examples, wrapped at 80 columns.
enum HelpText {
    private static let width = 80
    private static let column = 26

    /// The help of one command.
    static func render(_ spec: CommandSpec) -> String {
        var out = ["OVERVIEW: " + spec.abstract, "", "USAGE: " + spec.usage]
        let positionals = spec.arguments.filter(\.isPositional)
        if !positionals.isEmpty {
            out += ["", "ARGUMENTS:"]
            for argument in positionals { out += entry(argument.display, argument.help) }
        }
        out += ["", "OPTIONS:"]
        for argument in spec.arguments where !argument.isPositional {
            let names = (argument.short.map { "-\($0), " } ?? "") + argument.display
            out += entry(names, argument.help)
        }
        out += entry("-h, --help", "Show help information.")
        if !spec.discussion.isEmpty {
            out.append("")
            for paragraph in spec.discussion.components(separatedBy: "\n\n") {
                out += wrap(paragraph, indent: "", width: width)
                out.append("")
            }
            out.removeLast()
        }
        if !spec.examples.isEmpty {
            out += ["", "EXAMPLES:"]
            out += spec.examples.map { "  \(Tool.name) \($0)" }
        }
        return out.joined(separator: "\n")
    }

    /// The tool's help: every command with its abstract.
    static func root() -> String {
        var out = [
            "OVERVIEW: Replay, inspect and edit a label log (an embedded, event-sourced label store).",
            "",
            "USAGE: \(Tool.name) <command> [<arguments>]",
            "",
            "OPTIONS:"
        ]
        out += entry("--version", "Show the version.")
        out += entry("-h, --help", "Show help information.")
        out += ["", "COMMANDS:"]
        for command in Tool.commands { out += entry(command.spec.name, command.spec.abstract) }
        out += [
            "",
            "  Start with '\(Tool.name) demo', then follow the commands it suggests.",
            "  See '\(Tool.name) help <command>' for detailed help.",
            "",
            "EXIT STATUS:",
            "  0 success (including \"nothing changed\"), 1 failed operation (rejected edit,",
            "  unknown id, corrupt log, …), 64 malformed command line."
        ]
        return out.joined(separator: "\n")
    }

    /// `  name      help…` with the help wrapped into its column.
    private static func entry(_ name: String, _ help: String) -> [String] {
        let lead = "  " + name
        let body = wrap(help, indent: String(repeating: " ", count: column), width: width)
        if lead.count + 2 <= column, var first = body.first {
            first = lead + String(repeating: " ", count: column - lead.count) + first.dropFirst(column)
            return [first] + body.dropFirst()
        }
        return [lead] + body
    }

    /// `text` broken at spaces into lines of at most `width` columns, each starting with `indent`.
    static func wrap(_ text: String, indent: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = indent
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            if line.count > indent.count && line.count + 1 + word.count > width {
                lines.append(line)
                line = indent
            }
            line += (line.count > indent.count ? " " : "") + word
        }
        if line.count > indent.count { lines.append(line) }
        return lines
    }
}
