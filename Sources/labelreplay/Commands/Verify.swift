import EventLog
import LabelProjection

/// `verify LOG`: checks every byte and every event of a log, without changing it.
enum Verify: Command {
    static let spec = CommandSpec(
        name: "verify",
        abstract: "Check a log: header, framing, checksums, seq continuity, every event against the state before it.",
        discussion: """
            Reads the whole log without locking or changing it, and folds every record with the projection's own fold, \
            so an event that contradicts the state before it (a rename from a title the label does not have, a removal \
            at the wrong index, …) is found as well as damaged bytes. It never reads the log through LOG.index, LOG.checkpoints or \
            snapshots: 'log', 'show --at', 'diff' and 'trace' read through those and skip records they do not need, \
            so damage in a skipped record is found only here (see 'help index').

            Exit status 0 when the log is sound; a torn tail alone (an incomplete last record, what a crash mid-write \
            leaves) is reported as a warning and still exits 0. Exit status 1 names the byte offset and seq of the first \
            problem.

            With --head SEQ:HEX (from 'labelreplay head', kept where the log's writer cannot change it; give it more \
            than once to check several), it also proves that the log extends that head: its records 1…SEQ hash to \
            exactly that value, so none of them was changed, removed, inserted or reordered since, even by someone who \
            recomputed every checksum after the change. A log that does not is exit status 1 (problem.kind head), and \
            the log's own head now is printed either way. When LOG.tree ('index' writes it) was written before the \
            change and its leaves give the head, the first record that differs is named (problem.seq); a log that \
            ends before the head's seq names the first missing one.

            With --checkpoints, it also compares every checkpoint of LOG.checkpoints (which 'index' and the store write) \
            with the fold of the records at its seq, reading each as 'show --at' reads it: one that does not check out \
            (the readers skip it), holds another list (they would answer from it) or keeps another title for a label \
            removed since the checkpoint before than its removal states (diff and trace print it) is problem.kind \
            checkpoint naming its seq and the first label or counter that differs, the records are checked on to the end, and \
            'labelreplay index --rebuild LOG' writes the file again (checkpointsChecked in --json counts those compared).

            With --quick, the records are checked as every read checks them (framing, each frame's chained checksum, \
            seq continuity, the torn tail) and hashed for --head, but not decoded or folded: the event checks are left \
            out (and the list line with them), which makes it several times faster. It is what a head proof needs: \
            records that hash to a head you kept are byte for byte the records you took it of. A based log's archive is \
            checked the same way (chained checksum and history tree frontier, not its list). A log file only.

            A based log (one whose earlier records 'archive' cut off) is checked from its base: its first record must \
            continue the base's chained checksum, and its records fold on from the base's list. When the archive the \
            base names is there, verify also checks that the two join: the archive is of this log, ends at the last \
            seq cut with the chained checksum the log's first record continues, its records hash to the history \
            tree frontier the base holds, and its list there is the base's (problem.kind join when not).

            JSON (--json): {"path", "ok", "records", "firstSeq", "lastSeq", "fileSize", "validLength", "count", "enabledCount", \
            "header": {"version", "logID", "createdAt"}, "tornTail": {"offset", "bytes", "reason"}, "heads": [{"head", \
            "ok", "message", "firstDifferentSeq"}], "historyHead", "problem": {"kind", "code", "offset", "seq", "message"}, \
            "serverChecks", "base": {"first", "last", "archive", "dropped", "joined"}} where tornTail \
            and problem are present only when found, heads and historyHead only with --head, count and enabledCount \
            not with --quick, and problem.kind is file, \
            header, frame, seq, event, join, head or checkpoint; base is present for a based log.

            A list on a server (a postgres:// LOG) is read record by record from the server, each payload decoded and \
            checked by the same parser, the seqs checked to be gapless up to the list's end and to reach the head \
            row's committed length (every row up to it must be there), each row's keyed, chained checksum checked \
            against its payload and the row before, and the head row's chain value against its row's (schema \
            version 2; version 1 lists have no checksums, and say so), and folded the same way; so a row changed, removed, swapped or inserted by hand is named by \
            its seq. Every history tree head the list keeps with a checkpoint (schema version 6) is checked against \
            the head of the records through its seq, and every list a checkpoint holds against the fold of the records \
            there (problem.kind checkpoint: one that does not decode, or holds another list, which a store opening \
            from it would start from; the records are sound, and the message says which checkpoints to delete). It has no header, bytes or tail of its own (header absent; fileSize and validLength 0); \
            "serverChecks" lists what was checked: payloads, seqs, head, checksums when the schema has them, and \
            checkpoint heads and checkpoint lists when the list keeps any.
            """,
        arguments: [
            .positional("log", "The label log file."),
            .option("head", value: "seq:hex", repeating: true, "Also prove that the log extends this head (from 'labelreplay head')."),
            .flag("quick", "Check framing, checksums and seqs (and --head) without folding the events; a log file only."),
            .flag("checkpoints", "Also compare every checkpoint of LOG.checkpoints with the fold at its seq (a server list's: always)."),
            .flag("json", "Print one JSON object instead of text.")
        ],
        examples: [
            "verify labels.labellog", "verify labels.labellog --json", "verify labels.labellog --head 1200:3f9a…",
            "verify labels.labellog --quick --head 1200:3f9a…"
        ])

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let quick = arguments.flag("quick")
        if quick, arguments.flag("checkpoints") {
            throw UsageError("--checkpoints compares the checkpoints with the fold, which --quick leaves out: drop one of them")
        }
        if quick, LogLocation.isServer(arguments.positional("log")) {
            throw UsageError(
                "--quick checks a log file's frames; '\(LogLocation.display(arguments.positional("log")))' is a server list, whose rows verify checks one by one (drop --quick)"
            )
        }
        let path = try arguments.logPath()
        let location = LogLocation.resolve(path)
        let heads = try arguments.values("head").map { text throws(UsageError) in
            try HistorySource.head(text, option: "head", arguments: arguments)
        }
        var hashed: (now: HistoryHead, failures: [EventLogError?])?
        var result =
            location == .file(path)
            ? check(path, heads: heads, quick: quick, checkpoints: arguments.flag("checkpoints"), hashed: &hashed, console: console)
            : checkServer(location, console: console)
        if !heads.isEmpty, result.ok { checkHeads(heads, of: path, into: &result, hashed: hashed, console: console) }
        if arguments.flag("json") {
            console.line(try JSONLines().line(result))
        } else {
            report(result, console: console)
        }
        return result.ok ? ExitStatus.success : ExitStatus.failure
    }

    /// Everything `verify` finds about the log at `path`. With `heads` that the
    /// log's own records reach (none before its first), the records are hashed
    /// in the same pass (`hashed`: the head now and each head's failure), so a
    /// `verify --head` reads the log once. `quick`: the records are checked
    /// and hashed but not decoded or folded (``quickPass(_:from:hasher:into:progress:)``).
    static func check(
        _ path: String, heads: [HistoryHead] = [], quick: Bool = false, checkpoints: Bool = false,
        hashed: inout (now: HistoryHead, failures: [EventLogError?])?, console: Console
    ) -> VerifyResult {
        var result = VerifyResult(path: path)
        let reader: LogReader
        do {
            reader = try LogReader(path: path)
        } catch {
            let kind = [.fileNotFound, .notARegularFile, .ioError].contains(error.code) ? "file" : "header"
            var message = ErrorText.words(error.message)
            if let code = error.errno { message += ": " + Platform.describe(errno: code) }
            message += ErrorText.hint(for: error, path: path)
            result.problem = .init(kind: kind, code: error.code.rawValue, offset: error.offset, seq: nil, message: message)
            return result
        }
        result.header = .init(version: reader.header.version, logID: reader.header.logID, createdAt: reader.header.createdAt.iso8601)
        result.fileSize = (try? reader.fileSize()) ?? 0
        let progress = Progress("verifying \(path)", total: result.fileSize, console: console)
        defer { progress.finish() }
        var list: LabelList
        do {
            // A based log folds on from its base; the join with its archive is checked below.
            list = try LabelList.origin(of: reader.header, path: path)
        } catch {
            result.problem = .init(
                kind: "header", code: EventLogError.Code.corruptHeader.rawValue, offset: Int64(LogFormat.headerLength), seq: nil,
                message: error.message)
            return result
        }
        let origin = list
        // The heads are hashed beside the checks when the log holds every record they need.
        let start = reader.header.base.flatMap { HistoryTreeBuilder(count: $0.lastCutSeq, frontier: $0.frontier) }
        let hasher =
            !heads.isEmpty && heads.allSatisfy({ $0.seq >= origin.lastSeq })
            ? ChunkedTreeHasher(start: start ?? HistoryTreeBuilder(), wanted: Set(heads.map(\.seq))) : nil
        // One pass over the records decoded in place (the fold's fast path, with every check of a record's).
        struct Refused: Error {}
        // With --checkpoints, LOG.checkpoints compared as the fold passes each one (the records read on past a bad one).
        var cached = checkpoints ? FileCheckpointCheck(path: path, origin: origin) : nil
        var checkpointProblem = cached?.fileProblem
        if quick {
            quickPass(reader, from: origin, hasher: hasher, into: &result, progress: progress)
        } else {
            do {
                _ = try reader.forEachView { view in
                    hasher?.append(payload: view.payload)
                    do throws(ProjectionError) {
                        try list.replay(view)
                    } catch {
                        result.problem = .init(
                            kind: "event", code: error.code.rawValue, offset: reader.lastPosition?.offset, seq: view.seq,
                            message: error.message)
                        throw Refused()
                    }
                    if checkpointProblem == nil {
                        cached?.note(view)
                        if let problem = cached?.check(list) { checkpointProblem = problem }
                    }
                    progress.update(reader.offset, detail: "seq \(view.seq)")
                }
            } catch is Refused {
            } catch {
                result.problem = readProblem(error, at: reader.offset, nextSeq: list.lastSeq + 1)
            }
            if let cached {
                result.checkpointsChecked = cached.checked
                if result.problem == nil { result.problem = checkpointProblem ?? cached.leftover(lastSeq: list.lastSeq) }
            }
            result.lastSeq = list.lastSeq
            result.count = list.count
            result.enabledCount = list.enabledCount
        }
        if let hasher, result.problem == nil {
            hashed = HistoryProver.outcome(of: hasher, against: heads, startSeq: origin.lastSeq, name: path)
        }
        result.records = result.lastSeq - origin.lastSeq
        result.firstSeq = reader.header.firstSeq
        result.validLength = reader.offset
        if let base = reader.header.base, result.problem == nil {
            checkJoin(base, of: reader.header, origin: origin, path: path, quick: quick, into: &result, console: console)
        }
        if result.problem == nil {
            do {
                // What follows the last record: nothing, preallocated zeros, a torn tail, or damage before good records.
                if case .torn(let offset, let bytes, let reason) = try reader.tail() {
                    result.tornTail = .init(offset: offset, bytes: bytes, reason: reason)
                }
            } catch {
                result.problem = readProblem(error, at: reader.offset, nextSeq: result.lastSeq + 1)
            }
        }
        return result
    }

    /// The problem a read of the log's records threw at byte `offset` (where
    /// the reader stopped, unless the error names its own), before seq
    /// `nextSeq`: `seq` for a gap, `frame` for damage, and any other failure
    /// as an `ioError` frame problem.
    static func readProblem(_ error: any Error, at offset: Int64, nextSeq: UInt64) -> VerifyResult.Problem {
        guard let error = error as? EventLogError else {
            return .init(kind: "frame", code: "ioError", offset: offset, seq: nextSeq, message: "\(error)")
        }
        return .init(
            kind: error.code == .seqGap ? "seq" : "frame", code: error.code.rawValue, offset: error.offset ?? offset, seq: nextSeq,
            message: error.message)
    }

    /// Proves (or not) that the log at `path` extends each of `heads`: from
    /// `hashed` when the verify pass hashed the records, else by reading them
    /// (with the archives a head before the log's first needs).
    static func checkHeads(
        _ heads: [HistoryHead], of path: String, into result: inout VerifyResult,
        hashed: (now: HistoryHead, failures: [EventLogError?])? = nil, console: Console
    ) {
        do {
            let (now, failures): (HistoryHead, [EventLogError?])
            if let hashed {
                (now, failures) = hashed
            } else {
                let (records, progress) = try HistorySource.open(
                    path, label: "hashing \(path)", console: console, reaching: heads.map(\.seq).min().map { $0 + 1 })
                defer { progress.finish() }
                (now, failures) = try HistoryProver.check(records, against: heads)
            }
            result.historyHead = now.description
            result.heads = zip(heads, failures).map { head, failure in
                guard var failure else { return .init(head: head.description, ok: true, message: nil, firstDifferentSeq: nil) }
                // A tree cache that the head authenticates tells which record differs, also when the
                // log is shorter (records after a cut back may differ too) and when the cache is a
                // copy's; without one, the message says so.
                var seq = failure.lastGoodSeq.map { $0 + 1 }
                if case .file(let file) = LogLocation.resolve(path) {
                    let tree = HistoryTreeFile.path(for: file)
                    if let first = try? HistoryTreeFile.firstDifference(logPath: file, from: head) {
                        seq = first
                        failure.message += "; the first record that differs is seq \(first) (\(tree), whose leaves give that head)"
                    } else {
                        let unknown =
                            failure.lastGoodSeq.map { "whether records up to seq \($0) differ as well is not known" }
                            ?? "the record that differs is not named"
                        failure.message +=
                            "; no tree of that head's history is at hand (\(tree) is missing or its leaves do not give that head), "
                            + "so \(unknown): compare the log with a copy or an export from the time of the head"
                    }
                }
                return .init(head: head.description, ok: false, message: failure.message, firstDifferentSeq: seq)
            }
            if let first = result.heads?.first(where: { !$0.ok }) {
                result.problem = .init(
                    kind: "head", code: EventLogError.Code.historyDiverged.rawValue, offset: nil, seq: first.firstDifferentSeq,
                    message: first.message ?? first.head)
            }
        } catch {
            let code = (error as? EventLogError)?.code.rawValue ?? "failure"
            result.problem = .init(kind: "head", code: code, offset: nil, seq: nil, message: ErrorText.describe(error))
        }
    }

    static func report(_ result: VerifyResult, console: Console) {
        console.line(Escape.text("verify \(result.path)"))
        if LogLocation.isServer(result.path), result.problem?.kind != "file" {
            reportServer(result, console: console)
        } else if let header = result.header {
            console.line("  header   format \(header.version), log id \(header.logID), created \(header.createdAt)")
            let range = result.records > 0 ? " (seq \(result.firstSeq)…\(result.lastSeq))" : ""
            console.line("  records  \(result.records)\(range) in \(result.validLength) of \(result.fileSize) bytes")
            if let count = result.count, let enabled = result.enabledCount {
                console.line("  list     \(count) labels, \(enabled) enabled, after seq \(result.lastSeq)")
            } else {
                console.line("  list     not folded (--quick): the events are not checked")
            }
            if let base = result.base { reportBase(base, console: console) }
        }
        if let tail = result.tornTail {
            console.warning(
                "\(result.path): torn tail: \(tail.bytes) bytes at byte offset \(tail.offset), after seq \(result.lastSeq), are not a complete record (\(tail.reason)); '\(Tool.name) repair' cuts it"
            )
        }
        for head in result.heads ?? [] where head.ok {
            console.line("  extends  head \(head.head)")
        }
        if let now = result.historyHead { console.line("  head     \(now) now") }
        guard let problem = result.problem else {
            if let checks = result.serverChecks {
                console.line(
                    checks.contains("checksums")
                        ? "ok: every row's payload, seq continuity up to the list's end and past the head row's committed length, every row's chained checksum, the head row's chain value and every event are sound"
                            + (checks.contains("checkpoint heads")
                                ? ", and every history tree head its checkpoints keep is the head of its records" : "")
                            + (checks.contains("checkpoint lists") ? "; every list its checkpoints hold is the fold of its records" : "")
                        : "ok: every row's payload, seq continuity up to the list's end and past the head row and every event are sound (schema version 1: its rows have no checksums; 'labelreplay upgrade' adds them)"
                )
                return
            }
            console.line(
                (result.count == nil
                    ? "ok: framing, checksums and seq continuity are sound"
                    : "ok: framing, checksums, seq continuity and every event are sound")
                    + (result.tornTail == nil ? "" : " (apart from the torn tail)")
                    + (result.heads == nil ? "" : ", and the log extends every head given")
                    + (result.checkpointsChecked.map {
                        $0 == 0
                            ? "; LOG.checkpoints holds no checkpoint"
                            : "; each of the \($0) checkpoints of LOG.checkpoints is the fold of the records at its seq"
                    } ?? ""))
            return
        }
        if problem.kind == "head" {
            for head in result.heads ?? [] where !head.ok { console.error("\(result.path): \(head.message ?? head.head)") }
            if result.heads == nil { console.error("\(result.path): \(problem.message)") }
            return
        }
        var location = problem.offset.map { "byte offset \($0)" } ?? ""
        if let seq = problem.seq { location += (location.isEmpty ? "" : ", ") + "seq \(seq)" }
        let what = [
            "header": "bad header", "frame": "damaged record", "seq": "seq out of order",
            "event": "event contradicts the state before it", "checkpoint": "bad checkpoint"
        ][problem.kind]
        let sound = result.header != nil && result.lastSeq > 0 ? "; seq 1…\(result.lastSeq) before it are sound" : ""
        let lead = what.map { $0 + (location.isEmpty ? "" : " at \(location)") + ": " } ?? ""
        console.error("\(result.path): \(lead)\(problem.message)\(sound)")
    }
}

