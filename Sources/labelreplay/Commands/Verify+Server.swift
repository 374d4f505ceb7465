import EventLog
import LabelProjection

/// `verify` of a list on a server: every record read (the backend decodes each
/// payload with the log's own parser, checks the seqs are gapless up to the
/// list's end and past the head row's committed length and, in schema
/// version 2, each row's chained checksum and the head row's chain value) and folded against the state before it. A server list has no header, bytes or
/// tail of its own: `header` is absent, `fileSize` and `validLength` are 0.
extension Verify {
    /// Everything `verify` finds about the server list at `location`.
    static func checkServer(_ location: LogLocation, console: Console) -> VerifyResult {
        var result = VerifyResult(path: location.display)
        let storage: any EventStorage
        let names: (schema: String, list: String)
        var list: LabelList
        var join: (base: LogBase, header: LogHeader)?
        do {
            let opened = try ServerStorage.open(location)
            storage = opened.storage
            names = (opened.schema, opened.list)
            result.serverChecks = ["payloads", "seqs", "head"] + (opened.hasChecksums ? ["checksums"] : [])
            // A list whose first records were cut off is checked from its base (its list there, decoded and
            // checked), and its archive, when it is at its path, is checked to join it.
            list = try LabelList.origin(of: storage.base, logID: LabelID(opened.logID), describe: location.display)
            if let base = storage.base {
                join = (
                    base,
                    LogHeader(logID: LabelID(opened.logID), createdAt: base.cutAt, base: base, previousChecksum: opened.baseChainValue)
                )
            }
        } catch {
            let code = (error as? EventLogError)?.code.rawValue ?? "failure"
            var message = ErrorText.describe(error)
            if message.hasPrefix(location.display + ": ") { message.removeFirst(location.display.count + 2) }
            result.problem = .init(kind: "file", code: code, offset: nil, seq: nil, message: message)
            return result
        }
        let last = (try? storage.refreshLastSeq()) ?? 0
        let progress = Progress("verifying \(location.display)", total: Int64(last), unit: "records", console: console)
        defer { progress.finish() }
        result.firstSeq = list.lastSeq + 1
        var next = result.firstSeq
        var heads = CheckpointHeadCheck(storage: storage, through: last, into: &result)
        var checkpointProblem: VerifyResult.Problem?
        var lists = CheckpointListCheck(
            storage: storage, schema: names.schema, list: names.list, from: result.firstSeq, through: last, into: &result)
        reading: while true {
            let batch: [EventRecord]
            do {
                batch = try storage.read(from: next, maxCount: 4096)
            } catch {
                // A read fails as a whole; the records before the damage it names are
                // read again up to it and checked, so `records` counts them and
                // `problem.seq` is the first seq that fails, as for a file.
                if let good = error.lastGoodSeq, good >= next, good < next + 4096,
                    let before = try? storage.read(from: next, maxCount: Int(good - next + 1)),
                    before.count == Int(good - next + 1)
                {
                    for record in before {
                        do {
                            try list.replay(record)
                        } catch {
                            result.problem = .init(
                                kind: "event", code: error.code.rawValue, offset: nil, seq: record.seq, message: error.message)
                            break reading
                        }
                    }
                }
                result.problem = .init(
                    kind: error.code == .seqGap ? "seq" : "frame", code: error.code.rawValue, offset: nil,
                    seq: list.lastSeq + 1, message: error.message)
                break
            }
            if batch.isEmpty { break }
            for record in batch {
                do {
                    try list.replay(record)
                } catch {
                    result.problem = .init(kind: "event", code: error.code.rawValue, offset: nil, seq: record.seq, message: error.message)
                    break reading
                }
                if let problem = heads.check(record) {
                    result.problem = problem
                    break reading
                }
                // The records are read on past a bad checkpoint (it is a cache): a problem in them comes first.
                if checkpointProblem == nil, let problem = lists.check(list) { checkpointProblem = problem }
            }
            next = list.lastSeq + 1
            progress.update(Int64(list.lastSeq), detail: "seq \(list.lastSeq)")
        }
        if result.problem == nil { result.problem = checkpointProblem }
        if let join, result.problem == nil {
            let origin = (try? LabelList.origin(of: join.base, logID: join.header.logID, describe: location.display)) ?? LabelList()
            checkJoin(join.base, of: join.header, origin: origin, path: location.display, into: &result, console: console)
        }
        result.records = list.lastSeq - (result.firstSeq - 1)
        result.lastSeq = list.lastSeq
        result.count = list.count
        result.enabledCount = list.enabledCount
        return result
    }

    /// The heads a server list keeps with its checkpoints (schema version 6),
    /// checked against the tree of the records as `verify` reads them.
    struct CheckpointHeadCheck {
        var pending: [CheckpointHead] = []
        var tree = HistoryTreeBuilder()

        /// The heads kept for seqs through `last` (none for a storage without checkpoints); a head that
        /// cannot be read is `result`'s problem.
        init(storage: any EventStorage, through last: UInt64, into result: inout VerifyResult) {
            tree = storage.base.flatMap { HistoryTreeBuilder(count: $0.lastCutSeq, frontier: $0.frontier) } ?? HistoryTreeBuilder()
            guard let checkpoints = storage as? any CheckpointStorage, last > tree.count else { return }
            do {
                pending = try checkpoints.checkpointHeads(in: (tree.count + 1)...last)
                if !pending.isEmpty { result.serverChecks?.append("checkpoint heads") }
            } catch {
                result.problem = .init(kind: "head", code: error.code.rawValue, offset: nil, seq: nil, message: error.message)
            }
        }

        /// Hashes `record` while a kept head is ahead; a head its seq reaches must be the tree's.
        mutating func check(_ record: EventRecord) -> VerifyResult.Problem? {
            guard let next = pending.first, record.seq == tree.count + 1 else { return nil }
            guard let payload = try? record.storedPayload() else { return nil }
            tree.append(payload: payload)
            guard tree.count == next.seq else { return nil }
            pending.removeFirst()
            guard tree.head != next.head else { return nil }
            return .init(
                kind: "head", code: EventLogError.Code.historyDiverged.rawValue, offset: nil, seq: next.seq,
                message:
                    "the checkpoint at seq \(next.seq) keeps the history tree head \(next.head.hash.hex), but the records through seq \(next.seq) give \(tree.head.hash.hex): the checkpoint's frontier was written from other records, or records through seq \(next.seq) were changed after it was written"
            )
        }
    }

    /// The text report's summary of a server list that could be read.
    static func reportServer(_ result: VerifyResult, console: Console) {
        let range = result.records > 0 ? " (seq \(result.firstSeq)…\(result.lastSeq))" : ""
        console.line("  records  \(result.records)\(range) on the server")
        if let base = result.base { reportBase(base, console: console) }
        console.line("  list     \(result.count ?? 0) labels, \(result.enabledCount ?? 0) enabled, after seq \(result.lastSeq)")
    }
}
