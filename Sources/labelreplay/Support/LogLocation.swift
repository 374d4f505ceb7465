import Foundation
import Synchronization

/// What a `LOG` argument names: a log file, or a list on a PostgreSQL server
/// (`postgres://…?list=NAME`, `postgresql://…`).
///
/// Commands print a location by its *display* text: a path as given, a URL
/// without its password. ``ParsedArguments/logPath(_:)`` hands commands the
/// display text and notes the URL as given (password included) here, so the
/// code that opens the list finds it while every message a command words with
/// the text it holds shows no password.
enum LogLocation: Equatable {
    /// A log file at this path.
    case file(String)
    /// A list on a PostgreSQL server: the URL as given (with any password) and its display text.
    case server(url: String, display: String)

    /// Whether `text` is a PostgreSQL URL (`postgres://` or `postgresql://`, any case).
    static func isServer(_ text: String) -> Bool {
        let lower = text.prefix(16).lowercased()
        return lower.hasPrefix("postgres://") || lower.hasPrefix("postgresql://")
    }

    /// Whether this labelreplay was built with the `Postgres` trait.
    static var serverSupport: Bool {
        #if Postgres
        true
        #else
        false
        #endif
    }

    /// The location `text` names: a URL (as given, or the display text of one
    /// noted by ``note(_:)``), or a file path.
    static func resolve(_ text: String) -> LogLocation {
        guard isServer(text) else { return .file(text) }
        let url = noted.withLock { $0[text] } ?? text
        return .server(url: url, display: display(url))
    }

    /// The text shown for `text`: a path as it is, a URL without its password.
    static func display(_ text: String) -> String {
        guard isServer(text) else { return text }
        guard var components = URLComponents(string: text) else { return String(text.prefix(while: { $0 != ":" })) + "://…" }
        if components.password != nil { components.password = nil }
        if let items = components.queryItems, items.contains(where: { $0.name.lowercased() == "password" }) {
            components.queryItems = items.map { $0.name.lowercased() == "password" ? URLQueryItem(name: $0.name, value: "***") : $0 }
        }
        return components.string ?? String(text.prefix(while: { $0 != ":" })) + "://…"
    }

    /// Notes the URL `text` (when it is one) and returns its display text.
    /// Without PostgreSQL support a URL is refused here (``notBuilt(_:)``).
    static func note(_ text: String) throws -> String {
        guard isServer(text) else { return text }
        guard serverSupport else { throw notBuilt(text) }
        let shown = display(text)
        noted.withLock { $0[shown] = text }
        Secrets.note(url: text)
        return shown
    }

    /// The refusal of a server location by a build without the `Postgres` trait.
    static func notBuilt(_ text: String) -> Failure {
        Failure(
            "\(display(text)): this \(Tool.name) was built without PostgreSQL support, so it cannot open a server list; build it with the Postgres trait: 'swift build --traits Postgres' (or 'swift run --traits Postgres \(Tool.name) …'; it needs libpq: apt-get install libpq-dev, brew install libpq)"
        )
    }

    /// The display text of the location.
    var display: String {
        switch self {
        case .file(let path): path
        case .server(_, let display): display
        }
    }

    private static let noted = Mutex<[String: String]>([:])
}

/// The passwords of the URLs this run was given, so that no message shows
/// them even if a lower layer words one into its text (``scrub(_:)``).
enum Secrets {
    private static let passwords = Mutex<Set<String>>([])

    /// Notes the password of `url` (user info or `password=` parameter), if it has one.
    static func note(url: String) {
        guard let components = URLComponents(string: url) else { return }
        var found: [String] = []
        if let password = components.password { found.append(password) }
        if let raw = components.percentEncodedPassword { found.append(raw) }
        for item in components.queryItems ?? [] where item.name.lowercased() == "password" {
            if let value = item.value { found.append(value) }
        }
        // A very short password would blank out ordinary words; it still never
        // reaches a message through this tool's own texts, which show display texts.
        passwords.withLock { $0.formUnion(found.filter { $0.count >= 4 }) }
    }

    /// `text` with every noted password replaced by `***`.
    static func scrub(_ text: String) -> String {
        let known = passwords.withLock { $0 }
        guard !known.isEmpty else { return text }
        var text = text
        for password in known.sorted(by: { $0.count > $1.count }) where text.contains(password) {
            text = text.replacingOccurrences(of: password, with: "***")
        }
        return text
    }
}
