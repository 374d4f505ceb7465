import EventLog

/// Shell completion scripts (`labelreplay --generate-completion-script bash|zsh|fish`),
/// generated from the commands' specs: commands, options, option values
/// (kinds, `--color` values), log paths, and label ids, which the script asks
/// the tool for through the hidden `__complete ids LOG PREFIX` command.
enum CompletionScript {
    /// The shells with a script.
    static let shells = ["bash", "zsh", "fish"]

    /// What a word is, for completing it.
    enum Value: String {
        /// A label log file.
        case log
        /// Any file.
        case file
        /// A label id (or prefix) of the log given first.
        case id
        /// An event kind.
        case kind
        /// `auto`, `always`, `never`.
        case color
        /// A command name.
        case command
        /// Free text: nothing to offer.
        case none
    }

    /// The script for `shell`, or `nil` for a shell without one.
    static func script(for shell: String) -> String? {
        switch shell {
        case "bash": bash()
        case "zsh": zsh()
        case "fish": fish()
        default: nil
        }
    }

    /// The commands a user sees.
    static var commands: [CommandSpec] { Tool.commands.map { $0.spec }.filter { !$0.hidden } }

    /// The event kinds, for `--kind`.
    static var kinds: [String] { LabelEvent.Kind.allCases.map(\.rawValue) }

    /// What the value of `argument` is.
    static func value(of argument: ArgumentSpec) -> Value {
        switch argument.kind {
        case .positional:
            switch argument.name {
            case "log": return .log
            case "file", "source", "destination", "location": return .file  // a path, or a postgres:// URL typed out
            case "id": return .id
            case "command": return .command
            default: return .none
            }
        case .option(let value, _):
            if argument.name == "kind" { return .kind }
            if argument.name == "color" { return .color }
            if value == "id" { return .id }
            if value == "path" { return .file }
            return .none
        case .flag:
            return .none
        }
    }

    /// `help` text safe inside single quotes (and, without colons, in zsh's `[...]` descriptions).
    static func plain(_ text: String, keepColons: Bool = false) -> String {
        String(text.map { "[]'\"`$\\".contains($0) || (!keepColons && $0 == ":") ? " " : $0 })
    }
}
