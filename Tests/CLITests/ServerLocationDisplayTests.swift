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

    @Test func aKeyValueConnectionStringIsRefusedWithoutShowingItsValues() async throws {
        let conninfo = "host=db.example.com dbname=labels user=app password=hunter2 list=x"
        for arguments in [["show", conninfo], ["log", conninfo], ["copy", conninfo, "/tmp/never-written.log"], ["repair", conninfo]] {
            let result = try await CLI.run(arguments)
            #expect(result.status == 64, "\(arguments): \(result)")
            #expect(!shows(result.stderr) && !shows(result.stdout), "\(arguments): \(result)")
            #expect(!result.stderr.contains("db.example.com"), "\(result)")
            #expect(result.stderr.contains("password=…") && result.stderr.contains("postgres://USER@HOST/DB?list=NAME"), "\(result)")
        }
        #expect(LogLocation.connectionStringKeywords("host=a password=b") == ["host", "password"])
        #expect(LogLocation.connectionStringKeywords("labels.log") == nil)
        #expect(LogLocation.connectionStringKeywords("notes=1.log") == nil)
        #expect(LogLocation.connectionStringKeywords("host=a ./b.log") == nil)
    }

    @Test func aFileNamedLikeAConnectionStringIsStillAFile() async throws {
        let directory = try Scratch()
        let here = directory.url
        let refused = try await CLI.run(["init", "host=a"], in: here)
        #expect(refused.status == 64 && refused.stderr.contains("./host=…"), "\(refused)")
        let created = try await CLI.run(["init", "./host=a"], in: here)
        #expect(created.status == 0, "\(created)")
        let shown = try await CLI.run(["show", "host=a"], in: here)
        #expect(shown.status == 0, "\(shown)")
    }
}
