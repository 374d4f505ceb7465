import EventLog
import Foundation
import LabelProjection

/// Workloads `archive-<size>`: a long history (``HistoryFixture``: 1,000,000
/// events; quick: 200,000; `--big` adds 10,000,000) before and after
/// archiving 90 % of it (issue 27).
///
/// Prepared once (untimed): two copies of the fixture's log; on one,
/// `LabelStore.cutHistory` moves the first 90 % of the records to an archive
/// file (timed once, in the notes), so the log starts from a base. Timed,
/// from a warm page cache, with no snapshot or checkpoint beside either:
/// `LabelStore.open` + `close`. Ours: the based log (its base image decoded,
/// the last 10 % folded); the peer: the whole log (every record folded).
/// Both must end with the same list; and the list at seqs after the cut, and
/// the head, must be the same from the based log as from the whole log, and
/// the list at a seq before it the same from the archive; and the release
/// `labelreplay`'s answers for archived seqs (`show --at`, `diff`, `log`,
/// `export`, `trace`), run on the log before the cut and on the based log
/// with its archive beside it after, must be the same bytes. Metric: ms per
/// open. Target: none (reported, with the live log's bytes in the notes).
final class ArchiveWorkload: Workload {
    let metric = Metric.milliseconds
    let repetitions: Int?
    private let fixture: HistoryFixture
    private var directory: String?
    private var digests: [Side: String] = [:]
    private var facts: [String] = []

    private let cli: CLIRun

    init(fixture: HistoryFixture, binary: LabelReplayBinary, repetitions: Int?) {
        self.fixture = fixture
        self.repetitions = repetitions
        cli = CLIRun(binary: binary, fixture: fixture)
    }

    /// The commands whose answers for archived seqs are compared (seqs before the cut at `cut`).
    private func archivedQueries(cut: UInt64) -> [[String]] {
        let (early, late) = (String(cut / 3), String(cut - 1_000))
        return [
            ["show", based, "--at", late, "--json"], ["diff", based, early, late, "--json"],
            ["log", based, "--from", String(cut - 100), "--to", String(cut + 100), "--json"],
            ["export", based, "--from", String(cut - 50), "--to", String(cut + 50)],
            ["trace", based, "--to", "2000", "--json"]
        ]
    }

    /// Runs `queries`, each output to `NAME-k.out` in the CLI outputs directory; returns the paths.
    private func answer(_ queries: [[String]], _ name: String, context: BenchContext) throws -> [String] {
        try queries.enumerated().map { k, arguments in
            let output = try cli.outputPath("\(id)-\(name)-\(k).out", context: context)
            _ = try cli.run(arguments, outputPath: output, context: context)
            return output
        }
    }

    var eventCount: Int { fixture.eventCount }
    var id: String { "archive-\(HistoryFixture.sizeName(eventCount))" }
    var title: String { "open after archiving 90 %, \(eventCount.grouped) events" }
    var peer: String? { "the whole log" }
    var target: Target { Target(metric: .milliseconds, text: "none, reported") }
    var notes: [String] { facts }
    private var based: String { "\(directory ?? "")/based.labellog" }
    private var whole: String { "\(directory ?? "")/whole.labellog" }
    private var archive: String { "\(directory ?? "")/archive.labellog" }

    func prepare(_ context: BenchContext) throws {
        try fixture.acquire(context)
        let directory = try context.scratch.freshDirectory("archive-\(HistoryFixture.sizeName(eventCount))")
        self.directory = directory
        context.progress("    copying the \(eventCount.grouped)-event history twice and archiving 90 % of one (untimed)…")
        try FileManager.default.copyItem(atPath: fixture.logPath, toPath: whole)
        try FileManager.default.copyItem(atPath: fixture.logPath, toPath: based)
        let cut = UInt64(eventCount / 10 * 9)
        context.progress("    answering for the seqs the cut will archive with labelreplay, before it (untimed)…")
        let queries = archivedQueries(cut: cut)
        let before = try answer(queries, "before", context: context)
        var report: LogCut.Report?
        let elapsed = try Statistics.time { report = try LabelStore.cutHistory(path: based, through: cut, archiveTo: archive) }
        guard let report, report.cut == 1...cut else { throw BenchError("\(id): the cut did not cut seqs 1…\(cut)") }
        // The answers after the cut, and the head, from the based log; before it, from the archive.
        let options = LabelStore.Options(durability: .noSync, snapshots: .manual)
        let (b, w, a) = (
            try LabelStore.open(path: based, options: options), try LabelStore.open(path: whole, options: options),
            try LabelStore.open(path: archive, options: options)
        )
        defer { [b, w, a].forEach { $0.close() } }
        for seq in [cut, cut + 1, cut + UInt64(eventCount / 20), UInt64(eventCount) - 1] {
            guard ProjectionFixtures.digest(try b.state(atSeq: seq)) == ProjectionFixtures.digest(try w.state(atSeq: seq)) else {
                throw BenchError("\(id): the based log's list at seq \(seq) is not the whole log's")
            }
        }
        guard ProjectionFixtures.digest(try a.state(atSeq: cut - 1_000)) == ProjectionFixtures.digest(try w.state(atSeq: cut - 1_000))
        else { throw BenchError("\(id): the archive's list at seq \(cut - 1_000) is not the whole log's") }
        guard try b.head == w.head else { throw BenchError("\(id): the based log's head is not the whole log's") }
        context.progress("    answering for them again from the based log and its archive (untimed)…")
        let after = try answer(queries, "after", context: context)
        var answerBytes = 0
        for (k, (a, b)) in zip(before, after).enumerated() {
            answerBytes += try OutputComparison.requireEqual(
                a, b, what: "\(id): labelreplay \(queries[k].joined(separator: " ")) before and after the cut")
        }
        let sizes = [based, whole, archive].map { ScratchSpace.fileSize($0) }
        facts = [
            "cut seqs 1…\(Int(cut).grouped) in \(Int(Statistics.seconds(elapsed) * 1e3).grouped) ms (folded, hashed and copied once); live log \(Int(sizes[0]).grouped) bytes (\(sizes[0] * 100 / max(1, sizes[1])) % of the whole log's \(Int(sizes[1]).grouped)), archive \(Int(sizes[2]).grouped) bytes; lists at 4 seqs after the cut, a list before it (from the archive) and the head checked equal",
            "labelreplay show --at, diff, log, export and trace over archived seqs: the same \(answerBytes.grouped) bytes from the based log and its archive as from the log before the cut"
        ]
        ScratchSpace.flushFileSystems()
    }

    func finish(_ context: BenchContext) {
        if let directory { context.scratch.remove(directory) }
        directory = nil
        fixture.release(context)
    }

    func measure(_ side: Side, repetition: Int, context: BenchContext) throws -> Double {
        let path = side == .ours ? based : whole
        var digest = ""
        let elapsed = try Statistics.time {
            let store = try LabelStore.open(path: path, options: LabelStore.Options(durability: .noSync, snapshots: .manual))
            digest = ProjectionFixtures.digest(store.snapshot)
            store.close()
        }
        digests[side] = digest
        if let a = digests[.ours], let b = digests[.sqlite], a != b { throw BenchError("\(id): the based log opens to another list") }
        return Statistics.seconds(elapsed) * 1e3
    }
}
