import EventLog
import Foundation
import LabelProjection

#if Postgres
import LabelStorePostgres
#endif

/// `upgrade URL`: migrates a server's label store schema to the version this
/// build writes, in place, in one transaction. `upgrade FILE`: rewrites a log
/// file in log format 4 (batch frames).
enum Upgrade: Command {
    static let spec = CommandSpec(
        name: "upgrade",
        abstract:
            "Migrate a PostgreSQL server's label store schema to the version this build writes, or rewrite a log file in log format 4.",
        discussion: """
            Lists of an older schema version are read, with a warning, but not written. 'upgrade' migrates the whole \
            schema the URL names (every list in it): each record is decoded and checked, seqs gapless up to each list's \
            head row, then given its keyed, chained checksum (schema version 2), and each head row its chain value; \
            from version 4 no table changes, and each head row, the list's end until then, becomes its committed \
            length, which appends move only now and then (version 5); the checkpoints gain a column for the history \
            tree's frontier, which hosts write with each checkpoint and synced devices check (version 6); a table keeps the batch ids of the rows a cut removes, by which a \
            syncing device settles a push a crash left open (version 7); the checkpoints gain a column that makes one a \
            delta on an earlier one, so hosts keep chains of small checkpoints (version 8); the version \
            is set last. Stop the hosts of the \
            older build first. It is one transaction holding the schema's tables locked, so no host writes \
            meanwhile, and a cut leaves the old version as it was: run it again. A damaged list (a missing or altered \
            row) stops it with the list and seq, and nothing changes. A schema already current is left as it is.

            A log file is read and appended in its own format version, so it needs no upgrade; 'upgrade FILE' \
            rewrites one in log format 4 (batch frames: records coded against the others of their write, about 40 % \
            of the bytes of format 2, read about 0.7 times as fast): the same log id, base and records, so the same \
            history and heads, checked by reading the new file back before it is renamed over the old one (a crash \
            leaves one or the other). The caches beside it that name its frames (index, tree, checkpoints, \
            snapshots, sync mark) are removed; the next command writes them again. No writer may have it open. An \
            archive is never upgraded (the log cut from it continues its last chained checksum): a file a log \
            beside it names as its archive is refused. A log in format 4 already is left as it is.

            JSON (--json): {"location", "schema", "fromVersion", "toVersion", "changed", "lists", "records"}; for a \
            file {"location", "kind": "file", "fromVersion", "toVersion", "changed", "records", "bytesBefore", \
            "bytesAfter", "head"}.
            """,
        arguments: [
            .positional(
                "location", "A postgres:// URL naming a list (?list=NAME) of the schema to upgrade (&schema=S), or a log file to rewrite."),
            .flag("json", "Print one JSON object instead of text.")
        ],
        examples: [
            "upgrade 'postgres://app@db.example.com/labels?list=inbox'",
            "upgrade 'postgresql:///labels?host=/run/postgresql&list=inbox&schema=team' --json",
            "upgrade labels.labellog"
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

    /// `upgrade FILE --json`.
    struct FileResult: Encodable {
        let location: String
        let kind = "file"
        let fromVersion: UInt16
        let toVersion: UInt16
        let changed: Bool
        let records: UInt64
        let bytesBefore: Int64
        let bytesAfter: Int64
        let head: String
    }

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let text = try arguments.logPath("location")
        guard case .server(let url, let display) = LogLocation.resolve(text) else {
            return try upgradeFile(text, json: arguments.flag("json"), console: console)
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

    /// `upgrade FILE`: the log rewritten in format 4 (``LabelStore/upgradeLog(path:progress:)``).
    private static func upgradeFile(_ path: String, json: Bool, console: Console) throws -> Int32 {
        guard FileManager.default.fileExists(atPath: path) else { throw Failure("\(path): no such file") }
        _ = try Replay.openReader(path)  // refuses a file that is not a label log, naming what it is
        let progress = Progress("rewriting \(path) in log format \(LogFormat.batchVersion)", total: nil, unit: "records", console: console)
        let report = try LabelStore.upgradeLog(path: path) { done in progress.update(Int64(done)) }
        progress.finish()
        if json {
            console.line(
                try JSONLines().line(
                    FileResult(
                        location: path, fromVersion: report.fromVersion, toVersion: report.toVersion, changed: report.changed,
                        records: report.records, bytesBefore: report.bytesBefore, bytesAfter: report.bytesAfter,
                        head: report.head.description)))
        } else if report.changed {
            let share = report.bytesBefore > 0 ? Double(report.bytesAfter) / Double(report.bytesBefore) * 100 : 100
            console.line(
                Escape.text(
                    "upgraded \(path) from log format \(report.fromVersion) to \(report.toVersion): \(report.records) records, \(report.bytesBefore) → \(report.bytesAfter) bytes (\(Int(share.rounded())) %); the same history (head \(report.head))"
                ))
        } else {
            console.line(Escape.text("\(path) is in log format \(report.toVersion) already; nothing changed"))
        }
        return ExitStatus.success
    }
}
