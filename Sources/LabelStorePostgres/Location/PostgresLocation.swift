#if Postgres
import EventLog
import Foundation

/// Where a label history lives on a PostgreSQL server: a libpq connection
/// string, the schema holding the store's tables, and the list's name.
///
/// Two forms are accepted:
/// - a URL, `postgres://` or `postgresql://`, whose query names the list:
///   `postgres://app@db.example.com:5432/labels?list=inbox&sslmode=require`.
///   `list` (required) and `schema` (default `labelstore`) are this library's
///   parameters; every other parameter (`sslmode`, `sslrootcert`,
///   `connect_timeout`, `host=/path` for a Unix socket, …) is passed to libpq as it is.
/// - ``init(connection:list:schema:)`` with any libpq connection string (URL or
///   `key=value` pairs), e.g. `"host=/run/postgresql dbname=labels"`.
///
/// A secret is never shown: ``description`` and every error name the location
/// without any value libpq reads as a secret (`password`, `sslpassword`, …, in
/// whatever form libpq reads it: by libpq's own parse, `PQconninfoParse`). Use a `.pgpass` file or
/// `PGPASSWORD` to keep passwords out of command lines.
public struct PostgresLocation: Sendable, Hashable, CustomStringConvertible {
    /// The libpq connection string, without this library's parameters.
    public var connection: String
    /// The list's name: any non-empty UTF-8 text up to 200 bytes without NUL.
    public var list: String
    /// The schema holding the store's tables: any name of 1 to 63 bytes of
    /// UTF-8 without NUL, used as written (quoted in SQL, so `user`, `order` or
    /// `Team A` are names like any other, and case matters). Default `labelstore`.
    public var schema: String

    /// The schema used when none is given.
    public static let defaultSchema = "labelstore"

    /// A location from a libpq connection string and a list name.
    ///
    /// - Throws: `EventLogError.Code.invalidLocation` for an empty or over-long
    ///   list or schema name, or one with NUL.
    public init(connection: String, list: String, schema: String = PostgresLocation.defaultSchema) throws(EventLogError) {
        self.connection = connection
        self.list = list
        self.schema = schema
        try validate()
    }

    /// Parses a `postgres://` or `postgresql://` URL naming a list (`?list=NAME`).
    ///
    /// - Throws: `EventLogError.Code.invalidLocation` naming what is wrong (not a
    ///   PostgreSQL URL, no `list`, a bad schema); the password is never in it.
    public init(url: String) throws(EventLogError) {
        guard Self.isPostgresURL(url), var components = URLComponents(string: url) else {
            throw EventLogError(
                .invalidLocation,
                "'\(Self.shown(url))' is not a PostgreSQL URL (postgres://[user@]host[:port]/database?list=NAME)")
        }
        var list: String?
        var schema = Self.defaultSchema
        var rest: [URLQueryItem] = []
        for item in components.queryItems ?? [] {
            switch item.name {
            case "list": list = item.value
            case "schema": schema = item.value ?? ""
            default: rest.append(item)
            }
        }
        guard let list, !list.isEmpty else {
            let shown = Self.shown(url)
            throw EventLogError(
                .invalidLocation, "'\(shown)' names no list: add ?list=NAME (e.g. \(shown)\(shown.contains("?") ? "&" : "?")list=main)")
        }
        components.queryItems = rest.isEmpty ? nil : rest
        try self.init(connection: components.string ?? url, list: list, schema: schema)
    }

    /// Whether `text` starts with `postgres://` or `postgresql://` (case-insensitive).
    public static func isPostgresURL(_ text: String) -> Bool { PostgresURLText.isPostgresURL(text) }

    /// The location as a URL-like text without any secret, e.g.
    /// `postgres://app@db.example.com:5432/labels?list=inbox`
    /// (the connection string as libpq reads it, `PQconninfoParse`, secrets hidden).
    public var description: String {
        let text = Self.redact(connection)
        guard Self.isPostgresURL(text) else {
            var pairs = " list=" + Self.quotedValue(list)
            if schema != Self.defaultSchema { pairs += " schema=" + Self.quotedValue(schema) }
            return text + pairs
        }
        var allowed: CharacterSet = .urlQueryAllowed
        allowed.remove(charactersIn: "&=+#")
        var query = "list=" + (list.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")
        if schema != Self.defaultSchema { query += "&schema=" + (schema.addingPercentEncoding(withAllowedCharacters: allowed) ?? "") }
        return text + (text.contains("?") ? "&" : "?") + query
    }

    /// The display text of a URL naming a list (as ``init(url:)`` takes it),
    /// without any secret: the location's ``description``, or for a URL this
    /// library refuses, the URL's connection string redacted and its own parameters.
    package static func display(url text: String) -> String {
        if let location = try? PostgresLocation(url: text) { return location.description }
        return shown(text)
    }

    /// A URL as ``display(url:)`` shows it, without reading it as a location.
    private static func shown(_ text: String) -> String {
        let shown = redact(withoutOwnParameters(text))
        guard isPostgresURL(shown), let parts = PostgresURLText.parts(text) else { return PostgresURLText.withoutSecrets(text) }
        let ours = query(of: text, after: parts).filter { $0.keyword == "list" || $0.keyword == "schema" }.map(\.item)
        guard !ours.isEmpty else { return shown }
        return shown + (shown.contains("?") ? "&" : "?") + ours.joined(separator: "&")
    }

    /// `url` without this library's parameters (`list`, `schema`): the
    /// connection string libpq reads. The query is split as libpq splits it.
    package static func withoutOwnParameters(_ url: String) -> String {
        guard let parts = PostgresURLText.parts(url) else { return url }
        let rest = query(of: url, after: parts).filter { $0.keyword != "list" && $0.keyword != "schema" }.map(\.item)
        let head = String(url[..<parts.hostsAndPath.endIndex])
        return rest.isEmpty ? head : head + "?" + rest.joined(separator: "&")
    }

    /// The items of `url`'s query (after `parts`), each with its keyword percent-decoded.
    private static func query(of url: String, after parts: PostgresURLText.Parts) -> [(keyword: String, item: Substring)] {
        let after = url[parts.hostsAndPath.endIndex...]
        guard after.first == "?" else { return [] }
        return after.dropFirst().split(separator: "&").map { item in
            let keyword = String(item.prefix { $0 != "=" })
            return (keyword.removingPercentEncoding ?? keyword, item)
        }
    }

    private func validate() throws(EventLogError) {
        if list.isEmpty || list.utf8.count > 200 || list.utf8.contains(0) {
            throw EventLogError(
                .invalidLocation, "the list name '\(list)' must be 1 to 200 bytes of UTF-8 without NUL (it is \(list.utf8.count))")
        }
        // Any name PostgreSQL keeps whole: it is quoted wherever SQL names it (PostgresStatements.quoted).
        if schema.isEmpty || schema.utf8.count > 63 || schema.utf8.contains(0) {
            throw EventLogError(
                .invalidLocation,
                "the schema name '\(schema)' must be 1 to 63 bytes of UTF-8 without NUL (it is \(schema.utf8.count)); it is used as written, quoted"
            )
        }
    }
}
#endif