/// `verify --json`.
struct VerifyResult: Encodable {
    struct Header: Encodable {
        let version: UInt16
        let logID: LabelID
        let createdAt: String
    }
    struct TornTail: Encodable {
        let offset: Int64
        let bytes: Int64
        let reason: String
    }
    struct HeadCheck: Encodable {
        let head: String
        let ok: Bool
        let message: String?
        /// The first seq that is not as it was when the head was taken, where it can be told.
        let firstDifferentSeq: UInt64?
    }
    struct Problem: Encodable {
        /// `file`, `header`, `frame`, `seq`, `event`, `join`, `head` or `checkpoint`.
        let kind: String
        /// The EventLogError or ProjectionError code, e.g. `corruptRecord`, `titleMismatch`.
        let code: String
        let offset: Int64?
        let seq: UInt64?
        let message: String
    }

    let path: String
    var ok: Bool { problem == nil }
    var header: Header?
    var records: UInt64 = 0
    /// The first seq the log holds (above 1 when it is based).
    var firstSeq: UInt64 = 1
    var lastSeq: UInt64 = 0
    /// A based log's base, and what checking its join with its archive found.
    var base: BaseCheck?
    var fileSize: Int64 = 0
    var validLength: Int64 = 0
    /// The list's labels and enabled labels at the end (`nil` with `--quick`: not folded).
    var count: Int? = 0
    var enabledCount: Int? = 0
    var tornTail: TornTail?
    var heads: [HeadCheck]?
    var historyHead: String?
    var problem: Problem?
    /// What was checked of a server list (absent for a file).
    var serverChecks: [String]?
    /// With `--checkpoints`: how many checkpoints of `LOG.checkpoints` were compared with the fold.
    var checkpointsChecked: Int?

