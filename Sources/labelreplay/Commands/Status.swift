import EventLog
import Foundation
import LabelProjection

/// `status MIRROR`: a synced log's pending edits and where it last synced.
enum Status: Command {
    static let spec = CommandSpec(
        name: "status",
        abstract: "Show a synced log's edits not yet on the server, and the last seq it synced.",
        discussion: """
            MIRROR is a log synced with 'labelreplay sync'. Prints the seq it holds of the server list (as of its last \
            sync), then each edit made on this device and not yet pushed, oldest first: its batch id (short), when it \
            was made, and what it does. A push that a crash or a lost connection left unsettled is named too: the \
            next sync settles it, never writing it twice.

            JSON (--json): {"mirror", "lastSeq", "pending": [{"batch", "madeAt", "actor", "command"}], \
            "openPush": {"group", "afterSeq", "commands"} (absent when none)}.
            """,
        arguments: [
            .positional("log", "The synced log file (the mirror)."),
            .flag("json", "Print one JSON object instead of text.")
        ],
        examples: ["status phone.labellog"])

    /// `status --json`.
    struct Shown: Encodable {
        struct Pending: Encodable {
            let batch: String
            let madeAt: String
            let actor: String?
            let command: String
        }
        struct OpenPush: Encodable {
            let group: String
            let afterSeq: UInt64
            let commands: Int
        }
        let mirror: String
        let lastSeq: UInt64
        let pending: [Pending]
        let openPush: OpenPush?
    }

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let path = try arguments.logPath()
        guard !LogLocation.isServer(path) else { throw UsageError("<log> must be a synced log file, not a server list") }
        guard FileManager.default.fileExists(atPath: SyncOutbox.path(forLogAt: path)) else {
            throw Failure(
                "\(path): not a synced log (no \(SyncOutbox.path(forLogAt: path)) beside it); 'labelreplay sync \(path) URL' syncs it")
        }
        // Read without the session's locks: an app or a 'sync --follow' may hold them.
        let (pending, openAttempt) = try SyncOutbox.read(path: SyncOutbox.path(forLogAt: path))
        let reader = try LogReader(path: path)
        try reader.skip(toSeq: .max)
        let shown = Shown(
            mirror: path, lastSeq: reader.nextSeq - 1,
            pending: pending.map {
                Shown.Pending(
                    batch: $0.batchID.uuidString.lowercased(), madeAt: $0.madeAt.iso8601, actor: $0.actor, command: $0.description)
            },
            openPush: openAttempt.map {
                Shown.OpenPush(group: $0.group.uuidString.lowercased(), afterSeq: $0.afterSeq, commands: $0.plan.count)
            })
        if arguments.flag("json") {
            console.line(try JSONLines().line(shown))
            return ExitStatus.success
        }
        console.line(
            Escape.text("\(path): synced through seq \(shown.lastSeq); \(pending.count) edit\(pending.count == 1 ? "" : "s") pending"))
        for edit in shown.pending {
            console.line(Escape.text("  \(edit.batch.prefix(8))  \(edit.madeAt)  \(edit.command)"))
        }
        if let push = shown.openPush {
            console.line(
                Escape.text(
                    "  a push of \(push.commands) edit\(push.commands == 1 ? "" : "s") after seq \(push.afterSeq) is unsettled (group \(push.group)): the next sync settles it"
                ))
        }
        return ExitStatus.success
    }
}
