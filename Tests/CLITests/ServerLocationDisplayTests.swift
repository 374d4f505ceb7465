import Foundation
import Testing

@testable import labelreplay

/// A server URL is shown without any secret in every form libpq reads one, in
/// a build with the Postgres trait (by libpq's own parse) and without it (by
/// the scheme and a plain host only).
@Suite struct ServerLocationDisplayTests {
    /// URLs holding the secret `hunter2`, in every form libpq reads it (or may).
    static let secretURLs = [
        "postgres://app:hunter2@db.example.com/labels?list=x",
        "postgres://app@db.example.com/labels?list=x&password=hunter2",
        "postgres://app@db.example.com/labels?list=x&sslpassword=hunter2",
        "postgresql://app@db.example.com/labels?sslpassword=hunter2&list=x&sslmode=require",
        "postgres://app@db.example.com/labels?list=x&pass%77ord=hunter2",
        "postgres://app:hunt%65r2@db.example.com/labels?list=x",
        "postgres://app@db.example.com/labels?list=x&password=hunt%65r2",
        "postgres://app:p@hunter2@db.example.com/labels?list=x",
        "postgres://app:hunter2/x@db.example.com/labels?list=x",
        "postgres://app:hunt?er2@db.example.com/labels?list=x",
        "postgres://app:hunter2@db.example.com/labels?list=x&password=hunter2",
        "POSTGRES://app:hunter2@db.example.com/labels?list=x"
    ]

    /// Whether `text` shows any part of the secret.
    func shows(_ text: String) -> Bool {
        text.contains("hunter2") || text.contains("hunt%65r2") || text.contains("unter") || text.contains("er2")
    }

    @Test func aServerURLsDisplayShowsNoSecretInAnyFormLibpqReads() {
        for url in Self.secretURLs {
            let shown = LogLocation.display(url)
            #expect(!shows(shown), "\(url) → \(shown)")
            #expect(shown.lowercased().hasPrefix("postgres"), "\(url) → \(shown)")
        }
    }

    @Test func withoutLibpqAURLShowsItsSchemeAndAPlainHostOnly() {
        for url in Self.secretURLs {
            let shown = LogLocation.displayWithoutLibPQ(url)
            #expect(!shows(shown), "\(url) → \(shown)")
        }
        #expect(LogLocation.displayWithoutLibPQ("postgres://db.example.com:5433/labels?list=x") == "postgres://db.example.com:5433/…")
        #expect(LogLocation.displayWithoutLibPQ("postgresql:///labels?host=/run/postgresql&list=x") == "postgresql://…")
        #expect(LogLocation.displayWithoutLibPQ("postgres://app@db.example.com/labels?list=x") == "postgres://db.example.com/…")
        #expect(LogLocation.displayWithoutLibPQ("postgres://app:hunter2/x?list=x") == "postgres://…")
    }

    @Test func fileOnlyCommandsShowNoSecretOfAServerURL() async throws {
        for url in Self.secretURLs {
            let result = try await CLI.run(["repair", url])
            #expect(result.status == 64, "\(result)")
            #expect(!shows(result.stderr) && !shows(result.stdout), "\(url): \(result)")
        }
    }
}