    init(path: String) { self.path = path }

    enum CodingKeys: String, CodingKey {
        case path, ok, header, records, lastSeq, fileSize, validLength, count, enabledCount, tornTail, heads, historyHead, problem
        case serverChecks, firstSeq, base, checkpointsChecked
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(path, forKey: .path)
        try c.encode(ok, forKey: .ok)
        try c.encodeIfPresent(header, forKey: .header)
        try c.encode(records, forKey: .records)
        try c.encode(firstSeq, forKey: .firstSeq)
        try c.encode(lastSeq, forKey: .lastSeq)
        try c.encode(fileSize, forKey: .fileSize)
        try c.encode(validLength, forKey: .validLength)
        try c.encodeIfPresent(count, forKey: .count)
        try c.encodeIfPresent(enabledCount, forKey: .enabledCount)
        try c.encodeIfPresent(tornTail, forKey: .tornTail)
        try c.encodeIfPresent(heads, forKey: .heads)
        try c.encodeIfPresent(historyHead, forKey: .historyHead)
        try c.encodeIfPresent(problem, forKey: .problem)
        try c.encodeIfPresent(serverChecks, forKey: .serverChecks)
        try c.encodeIfPresent(checkpointsChecked, forKey: .checkpointsChecked)
        try c.encodeIfPresent(base, forKey: .base)
    }
}
