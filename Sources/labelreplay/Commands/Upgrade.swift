import EventLog
import Foundation

#if Postgres
import LabelStorePostgres
#endif

/// `upgrade URL`: migrates a server's label store schema to the version this
/// build writes, in place, in one transaction.
enum Upgrade: Command {
    static let spec = CommandSpec(
        name: "upgrade",
        abstract: "Migrate a PostgreSQL server's label store schema to the version this build writes, in place.",
        discussion: """
            Lists of an older schema version are read, with a warning, but not written. 'upgrade' migrates the whole \
            schema the URL names (every list in it): each record is decoded and checked, seqs gapless up to each list's \
            head row, then given its keyed, chained checksum (schema version 2), and each head row its chain value; \
            from version 4 no table changes, and each head row, the list's end until then, becomes its committed \
            length, which appends move only now and then (version 5); the checkpoints gain a column for the history \
            tree's frontier, which hosts write with each checkpoint and synced devices check (version 6); a table keeps the batch ids of the rows a cut removes, by which a \
            syncing device settles a push a crash left open (version 7); the version \
            is set last. Stop the hosts of the \
            older build first. It is one transaction holding the schema's tables locked, so no host writes \
            meanwhile, and a cut leaves the old version as it was: run it again. A damaged list (a missing or altered \
            row) stops it with the list and seq, and nothing changes. A schema already current is left as it is.

            Log files need no upgrade: each is read and appended in its own format version.

            JSON (--json): {"location", "schema", "fromVersion", "toVersion", "changed", "lists", "records"}.
            """,
        arguments: [
            .positional("location", "A postgres:// URL naming a list (?list=NAME) of the schema to upgrade (&schema=S)."),
            .flag("json", "Print one JSON object instead of text.")
        ],
        examples: [
            "upgrade 'postgres://app@db.example.com/labels?list=inbox'",
            "upgrade 'postgresql:///labels?host=/run/postgresql&list=inbox&schema=team' --json"
        ])

    /// `upgrade --json`.
    struct Result: Encodable {
        let location: String
        let schema: String
        let fromVersion: Int
        let toVersion: Int
        let changed: Bool
        let lists: Int
        let records: Int
    }

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let text = try arguments.logPath("location")
        guard case .server(let url, let display) = LogLocation.resolve(text) else {
            throw Failure(
                "\(text): upgrade migrates a server's schema; a log file needs none (it is read and appended in its own format version)")
        }
        #if Postgres
        let location = try PostgresLocation(url: url)
        let progress = Progress("upgrading schema '\(location.schema)'", total: nil, unit: "records", console: console)
        let report = try PostgresEventLog.upgrade(location) { list, done in
            progress.update(Int64(done), detail: "list '\(list)'")
        }
        progress.finish()
        let result = Result(
            location: display, schema: location.schema, fromVersion: report.fromVersion, toVersion: report.toVersion,
            changed: report.changed, lists: report.lists, records: report.records)
        if arguments.flag("json") {
            console.line(try JSONLines().line(result))
        } else if report.changed {
            console.line(
                Escape.text(
                    "upgraded schema '\(location.schema)' at \(display) from version \(report.fromVersion) to \(report.toVersion): \(report.lists) lists, \(report.records) records checked and given their chained checksums"
                ))
        } else {
            console.line(
                Escape.text("schema '\(location.schema)' at \(display) is already at version \(report.toVersion); nothing changed"))
        }
        return ExitStatus.success
        #else
        _ = display
        throw LogLocation.notBuilt(url)
        #endif
    }
}
