import Foundation

/// A `postgres://` URL read as text, the way libpq splits it, for showing one
/// without its secrets. Compiled with or without the `Postgres` trait: a build
/// without libpq still shows a URL (in the error that refuses it), and then
/// shows only what cannot be a secret (``withoutSecrets(_:)``).
package enum PostgresURLText {
    /// Whether `text` starts with `postgres://` or `postgresql://` (case-insensitive).
    package static func isPostgresURL(_ text: String) -> Bool {
        let lower = text.prefix(16).lowercased()
        return lower.hasPrefix("postgres://") || lower.hasPrefix("postgresql://")
    }

    /// The parts of a URL as libpq reads them: the scheme (as written), the
    /// user info (up to the first `@`, when an `@` comes before any `/`), and
    /// the host list with its ports and the path (up to the first `?` after them).
    struct Parts {
        var scheme: Substring
        var userInfo: Substring?
        var hostsAndPath: Substring
    }

    /// `text` split as libpq splits it, or `nil` when it is not a PostgreSQL URL.
    static func parts(_ text: String) -> Parts? {
        guard isPostgresURL(text), let separator = text.range(of: "://") else { return nil }
        let scheme = text[..<separator.lowerBound]
        var rest = text[separator.upperBound...]
        // libpq: the user info ends at the first '@', if one comes before any '/'.
        var userInfo: Substring?
        if let end = rest.firstIndex(where: { $0 == "@" || $0 == "/" }), rest[end] == "@" {
            userInfo = rest[..<end]
            rest = rest[rest.index(after: end)...]
        }
        let hostsAndPath = rest.prefix { $0 != "?" }
        return Parts(scheme: scheme, userInfo: userInfo, hostsAndPath: hostsAndPath)
    }

    /// Whether libpq may read a part of what the writer meant as a password as
    /// a host, port or database: an `@` after the user info and before the
    /// query (a password holding an unencoded `@` or `/`). Such a URL is shown
    /// by its scheme only.
    static func isAmbiguous(_ text: String) -> Bool {
        guard let parts = parts(text) else { return true }
        return parts.hostsAndPath.contains("@")
    }

    /// `text` shown without parsing it as libpq would: the scheme, and the host
    /// and port when they are one plain host name (letters, digits, `.`, `-`,
    /// an IPv6 literal in brackets) and a numeric port, e.g.
    /// `postgres://db.example.com:5432/…`; else `postgres://…`. The user, the
    /// database and every parameter are left out: without libpq nothing tells
    /// which of them libpq would read as a secret.
    package static func withoutSecrets(_ text: String) -> String {
        guard let parts = parts(text) else { return "…" }
        let scheme = String(parts.scheme)
        guard !isAmbiguous(text) else { return scheme + "://…" }
        let netloc = parts.hostsAndPath.prefix { $0 != "/" }
        var host = netloc
        var port: Substring = ""
        if let colon = netloc.lastIndex(of: ":"), !netloc[colon...].contains("]") {
            host = netloc[..<colon]
            port = netloc[netloc.index(after: colon)...]
        }
        let plainHost =
            !host.isEmpty
            && (host.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }
                || (host.first == "[" && host.last == "]"
                    && host.dropFirst().dropLast().allSatisfy { $0.isASCII && ($0.isHexDigit || $0 == ":" || $0 == ".") }))
        let plainPort = port.isEmpty ? !netloc.hasSuffix(":") : port.allSatisfy { $0.isASCII && $0.isNumber }
        guard plainHost, plainPort else { return scheme + "://…" }
        return scheme + "://" + netloc + "/…"
    }
}
