import Foundation

/// `--help` text in swift-argument-parser's layout: OVERVIEW, USAGE,
/// ARGUMENTS, OPTIONS, then the discussion and examples, wrapped to the
/// terminal's width (`COLUMNS`, else the terminal's, else 80; at least 40).
enum HelpText {
    /// The column where option help starts (names longer than fit put it on the next line).
    private static let column = 26

    /// The width help is wrapped to now.
    static var currentWidth: Int { max(40, Platform.helpWidth) }

    /// The help of one command.
    static func render(_ spec: CommandSpec, width: Int = currentWidth) -> String {
        var out = ["OVERVIEW: " + spec.abstract]
        out = out.flatMap { wrap($0, indent: "", width: width) }
        out += [""] + usage(spec, width: width)
        let positionals = spec.arguments.filter(\.isPositional)
        if !positionals.isEmpty {
            out += ["", "ARGUMENTS:"]
            for argument in positionals { out += entry(argument.display, argument.help, width: width) }
        }
        out += ["", "OPTIONS:"]
        for argument in spec.arguments where !argument.isPositional {
            let names = (argument.short.map { "-\($0), " } ?? "") + argument.display
            out += entry(names, argument.help, width: width)
        }
        out += entry("-h, --help", "Show help information.", width: width)
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

    /// `USAGE: labelreplay log <log> [--label <id>] ...`, wrapped between arguments.
    static func usage(_ spec: CommandSpec, width: Int) -> [String] {
        let lead = "USAGE: \(Tool.name) \(spec.name)"
        let indent = String(repeating: " ", count: 7)
        var lines: [String] = []
        var line = lead
        for part in spec.usageParts {
            if line.count + 1 + part.count > width && line != lead && line != indent {
                lines.append(line)
                line = indent + part
            } else {
                line += (line == indent ? "" : " ") + part
            }
        }
        lines.append(line)
        return lines
    }

    /// The tool's help: every command with its abstract.
    static func root(width: Int = currentWidth) -> String {
        var out = wrap("OVERVIEW: Replay, inspect and edit a label log (an embedded, event-sourced label store).", indent: "", width: width)
        out += ["", "USAGE: \(Tool.name) <command> [<arguments>]", "", "OPTIONS:"]
        out += entry("--version", "Show the version.", width: width)
        out += entry(
            "--generate-completion-script <shell>", "Print the completion script for bash, zsh or fish (see docs/CLI.md).", width: width)
        out += entry("-h, --help", "Show help information.", width: width)
        out += ["", "COMMANDS:"]
        for command in Tool.commands where !command.spec.hidden {
            out += entry(command.spec.name, command.spec.abstract, width: width)
        }
        out.append("")
        out += wrap("Start with '\(Tool.name) demo', then follow the commands it suggests.", indent: "  ", width: width)
        out += wrap("See '\(Tool.name) help <command>' for detailed help.", indent: "  ", width: width)
        out += ["", "ENVIRONMENT:"]
        out += entry("LABELREPLAY_ACTOR", "The actor of edits made without --actor (default: the login name).", width: width)
        out += entry(
            "LABELREPLAY_RECONNECT_TIMEOUT",
            "Seconds a command keeps trying a server list's server that cannot be reached, or that accepts no writes, "
                + "at opening as at a reconnect (default: 30).", width: width)
        out += entry("NO_COLOR", "When set and not empty, no colour unless --color=always.", width: width)
        out += entry("PAGER", "The pager for long output on a terminal (default: less -FRX; empty or cat: none).", width: width)
        out += entry("COLUMNS", "The width help is wrapped to (default: the terminal's).", width: width)
        out += ["", "EXIT STATUS:"]
        out += wrap(
            "0 success (including \"nothing changed\"), 1 failed operation (rejected edit, unknown id, corrupt log, …), "
                + "64 malformed command line, 130 interrupted (Ctrl-C).", indent: "  ", width: width)
        return out.joined(separator: "\n")
    }

    /// `  name      help…` with the help wrapped into its column (or below the name when it is too long).
    private static func entry(_ name: String, _ help: String, width: Int) -> [String] {
        let column = width >= 60 ? Self.column : 8
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
