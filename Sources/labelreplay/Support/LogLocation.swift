import Foundation
import LabelStorePostgres
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

    /// The text shown for `text`: a path as it is, a URL without any secret.
    /// With the `Postgres` trait, a URL is read by libpq and shown without any
    /// value libpq reads as a secret (`PostgresLocation.display(url:)`);
    /// without it, by its scheme and a plain host only (``displayWithoutLibPQ(_:)``).
    static func display(_ text: String) -> String {
        guard isServer(text) else { return text }
        #if Postgres
        return PostgresLocation.display(url: text)
        #else
        return displayWithoutLibPQ(text)
        #endif
    }

    /// A URL as a build without libpq shows it: `postgres://host:port/…`, or
    /// `postgres://…` when the host is not one plain name (nothing tells, without
    /// libpq, which other part libpq would read as a secret).
    static func displayWithoutLibPQ(_ text: String) -> String {
        PostgresURLText.withoutSecrets(text)
    }

    /// Notes the URL `text` (when it is one) and returns its display text.
    /// Without PostgreSQL support a URL is refused here (``notBuilt(_:)``).
    static func note(_ text: String) throws -> String {
        guard isServer(text) else {
            if let keywords = connectionStringKeywords(text), !FileManager.default.fileExists(atPath: text) {
                throw connectionStringRefusal(keywords)
            }
            return text
        }
        guard serverSupport else { throw notBuilt(text) }
        let shown = display(text)
        noted.withLock { $0[shown] = text }
        Secrets.note(url: text)
        return shown
    }

    /// The keywords of `text` when it reads as a libpq key=value connection
    /// string (`host=db password=… list=x`): every word is `keyword=value` and
    /// the first keyword is one libpq knows (or the `list`/`schema` this tool
    /// reads); nil otherwise.
    static func connectionStringKeywords(_ text: String) -> [String]? {
        let words = text.split(whereSeparator: \.isWhitespace)
        guard !words.isEmpty else { return nil }
        var keywords: [String] = []
        for word in words {
            guard let equals = word.firstIndex(of: "="), equals != word.startIndex else { return nil }
            let keyword = word[..<equals].lowercased()
            guard keyword.allSatisfy({ $0.isLetter || $0 == "_" }) else { return nil }
            keywords.append(keyword)
        }
        return connectionKeywords.contains(keywords[0]) ? keywords : nil
    }

    /// The keywords a connection string starts with that make it read as one.
    private static let connectionKeywords: Set<String> = [
        "host", "hostaddr", "port", "dbname", "user", "password", "passfile", "service", "sslmode",
        "sslpassword", "connect_timeout", "application_name", "target_session_attrs", "options", "list", "schema"
    ]

    /// The refusal of a key=value connection string: it names the keywords
    /// only (a value may be a password) and shows the URL form to use.
    static func connectionStringRefusal(_ keywords: [String]) -> UsageError {
        let shown = keywords.map { "\($0)=…" }.joined(separator: " ")
        return UsageError(
            "'\(shown)' reads as a key=value connection string, and no file has that name; \(Tool.name) takes a server list as a URL: "
                + "postgres://USER@HOST/DB?list=NAME (other parameters go in its query: postgresql:///DB?host=/run/postgresql&list=NAME); "
                + "a new file of that name is './\(shown)'"
        )
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

    /// Notes the secrets of `url`: with the `Postgres` trait every value libpq
    /// reads as a secret (`password`, `sslpassword`, …, decoded and as typed);
    /// without it, the user info's password and the query's values.
    static func note(url: String) {
        var found: [String] = []
        #if Postgres
        found = PostgresLocation.secrets(in: PostgresLocation.withoutOwnParameters(url))
        #else
        if let components = URLComponents(string: url) {
            if let password = components.password { found.append(password) }
            if let raw = components.percentEncodedPassword { found.append(raw) }
            for item in components.queryItems ?? [] where item.name.lowercased().contains("password") {
                if let value = item.value { found.append(value) }
            }
        }
        #endif
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
