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
/// A password is never shown: ``description`` and every error name the
/// location without it (use a `.pgpass` file or `PGPASSWORD` to keep it out
/// of command lines).
public struct PostgresLocation: Sendable, Hashable, CustomStringConvertible {
    /// The libpq connection string, without this library's parameters.
    public var connection: String
    /// The list's name: any non-empty UTF-8 text up to 200 bytes without NUL.
    public var list: String
    /// The schema holding the store's tables: a lowercase SQL identifier
    /// (`[a-z_][a-z0-9_]*`, at most 63 bytes). Default `labelstore`.
    public var schema: String

    /// The schema used when none is given.
    public static let defaultSchema = "labelstore"

    /// A location from a libpq connection string and a list name.
    ///
    /// - Throws: `EventLogError.Code.invalidLocation` for an empty or over-long
    ///   list name, a name with NUL, or a schema that is not a lowercase identifier.
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
                "'\(Self.redact(url))' is not a PostgreSQL URL (postgres://[user@]host[:port]/database?list=NAME)")
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
            throw EventLogError(
                .invalidLocation, "'\(Self.redact(url))' names no list: add ?list=NAME (e.g. \(Self.redact(url))?list=main)")
        }
        components.queryItems = rest.isEmpty ? nil : rest
        try self.init(connection: components.string ?? url, list: list, schema: schema)
    }

    /// Whether `text` starts with `postgres://` or `postgresql://` (case-insensitive).
    public static func isPostgresURL(_ text: String) -> Bool {
        let lower = text.prefix(16).lowercased()
        return lower.hasPrefix("postgres://") || lower.hasPrefix("postgresql://")
    }

    /// The location as a URL-like text without any password, e.g.
    /// `postgres://app@db.example.com:5432/labels?list=inbox`.
    public var description: String {
        var text = Self.redact(connection)
        if Self.isPostgresURL(text) {
            text += (text.contains("?") ? "&" : "?") + "list=\(list)"
        } else {
            text += " list=\(list)"
        }
        if schema != Self.defaultSchema { text += (Self.isPostgresURL(text) ? "&" : " ") + "schema=\(schema)" }
        return text
    }

    /// `connection` with any password removed (from a URL's user info, a
    /// `password` query parameter, or a `password=` pair).
    static func redact(_ connection: String) -> String {
        if isPostgresURL(connection), var components = URLComponents(string: connection) {
            if components.password != nil { components.password = nil }
            if let items = components.queryItems {
                components.queryItems = items.map { $0.name == "password" ? URLQueryItem(name: "password", value: "***") : $0 }
            }
            return components.string ?? "postgres://…"
        }
        if isPostgresURL(connection) { return "postgres://…" }
        // key=value pairs; a value may be quoted ('…', with \' and \\ escapes).
        var out = ""
        var rest = Substring(connection)
        while let range = rest.range(of: "password") {
            let before = rest[..<range.lowerBound]
            let boundary = before.last.map { $0 == " " || $0 == "\t" } ?? true
            var after = rest[range.upperBound...].drop { $0 == " " }
            guard boundary, after.first == "=" else {
                out += rest[..<range.upperBound]
                rest = rest[range.upperBound...]
                continue
            }
            out += before + "password=***"
            after = after.dropFirst().drop { $0 == " " }
            if after.first == "'" {
                var index = after.index(after: after.startIndex)
                while index < after.endIndex, after[index] != "'" {
                    if after[index] == "\\" { index = after.index(after: index) }
                    if index < after.endIndex { index = after.index(after: index) }
                }
                rest = index < after.endIndex ? after[after.index(after: index)...] : ""
            } else {
                rest = after.drop { $0 != " " && $0 != "\t" }
            }
        }
        return out + rest
    }

    private func validate() throws(EventLogError) {
        if list.isEmpty || list.utf8.count > 200 || list.utf8.contains(0) {
            throw EventLogError(
                .invalidLocation, "the list name '\(list)' must be 1 to 200 bytes of UTF-8 without NUL (it is \(list.utf8.count))")
        }
        let identifier =
            schema.utf8.count <= 63 && schema.utf8.first.map { $0 == UInt8(ascii: "_") || (97...122).contains($0) } == true
            && schema.utf8.allSatisfy { $0 == UInt8(ascii: "_") || (97...122).contains($0) || (48...57).contains($0) }
        if !identifier {
            throw EventLogError(
                .invalidLocation, "the schema name '\(schema)' must be a lowercase SQL identifier ([a-z_][a-z0-9_]*, at most 63 bytes)")
        }
    }
}
#endif
