import EventLog
import Foundation

/// Colour for human-readable output on a terminal (SGR escape sequences):
/// event kinds, and old → new values. Chosen by `--color=auto|always|never`;
/// `auto` (the default) colours only when standard output is a terminal, the
/// terminal is not `dumb` and `NO_COLOR` is not set (https://no-color.org).
/// Colour is applied to text that is already escaped, after it is padded, so
/// it never changes column widths.
struct Style: Sendable {
    /// What a piece of text is.
    enum Role: Sendable {
        case added, renamed, toggled, removed, moved, reordered, rejected
        /// A value before a change.
        case old
        /// A value after a change.
        case new
        /// Column headers.
        case header
    }

    /// Whether colour is written at all.
    let enabled: Bool

    /// No colour.
    static let plain = Style(enabled: false)

    /// `text` in the colour of `role` (unchanged when colour is off or `text` is empty).
    func paint(_ text: String, _ role: Role) -> String {
        guard enabled, !text.isEmpty else { return text }
        let code =
            switch role {
            case .added: "32"
            case .renamed: "33"
            case .toggled: "36"
            case .removed: "31"
            case .moved: "34"
            case .reordered: "35"
            case .rejected: "1;31"
            case .old: "2"
            case .new: "1"
            case .header: "4"
            }
        return "\u{1B}[\(code)m\(text)\u{1B}[0m"
    }

    /// The role of an event kind.
    static func role(of kind: LabelEvent.Kind) -> Role {
        switch kind {
        case .added: .added
        case .renamed: .renamed
        case .toggled: .toggled
        case .removed: .removed
        case .moved: .moved
        case .reordered: .reordered
        case .rejected: .rejected
        }
    }

    /// The `--color` option every command with coloured output takes.
    static let option = ArgumentSpec.option(
        "color", value: "when", "Colour kinds and old → new values: auto (on a terminal, unless NO_COLOR is set), always or never.")

    /// The style `--color` asks for, given the console.
    static func resolve(_ arguments: ParsedArguments, console: Console) throws(UsageError) -> Style {
        let environment = ProcessInfo.processInfo.environment
        switch arguments.option("color") ?? "auto" {
        case "always": return Style(enabled: true)
        case "never": return .plain
        case "auto":
            let noColor = !(environment["NO_COLOR"] ?? "").isEmpty
            return Style(enabled: console.stdoutIsTerminal && !noColor && environment["TERM"] != "dumb")
        case let other:
            throw arguments.invalid(other, for: "color", expected: "auto, always or never")
        }
    }
}
