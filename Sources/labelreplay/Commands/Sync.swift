import EventLog
import Foundation
import LabelProjection

/// `sync MIRROR URL [--follow]`: joins a device's log to a server list — pulls
/// the list into the mirror, pushes the edits made offline, each decided on
/// the list as it is when it arrives.
enum Sync: Command {
    static let spec = CommandSpec(
        name: "sync",
        abstract: "Sync a device's log with a server list: pull what is new, push the edits made offline.",
        discussion: """
            MIRROR is the device's log: a mirror of the server list's records (created if missing), with its outbox \
            beside it (MIRROR.outbox: the edits made on this device and not yet on the server). Once a log is synced, \
            the write commands ('add', 'rename', 'toggle', …) on it keep their edits in the outbox, synced to disk \
            before they return ('status' lists them); only 'sync' writes to the mirror itself.

            A sync pulls the list's new records, then pushes the pending edits in order, each decided on the server \
            list as it is when it arrives, per property: a rename of a label another device toggled applies; an edit \
            of a label another device removed is refused ("Edit skipped: label was removed."); a rename of a title \
            another device changed since this one read it is refused ("Edit skipped: title was changed on another \
            device."); a move lands after the label it followed here. Every refusal is recorded on the server as a \
            'rejected' record ('log URL --kind rejected' audits them). A sync cut short (the server unreachable, the \
            process killed) loses nothing and doubles nothing: the next one settles it by its batch id.

            Each round proves the server's history before it pushes: every history tree head the list keeps with \
            a checkpoint, among the seqs the mirror holds, must be the head of the mirror's records, by a consistency \
            proof from the head proven before (a session's first round proves the mirror from its start). A head that \
            is not stops the round, nothing pushed: the server's records were rewritten after this device pulled \
            them (historyDiverged, naming the head's seq and the one proven before).

            --follow keeps syncing until interrupted: after each round it waits for the list's notifications (or 1 s) \
            and syncs again, releasing the mirror and the outbox between rounds so the write commands can add edits; \
            it reports the first round and each one that pulled or pushed something. Ctrl-C ends it after the round \
            under way, with exit status 0.

            A mirror that a cut of the list overtook (the records after its last seq were archived or dropped since it \
            last synced) is set aside as MIRROR.overtaken-<time> with its history files, and a new mirror is started \
            from the list's base; the outbox is kept and its edits are pushed. Only when a push left open by a crash \
            cannot be settled after such a cut (a cut made before schema 7 kept no batch ids) does the round fail \
            instead (archived), with the edits kept; compare them with the archive's records after the seq it names, \
            then sync again with --open-push committed (they are there: nothing is sent) or --open-push \
            not-committed (they are not: they are decided again and sent).

            Text: what was pulled and pushed, the mirror set aside (if it was), the server head proven (once one is), \
            then one line per refused edit. JSON (--json), one object per round: \
            {"mirror", "server", "pulled", "pushed", "applied", "satisfied", "refused", "lastSeq", "pending", "provenHead" \
            ({"seq", "hash"}; absent until one is proven), "setAside" (the old mirror's new path; absent unless set aside), \
            "refusals": [{"batch", "command", "reason", "seq"}], "done": [{"batch", "outcome" ("applied", \
            "satisfied" or "refused"), "seq" (the first record's, or the refusal's; absent when satisfied)}]}.
            """,
        arguments: [
            .positional("mirror", "The device's log file (created if missing)."),
            .positional("url", "The server list: a postgres:// URL naming a list."),
            .option(
                "open-push", value: "committed|not-committed",
                "Settle a push left open before a cut that kept no batch ids, as you found it (see the error that asks for it)."),
            .flag("follow", "Keep syncing until interrupted."),
            .flag("json", "Print one JSON object per round instead of text.")
        ],
        examples: [
            "sync phone.labellog 'postgres://app@db.example.com/labels?list=inbox'",
            "sync laptop.labellog 'postgres://app@db.example.com/labels?list=inbox' --follow"
        ])

    /// `sync --json`.
    struct Round: Encodable {
        struct Refusal: Encodable {
            let batch: String
            let command: String
            let reason: String
            let seq: UInt64
        }
        let mirror: String
        let server: String
        let pulled: Int
        let pushed: Int
        let applied: Int
        let satisfied: Int
        let refused: Int
        let lastSeq: UInt64
        let pending: Int
        let provenHead: ProvenHead?
        /// Where an overtaken mirror was set aside this round.
        let setAside: String?
        let refusals: [Refusal]
        let done: [Done]
    }

