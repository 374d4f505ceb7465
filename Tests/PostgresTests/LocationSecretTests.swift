#if Postgres
import EventLog
import Foundation
import LabelStorePostgres
import LabelStoreTestSupport
import Testing

/// Every form in which libpq reads a secret (a password in a URL's user info or
/// query, `sslpassword`, a `key=value` pair quoted, escaped, or after a newline
/// or tab) is hidden from a location's description and from its errors.
@Suite struct LocationSecretTests {
    /// URLs (with `list`) holding the secret `s3cr3t` (or the words `s3 cr3t`).
    static let urls = [
        "postgres://app:s3cr3t@db.example.com:5433/labels?list=inbox",
        "postgresql://app@db.example.com/labels?password=s3cr3t&list=inbox",
        "postgres://app@db.example.com/labels?sslpassword=s3cr3t&list=inbox&sslmode=require",
        "postgres://app:s%33cr%33t@db.example.com/labels?list=inbox",
        "postgres://app@db.example.com/labels?list=inbox&password=s%33cr%33t",
        "postgres://app@db.example.com/labels?list=inbox&pass%77ord=s3cr3t",
        "postgres://app:s3cr3t@db.example.com/labels?list=inbox&password=s3cr3t"
    ]

    /// `key=value` connection strings holding the secret `s3cr3t` (or `s3 cr3t`).
    static let keyValues = [
        "host=db.example.com password=s3cr3t dbname=labels",
        "host=db.example.com password = s3cr3t",
        "host=db.example.com password='s3 cr3t' dbname=labels",
        "host=db.example.com password='s3\\'cr3t'",
        "host=db.example.com password=s3\\ cr3t dbname=labels",
        "host=db.example.com\npassword=s3cr3t",
        "host=db.example.com\tpassword=s3cr3t",
        "host=db.example.com\r\npassword=s3cr3t\ndbname=labels",
        "sslpassword=s3cr3t host=db.example.com",
        "host=db.example.com sslpassword='s3 cr3t'"
    ]

    /// Whether `text` shows any part of the secret.
    func shows(_ text: String) -> Bool {
        text.contains("s3cr3t") || text.contains("cr3t") || text.contains("s%33") || text.contains("s3 ") || text.contains("s3\\")
    }

    @Test func aURLsDescriptionShowsNoSecretInAnyFormLibpqReads() throws {
        for url in Self.urls {
            let location = try PostgresLocation(url: url)
            #expect(!shows(location.description), "\(url) → \(location.description)")
            #expect(location.description.contains("db.example.com") && location.description.contains("list=inbox"), "\(location)")
        }
    }

    @Test func aKeyValueDescriptionShowsNoSecretInAnyFormLibpqReads() throws {
        for text in Self.keyValues {
            let location = try PostgresLocation(connection: text, list: "inbox")
            #expect(!shows(location.description), "\(text.debugDescription) → \(location.description.debugDescription)")
            #expect(location.description.contains("db.example.com") && location.description.contains("list=inbox"), "\(location)")
            #expect(location.description.contains("password=***"), "\(location.description)")
        }
    }

    @Test func theDescriptionStillNamesTheServerDatabaseAndOptions() throws {
        let url = try PostgresLocation(url: "postgres://app:s3cr3t@db.example.com:5433/labels?list=inbox&sslmode=require")
        #expect(url.description == "postgres://app@db.example.com:5433/labels?sslmode=require&list=inbox")
        let socket = try PostgresLocation(url: "postgresql:///labels?host=/run/postgresql&list=inbox&schema=team")
        #expect(socket.description == "postgresql:///labels?host=/run/postgresql&list=inbox&schema=team")
        let pairs = try PostgresLocation(connection: "host=/run/postgresql dbname='my labels' password=s3cr3t", list: "inbox")
        #expect(pairs.description == "host=/run/postgresql dbname='my labels' password=*** list=inbox")
    }

    @Test func errorsOfLocationsWithSecretsShowNone() throws {
        let unreachable = [
            "host=/tmp/no-such-server-dir connect_timeout=2 password='s3 cr3t'",
            "host=/tmp/no-such-server-dir connect_timeout=2\npassword=s3cr3t",
            "host=/tmp/no-such-server-dir connect_timeout=2 sslpassword=s3cr3t",
            "postgresql:///postgres?host=/tmp/no-such-server-dir&connect_timeout=2&sslpassword=s3cr3t"
        ]
        for text in unreachable {
            let location = try PostgresLocation(connection: text, list: "x")
            let error = #expect(throws: EventLogError.self) { try PostgresEventLog(location: location) }
            #expect(error.map { !shows($0.description) } == true, "\(String(describing: error))")
        }
        let noList = #expect(throws: EventLogError.self) {
            try PostgresLocation(url: "postgres://app@db.example.com/labels?sslpassword=s3cr3t")
        }
        #expect(noList.map { !shows($0.description) } == true, "\(String(describing: noList))")
    }
}
#endif
