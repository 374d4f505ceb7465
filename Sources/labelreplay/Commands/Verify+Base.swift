import EventLog
import LabelProjection

/// `verify` of a based log (docs/FORMAT.md, "Based logs"): the records it
/// cut, and, when the archive holding them is there, that the two join —
/// the archive's last record is the one the log's first continues (its
/// chained checksum), its history tree ends at the frontier the base holds,
/// and its list at the end is the base's image.
extension Verify {
    static func checkJoin(
        _ base: LogBase, of header: LogHeader, origin: LabelList, path: String, quick: Bool = false, into result: inout VerifyResult,
        console: Console
    ) {
        var check = BaseCheck(first: base.cut.lowerBound, last: base.cut.upperBound, archive: nil, dropped: false, joined: nil)
        defer { result.base = check }
        guard case .archived(let file) = base.disposition else {
            check.dropped = true
            return
        }
        let archive = HistoryArchive.resolve(file, namedBy: path)
        check.archive = archive
        guard SystemFile.exists(archive) else { return }
        func fail(_ message: String) {
            check.joined = false
            result.problem = .init(
                kind: "join", code: "archiveMismatch", offset: nil, seq: base.lastCutSeq, message: "\(archive): \(message)")
        }
        do {
            let reader = try LogReader(path: archive)
            guard reader.header.logID == header.logID else {
                return fail("it is not an archive of this log (log id \(reader.header.logID), not \(header.logID))")
            }
            var list = try LabelList.origin(of: reader.header, path: archive)
            let progress = Progress("checking \(archive)", total: try reader.fileSize(), console: console)
            defer { progress.finish() }
            // One pass: each record hashed into the tree (continued from the archive's own base, if any) and folded.
            var tree =
                reader.header.base.flatMap { HistoryTreeBuilder(count: $0.lastCutSeq, frontier: $0.frontier) } ?? HistoryTreeBuilder()
            var lastChecksum: UInt32?
            if quick {
                // Checked and hashed, not folded (`--quick`): the list at the cut is not compared.
                try reader.forEachPayload { seq, payload in
                    tree.append(payload: payload)
                    progress.update(reader.offset, detail: "seq \(seq)")
                }
                lastChecksum = reader.lastPosition?.checksum
            } else {
                while let (view, position) = try reader.nextPositionedView() {
                    tree.append(payload: view.payload)
                    try list.replay(view)
                    lastChecksum = position.checksum
                    progress.update(reader.offset, detail: "seq \(view.seq)")
                }
            }
            guard tree.count == base.lastCutSeq, quick || list.lastSeq == base.lastCutSeq else {
                return fail("it ends at seq \(tree.count), not at seq \(base.lastCutSeq), the last one the log's base cut")
            }
            guard lastChecksum == header.previousChecksum else {
                return fail("its last record is not the one this log's first record continues (their chained checksums differ)")
            }
            guard tree.frontier == base.frontier else {
                return fail("its records do not hash to the history tree's frontier the base holds (a record was changed)")
            }
            guard quick || list == origin else { return fail("its list at seq \(base.lastCutSeq) is not the base's image") }
            check.joined = true
            check.listCompared = !quick
        } catch {
            fail("it cannot be read: \(ErrorText.describe(error))")
        }
    }

    static func reportBase(_ base: BaseCheck, console: Console) {
        let cut = "seqs \(base.first)…\(base.last)"
        if base.dropped {
            console.line("  base     \(cut) were dropped; the log starts from their base")
        } else if let archive = base.archive {
            let joined =
                switch base.joined {
                case true?:
                    "; the archive joins the log (chained checksum, history tree frontier\(base.listCompared ? ", list" : ""))"
                case false?: "; the archive does NOT join the log"
                case nil: "; the archive is not there: the join is not checked"
                }
            console.line(Escape.text("  base     \(cut) are archived in \(archive)\(joined)"))
        }
    }
}

/// `verify --json`'s `base`: what a based log cut, and whether its archive joins it.
struct BaseCheck: Encodable {
    /// The seqs cut.
    let first: UInt64
    let last: UInt64
    /// The archive's path, when they were archived.
    var archive: String?
    /// Whether they were dropped.
    var dropped: Bool
    /// Whether the archive joins the log (`nil`: it is not there, or the records were dropped).
    var joined: Bool?
    /// Whether the archive's list at the cut was compared with the base's (not with `--quick`).
    var listCompared = false

    enum CodingKeys: String, CodingKey { case first, last, archive, dropped, joined }
}
