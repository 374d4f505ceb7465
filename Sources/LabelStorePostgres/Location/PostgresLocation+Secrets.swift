#if Postgres
import CLibPQ
import Foundation

/// Showing a connection string without its secrets, by libpq's own reading of
/// it (`PQconninfoParse`): whatever libpq reads as the value of an option it
/// marks secret (`dispchar` `*`: `password`, `sslpassword`, …) is what is
/// hidden, whatever the form it was written in (a URL's user info or query,
/// percent-encoded, a quoted or backslash-escaped `key=value` pair, pairs
/// separated by newlines or tabs).
extension PostgresLocation {
    /// One option libpq read from a connection string.
    struct Option {
        var keyword: String
        var value: String
        /// Whether libpq marks it secret (`dispchar` `*`).
        var isSecret: Bool
    }

    /// The options libpq reads from `connection`, in libpq's order, or `nil`
    /// when libpq cannot read it. Defaults and the environment are not applied.
    static func options(_ connection: String) -> [Option]? {
        var message: UnsafeMutablePointer<CChar>?
        guard let parsed = PQconninfoParse(connection, &message) else {
            if let message { PQfreemem(message) }
            return nil
        }
        defer { PQconninfoFree(parsed) }
        var options: [Option] = []
        var option = parsed
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val {
                let display = option.pointee.dispchar.map { String(cString: $0) } ?? ""
                options.append(Option(keyword: String(cString: keyword), value: String(cString: value), isSecret: display == "*"))
            }
            option += 1
        }
        return options
    }

    /// The values of every secret option libpq reads from `connection` (for
    /// blanking them out of text a lower layer wrote).
    package static func secrets(in connection: String) -> [String] {
        var found = (options(connection) ?? []).filter(\.isSecret).map(\.value)
        if PostgresURLText.isPostgresURL(connection), let components = URLComponents(string: connection) {
            // The forms a URL holds them in as typed (percent-encoded).
            if let raw = components.percentEncodedPassword { found.append(raw) }
            found += (components.percentEncodedQueryItems ?? []).compactMap { $0.value }.filter { raw in
                found.contains { $0 == raw.removingPercentEncoding }
            }
        }
        return found.filter { !$0.isEmpty }
    }

    /// `connection` as libpq reads it, with every secret hidden: a URL is
    /// written again from libpq's options (`postgres://user@host:port/db?…`,
    /// a secret given in its query shown as `name=***`, a password in its user
    /// info left out), `key=value` pairs as pairs (`password=***`). The host,
    /// port, database and user come first, then the rest in libpq's order. A
    /// string libpq cannot read, or a URL libpq may read otherwise than it
    /// looks (a password with an unencoded `@` or `/`), is shown by
    /// ``PostgresURLText/withoutSecrets(_:)`` or as `(a connection string libpq cannot read)`.
    static func redact(_ connection: String) -> String {
        let isURL = PostgresURLText.isPostgresURL(connection)
        guard let options = options(connection), !(isURL && PostgresURLText.isAmbiguous(connection)) else {
            return isURL ? PostgresURLText.withoutSecrets(connection) : "(a connection string libpq cannot read)"
        }
        let first = ["host", "hostaddr", "port", "dbname", "user"]
        let ordered =
            first.compactMap { keyword in options.first { $0.keyword == keyword } }
            + options.filter { !first.contains($0.keyword) }
        // A port is numbers (a list of them): anything else is shown as a secret.
        let shown = ordered.map { option in
            var option = option
            if option.keyword == "port", !option.value.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ",") }) {
                option.isSecret = true
            }
            return option
        }
        return isURL
            ? url(connection, shown) : shown.map { "\($0.keyword)=" + ($0.isSecret ? "***" : quotedValue($0.value)) }.joined(separator: " ")
    }

    /// A `key=value` value, quoted when libpq needs it to be (`'…'`, with `\\` and `\'`).
    static func quotedValue(_ value: String) -> String {
        let plain = !value.isEmpty && !value.contains { $0.isWhitespace || $0 == "'" || $0 == "\\" }
        if plain { return value }
        return "'" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }

    /// The URL of `options` (read from `connection`), without secrets.
    private static func url(_ connection: String, _ options: [Option]) -> String {
        let scheme = PostgresURLText.parts(connection).map { String($0.scheme) } ?? "postgres"
        let value = { (keyword: String) in options.first { $0.keyword == keyword && !$0.isSecret }?.value }
        var userInfo: CharacterSet = .urlUserAllowed
        userInfo.remove(charactersIn: ":@")
        var queryValue: CharacterSet = .urlQueryAllowed
        queryValue.remove(charactersIn: "&=+#")
        var path: CharacterSet = .urlPathAllowed
        path.remove(charactersIn: "/?#")
        let encode = { (text: String, allowed: CharacterSet) in text.addingPercentEncoding(withAllowedCharacters: allowed) ?? "" }

        var text = scheme + "://"
        if let user = value("user") { text += encode(user, userInfo) + "@" }
        var inQuery: Set<String> = []
        // One host name (or IPv6 literal) goes in the authority; a socket path or a list, in the query.
        if let host = value("host"), !host.isEmpty, !host.contains(where: { "/,@?#%[] ".contains($0) }) {
            text += host.contains(":") ? "[\(host)]" : host
            if let port = value("port"), !port.contains(",") { text += ":" + port } else { inQuery.insert("port") }
        } else {
            inQuery.formUnion(["host", "port"])
        }
        text += "/" + encode(value("dbname") ?? "", path)
        // A secret given in the query shows as `name=***`; one in the user info only, not at all.
        let queried = Set(queryKeywords(connection))
        var query: [String] = []
        for option in options where !["user", "dbname", "host", "port"].contains(option.keyword) || inQuery.contains(option.keyword) {
            if option.isSecret {
                if queried.contains(option.keyword) { query.append(option.keyword + "=***") }
            } else {
                query.append(option.keyword + "=" + encode(option.value, queryValue))
            }
        }
        return query.isEmpty ? text : text + "?" + query.joined(separator: "&")
    }

    /// The keywords of a URL's query, percent-decoded, as libpq splits it (on `&`, then the first `=`).
    private static func queryKeywords(_ url: String) -> [String] {
        guard let parts = PostgresURLText.parts(url) else { return [] }
        let afterPath = url[parts.hostsAndPath.endIndex...]
        guard afterPath.first == "?" else { return [] }
        return afterPath.dropFirst().split(separator: "&").map { item in
            let keyword = item.prefix { $0 != "=" }
            return String(keyword).removingPercentEncoding ?? String(keyword)
        }
    }
}
#endif