    /// One edit that left the outbox in a round (`sync --json`'s `done`).
    struct Done: Encodable {
        let batch: String
        let outcome: String
        let seq: UInt64?
    }

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let mirrorPath = try arguments.logPath("mirror")
        let url = try arguments.logPath("url")
        guard LogLocation.isServer(mirrorPath) == false else {
            throw UsageError("<mirror> must be a log file on this device, not a server list")
        }
        guard LogLocation.isServer(url) else {
            throw UsageError("<url> must name a server list (postgres://…?list=NAME); a log file cannot be synced with")
        }
        let opened = try ServerStorage.open(LogLocation.resolve(url))
        guard let server = opened.storage as? any IdempotentAppendStorage else {
            throw Failure("\(opened.display): this list cannot take synced edits (its storage stores no batch ids)")
        }
        let follow = arguments.flag("follow")
        if follow { Platform.deferInterrupts() }
        let resolution = try arguments.option("open-push").map { text throws(UsageError) in
            guard let resolution = SyncSession.OpenPushResolution(rawValue: text) else {
                throw arguments.invalid(text, for: "open-push", expected: "committed or not-committed")
            }
            return resolution
        }
        var first = true
        var prover: SyncHeadProver?
        repeat {
            // The resolution answers the round that asked for it: the first one only.
            let round = try syncOnce(
                mirrorPath, server: server, display: opened.display, prover: &prover, resolving: first ? resolution : nil)
            // Following: the first round, then only the rounds that moved something.
            if first || round.pulled > 0 || round.pushed > 0 { report(round, json: arguments.flag("json"), console: console) }
            first = false
            guard follow, Platform.pendingInterrupt == nil, !console.outputFailed else { break }
            _ = try? server.waitForAppends(after: round.lastSeq, timeout: .seconds(1))
        } while Platform.pendingInterrupt == nil
        return ExitStatus.success
    }

    /// One round, holding the mirror and the outbox only while it runs.
    /// `prover`: what the round before proved and hashed (the mirror is not hashed again), and then this round's.
    static func syncOnce(
        _ mirrorPath: String, server: any IdempotentAppendStorage, display: String, prover: inout SyncHeadProver?,
        resolving resolution: SyncSession.OpenPushResolution? = nil
    ) throws -> Round {
        let session = try SyncSession.open(mirrorPath: mirrorPath, server: server, prover: prover)
        defer { session.close() }
        let report = try session.sync(resolvingOpenPush: resolution)
        prover = session.prover
        var applied = 0
        var satisfied = 0
        var refusals: [Round.Refusal] = []
        var finished: [Done] = []
        for done in report.done {
            let batch = done.command.batchID.uuidString.lowercased()
            switch done.outcome {
            case .applied(let seq):
                applied += 1
                finished.append(Done(batch: batch, outcome: "applied", seq: seq))
            case .satisfied:
                satisfied += 1
                finished.append(Done(batch: batch, outcome: "satisfied", seq: nil))
            case .refused(let refusal, let seq):
                finished.append(Done(batch: batch, outcome: "refused", seq: seq))
                refusals.append(
                    Round.Refusal(
                        batch: done.command.batchID.uuidString.lowercased(), command: done.command.description, reason: refusal.message,
                        seq: seq))
            }
        }
        return Round(
            mirror: mirrorPath, server: display, pulled: report.pulled, pushed: report.done.count, applied: applied, satisfied: satisfied,
            refused: refusals.count, lastSeq: report.lastSeq, pending: report.pending,
            provenHead: report.provenHead.map { ProvenHead(seq: $0.seq, hash: $0.hash.hex) }, setAside: report.setAsideMirror,
            refusals: refusals, done: finished)
    }

    /// The server's newest head the round proved (`sync --json`'s `provenHead`).
    struct ProvenHead: Encodable {
        let seq: UInt64
        let hash: String
    }

    static func report(_ round: Round, json: Bool, console: Console) {
        if json {
            if let line = try? JSONLines().line(round) { console.line(line) }
            return
        }
        console.line(
            Escape.text(
                "\(round.mirror): pulled \(round.pulled) record\(round.pulled == 1 ? "" : "s"); pushed \(round.pushed) edit\(round.pushed == 1 ? "" : "s") (\(round.applied) applied, \(round.satisfied) already so, \(round.refused) refused); at seq \(round.lastSeq); \(round.pending) pending"
            ))
        if let aside = round.setAside {
            console.line(
                Escape.text(
                    "  a cut of the list had overtaken the mirror: set aside as \(aside); a new one was started from the list's base"))
        }
        if let head = round.provenHead { console.line("  server head proven at seq \(head.seq): \(head.hash)") }
        for refusal in round.refusals {
            console.line(Escape.text("  refused at seq \(refusal.seq): \(refusal.command): \(refusal.reason)"))
        }
    }
}
