import EventLog
import Foundation
import Synchronization

/// Workload `open-cut-<size>`: how long appends wait while the log they go
/// to is cut (`LogWriter.cutHistory`, what a store's retention runs after its
/// automatic snapshots) — issue 27's "never blocking writes".
///
/// Each repetition copies the fixture's log (untimed), opens a writer with
/// durable appends (`syncEachAppend`) and appends one record at a time from
/// one thread, timing each append. Ours: while another thread cuts 90 % of
/// the records off to an archive (the appends during the cut are timed).
/// The peer: the same number of appends with no cut. Metric: the longest
/// append in milliseconds; the notes give the cut's time, the appends made
/// during it and their median. Every record is checked afterwards: the
/// archive and the log together hold the history and the appends, in order.
final class OpenCutWorkload: Workload {
    let metric = Metric.milliseconds
    let repetitions: Int?
    private let fixture: HistoryFixture
    private var directory: String?
    private var appendsDuringCut = 0
    private var facts: [String] = []

    init(fixture: HistoryFixture, repetitions: Int?) {
        self.fixture = fixture
        self.repetitions = repetitions
    }

    var eventCount: Int { fixture.eventCount }
    var id: String { "open-cut-\(HistoryFixture.sizeName(eventCount))" }
    var title: String { "longest durable append while 90 % of \(eventCount.grouped) events are cut from the open log" }
    var peer: String? { "appends with no cut" }
    var target: Target { Target(metric: .milliseconds, text: "none, reported") }
    var notes: [String] { facts }

    func prepare(_ context: BenchContext) throws {
        try fixture.acquire(context)
        directory = try context.scratch.freshDirectory(id)
    }

    func finish(_ context: BenchContext) {
        if let directory { context.scratch.remove(directory) }
        directory = nil
        fixture.release(context)
    }

    func measure(_ side: Side, repetition: Int, context: BenchContext) throws -> Double {
        guard let directory else { throw BenchError("\(id): not prepared") }
        let path = "\(directory)/log-\(side)-\(repetition).labellog"
        let archive = "\(directory)/archive-\(side)-\(repetition).labellog"
        try FileManager.default.copyItem(atPath: fixture.logPath, toPath: path)
        defer { [path, archive].forEach { try? FileManager.default.removeItem(atPath: $0) } }
        let writer = try LogWriter.open(path: path, options: LogWriter.Options(durability: .syncEachAppend))
        defer { writer.close() }
        let cut = UInt64(eventCount / 10 * 9)
        let first = writer.lastSeq + 1
        var latencies: [Double] = []
        let cutSeconds = Mutex<Double>(0)
        if side == .ours {
            let done = Atomic<Bool>(false)
            let failure = Mutex<String?>(nil)
            let cutter = Thread {
                do {
                    let elapsed = try Statistics.time {
                        try writer.cutHistory(through: cut, archiveTo: archive, now: .now(), image: { [] })
                    }
                    cutSeconds.withLock { $0 = Statistics.seconds(elapsed) }
                } catch {
                    failure.withLock { $0 = "\(error)" }
                }
                done.store(true, ordering: .releasing)
            }
            cutter.start()
            while !done.load(ordering: .acquiring) { latencies.append(try timedAppend(writer, latencies.count)) }
            if let failure = failure.withLock({ $0 }) { throw BenchError("\(id): the cut failed: \(failure)") }
            appendsDuringCut = latencies.count
        } else {
            for k in 0..<max(1, appendsDuringCut) { latencies.append(try timedAppend(writer, k)) }
        }
        writer.close()
        try check(path: path, archive: side == .ours ? archive : nil, appended: first...(writer.lastSeq))
        let sorted = latencies.sorted()
        let longest = sorted.last ?? 0
        if side == .ours {
            facts = [
                "cut of seqs 1…\(Int(cut).grouped) in \(Int(cutSeconds.withLock { $0 } * 1e3).grouped) ms while one thread appended: \(latencies.count.grouped) durable appends during it, median \(String(format: "%.2f", sorted[sorted.count / 2])) ms, longest \(String(format: "%.1f", longest)) ms (the writer's lock is taken only for the swap: the records appended meanwhile copied, two syncs; the copies are synced every 4 MiB so a durable append never waits behind more unwritten data of theirs); every record in the archive and the log afterwards"
            ]
        }
        return longest
    }

    /// Appends one record and returns how long it took, in milliseconds.
    private func timedAppend(_ writer: LogWriter, _ k: Int) throws -> Double {
        let entry = LogEntry(.added(id: LabelID(), title: "appended \(k)", isEnabled: true, index: 0))
        return Statistics.seconds(try Statistics.time { _ = try writer.append(entry) }) * 1e3
    }

    /// The archive (if any) and the log hold consecutive seqs from 1 through the last append (the tests check the join's chain).
    private func check(path: String, archive: String?, appended: ClosedRange<UInt64>) throws {
        var next: UInt64 = 1
        for file in [archive, path].compactMap({ $0 }) {
            let reader = try LogReader(path: file)
            guard reader.header.firstSeq == next else {
                throw BenchError("\(id): \(file) does not continue the history at seq \(next)")
            }
            while let record = try reader.next() {
                guard record.seq == next else { throw BenchError("\(id): seq \(record.seq) where \(next) was expected in \(file)") }
                next += 1
            }
        }
        guard next == appended.upperBound + 1 else {
            throw BenchError("\(id): the history ends at seq \(next - 1), not \(appended.upperBound)")
        }
    }
}
