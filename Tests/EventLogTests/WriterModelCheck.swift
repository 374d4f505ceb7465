import Foundation
import LabelStoreTestSupport

@testable import EventLog

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One round of the writer model check: a new log driven through a few
/// *lives*. Each life opens the log (default recovery mode) through a
/// ``FaultyFileSystem`` (fsyncgate sync model, pages evicted or not), checks
/// what it reads against ``WriterModel``, then runs random steps — appends
/// (small, long, records holding a frame of the log, > 10 MB reorders), explicit `sync()`,
/// `discardRecords(after:)`, bursts of concurrent appenders under group
/// commit, pipelined appends (up to three written before the first one's
/// sync returned, each waited for in turn), injected write/sync/preallocation failures — and crashes, at an
/// armed I/O call or between steps, as a process crash or a power loss of
/// any ``FaultyFileSystem/Loss``. The next life's open checks the crash.
///
/// Everything random comes from the round's seed; only the interleaving of
/// concurrent appenders (group commit with 2–4 threads) is not reproducible.
final class WriterModelCheck {
    let mode: Durability
    let seed: UInt64
    private(set) var trace: [String] = []
    private(set) var failures: [String] = []

    private var rng: SeededGenerator
    private let dir = TemporaryDirectory()
    private let path: String
    private let model = WriterModel()
    private let threads: Int
    private let preallocation: Int64
    private var largeBudget: Int
    private var serial: Int64 = 0
    private var frame: [UInt8]?
    private var position = "start"
    /// Injected sync failures of earlier writers of this life's file system (a failed open).
    private var failedSyncBaseline = 0

    /// Tells the model that a call of this thread returned: the sync failures it met are known to the writer
    /// (`ofAnyThread`: those of every thread, when the call waited for syncs that ran on another one).
    private static func returned(_ fs: FaultyFileSystem, _ model: WriterModel, path: String, baseline: Int, ofAnyThread: Bool = false) {
        let failures = fs.failedSyncs
        let met = ofAnyThread ? Array(failures.indices.filter { failures[$0].path == path }) : fs.failedSyncsOfCurrentThread(path: path)
        model.callReturned(
            afterMeeting: met.filter { $0 >= baseline }.map { index in
                (index, (failures[index].site ?? failures[index].op).rawValue)
            })
    }

    /// The log format the round's log is created in (2, or 4: batch frames).
    let format: UInt16

    init(mode: Durability, seed: UInt64, format: UInt16 = LogFormat.currentVersion) {
        self.mode = mode
        self.seed = seed
        self.format = format
        rng = SeededGenerator(seed: seed &* 0x9E37_79B9_7F4A_7C15 &+ 17)
        path = dir.file("model.labellog")
        threads = mode == .groupCommit ? Int.random(in: 1...4, using: &rng) : 1
        preallocation = [0, 4096, 1 << 20].randomElement(using: &rng)!
        // A torn > 10 MB record costs seconds to recover in a debug build: one round in eight has one.
        largeBudget = seed % 8 == 3 ? 1 : 0
    }

    var summary: String { "\(mode), \(threads) thread(s), preallocation \(preallocation)" }

    /// Runs the round; returns the violations found (empty when the writer kept every promise).
    func run() -> [String] {
        note("round: \(summary)")
        var expectation: CrashExpectation?
        var crash = "creation"
        let lives = Int.random(in: 2...4, using: &rng)
        for life in 0...lives {
            position = "life \(life)"
            let fs = FaultyFileSystem(evictsDroppedPages: Bool.random(using: &rng), performsRealSyncs: false)
            guard let writer = open(fs, life: life, after: crash, expecting: expectation) else { break }
            if life == lives || !failures.isEmpty {
                writer.close()
                break
            }
            if frame == nil { frame = try? StressRecords.frameBytes(validIn: path, seq: UInt64.random(in: 1...127, using: &rng)) }
            live(writer, fs, life: life)
            fs.crashNow()
            writer.close()
            let kind: WriterModel.CrashKind =
                Int.random(in: 0..<4, using: &rng) == 0
                ? .process : .power(FaultyFileSystem.Loss.allCases.randomElement(using: &rng)!)
            let syncFailed = fs.failedSyncCount(path: path) > 0
            expectation = model.expectation(after: kind, mode: mode, syncFailed: syncFailed)
            let image: [UInt8]
            switch kind {
            case .process: image = fs.imageAfterProcessCrash(path)
            case .power(let loss): image = fs.imageAfterPowerLoss(path, loss: loss, using: &rng)
            }
            writeBytes(path, image)
            let frameLike = expectation!.unsyncedFrameCarriers
            let during = expectation!.context.isEmpty ? "" : "; during the life: \(expectation!.context.joined(separator: ", "))"
            crash =
                "\(kind) in life \(life) (pages evicted on failed sync: \(fs.evictsDroppedPages); unsynced frame carriers: \(frameLike)\(during))"
            note(
                "crash: \(crash); \(image.count) bytes on disk; must hold seqs \(CrashExpectation.ranges(Array(expectation!.required.keys)))"
            )
            collectModelViolations()
            if !failures.isEmpty { break }
        }
        return failures
    }

    // MARK: Lives

    private func open(_ fs: FaultyFileSystem, life: Int, after crash: String, expecting expectation: CrashExpectation?) -> LogWriter? {
        var injected = false
        if Int.random(in: 0..<5, using: &rng) == 0 {
            injected = true
            if life == 0 {
                fs.failNext([FaultyFileSystem.Op.creationSync, .syncDirectory, .link].randomElement(using: &rng)!)
            } else if Bool.random(using: &rng) {
                fs.failNext(.truncationSync)
            } else {
                fs.add(.init(op: .read, first: fs.calls(.read) + Int.random(in: 1...4, using: &rng)))
            }
        }
        var options = LogWriter.Options(durability: mode, createIfMissing: true, fileSystem: fs, preallocation: preallocation)
        options.newLogFormat = format
        var writer: LogWriter
        do {
            writer = try Self.openWriter(path, options)
        } catch {
            guard injected && fs.injectedCount > 0 else {
                fail("the log does not open after a \(crash): \(error)")
                return nil
            }
            note("open failed as injected: \(error)")
            fs.clearFaults()
            do { writer = try Self.openWriter(path, options) } catch {
                fail("the log does not open after a \(crash) (and an injected failure of a first attempt): \(error)")
                return nil
            }
        }
        fs.clearFaults()
        failedSyncBaseline = fs.failedSyncs.count
        let records: [EventRecord]
        do { records = try writer.read(from: 1, maxCount: Int(writer.lastSeq) + 1) } catch {
            fail("the opened log cannot be read: \(error)")
            writer.close()
            return nil
        }
        note("opened: seqs 1...\(records.count); \(writer.recoveryReport.summary)")
        if let expectation {
            for problem in expectation.problems(of: records) { fail("after a \(crash): \(problem)") }
        } else if !records.isEmpty {
            fail("a new log holds \(records.count) records")
        }
        model.reopened(records)
        return writer
    }

    /// The writer's open, without building a record per replayed record (the same recovery as `open`).
    private static func openWriter(_ path: String, _ options: LogWriter.Options) throws -> LogWriter {
        try LogWriter.openWithViews(path: path, options: options) { _ in }
    }

    private func live(_ writer: LogWriter, _ fs: FaultyFileSystem, life: Int) {
        if Int.random(in: 0..<10, using: &rng) < 7 {
            let at = Int.random(in: 1...40, using: &rng)
            fs.armCrash(beforeMutatingCall: at)
            note("crash armed at mutating call \(at) from now")
        }
        if threads > 1 {
            // Widen the windows between a sync's start and its end.
            fs.setHook { op, _ in if op.isSync, Bool.random() { usleep(UInt32.random(in: 20...1_500)) } }
        }
        let steps = Int.random(in: 1...10, using: &rng)
        for step in 0..<steps where !fs.hasCrashed && failures.isEmpty {
            position = "life \(life) step \(step)"
            if Int.random(in: 0..<10, using: &rng) < 3 { injectFault(fs) }
            let roll = Int.random(in: 0..<100, using: &rng)
            if roll < 12 {
                explicitSync(writer, fs)
            } else if roll < 22 {
                discard(writer, fs)
            } else if roll < 32 {
                pipelined(writer, fs)
            } else if threads > 1 && roll < 60 {
                burst(writer, fs)
            } else {
                let entries = makeEntries()
                note(append(entries, writer, fs))
            }
            collectModelViolations()
        }
    }

    private func injectFault(_ fs: FaultyFileSystem) {
        switch Int.random(in: 0..<5, using: &rng) {
        case 0:
            let partial = [0, 1, 9, 30, 4096, 100_000].randomElement(using: &rng)!
            let errno = [ENOSPC, EIO, EDQUOT].randomElement(using: &rng)!
            fs.failNext(.recordWrite, errno: errno, partialBytes: partial)
            note("fault: next record write fails (errno \(errno)) after \(partial) bytes")
        case 1:
            fs.failNext(.zeroWrite, errno: ENOSPC, partialBytes: Int.random(in: 0...4096, using: &rng))
            note("fault: next preallocation write fails")
        case 2:
            fs.failNext(.syncData)
            note("fault: next syncData fails")
        case 3:
            fs.failNext(.preallocationSync)
            note("fault: next preallocation sync fails")
        default:
            fs.failNext(.truncationSync)
            note("fault: next truncation sync (discardRecords) fails")
        }
    }

    // MARK: Steps

    private func append(_ entries: [LogEntry], _ writer: LogWriter, _ fs: FaultyFileSystem) -> String {
        Self.append(entries, writer, fs, model: model, path: path, failedSyncBaseline: failedSyncBaseline)
    }

    /// One append, registered with the model; safe to call from several threads.
    private static func append(
        _ entries: [LogEntry], _ writer: LogWriter, _ fs: FaultyFileSystem,
        model: WriterModel, path: String, failedSyncBaseline: Int
    ) -> String {
        let index = model.beginAppend(entries)
        let result: Result<[EventRecord], EventLogError>
        do { result = .success(try writer.append(entries)) } catch { result = .failure(error) }
        model.endAppend(index, result, crashed: fs.hasCrashed)
        returned(fs, model, path: path, baseline: failedSyncBaseline)
        let what = "append \(entries.count) (\(entries.map(Self.describe).joined(separator: ", ")))"
        switch result {
        case .success(let records): return "\(what) → acknowledged seqs \(records.first!.seq)...\(records.last!.seq)"
        case .failure(let error): return "\(what) → \(error.code): \(error.message.prefix(90))"
        }
    }

    /// One to three pipelined appends, each written while the syncs of the
    /// ones before it may still run (on the writer's sync thread), then each
    /// waited for in turn: an acknowledged one is durable in every mode.
    private func pipelined(_ writer: LogWriter, _ fs: FaultyFileSystem) {
        var calls: [(index: Int, what: String, started: Result<PendingAppend, EventLogError>)] = []
        for _ in 0..<Int.random(in: 1...3, using: &rng) {
            let entries = makeEntries()
            let index = model.beginAppend(entries)
            let started = Result { () throws(EventLogError) in try writer.appendPipelined(entries) }
            calls.append((index, "pipelined append \(entries.count) (\(entries.map(Self.describe).joined(separator: ", ")))", started))
        }
        var metFailure = false
        for call in calls {
            let result = call.started.flatMap { pending in
                Result { () throws(EventLogError) in
                    try pending.waitUntilDurable()
                    return pending.records
                }
            }
            model.endAppend(call.index, result, crashed: fs.hasCrashed)
            switch result {
            case .success(let records):
                // Durable whatever the mode: as an explicit sync through them.
                model.synced(through: records.last!.seq)
                note("\(call.what) → acknowledged seqs \(records.first!.seq)...\(records.last!.seq)")
            case .failure(let error):
                metFailure = metFailure || error.code == .poisoned || error.code == .ioError
                note("\(call.what) → \(error.code): \(error.message.prefix(90))")
            }
        }
        // The syncs ran on the writer's sync thread: a failure there reached
        // this thread through the waits (the writer is poisoned from then on).
        Self.returned(fs, model, path: path, baseline: failedSyncBaseline, ofAnyThread: metFailure)
    }

    private func explicitSync(_ writer: LogWriter, _ fs: FaultyFileSystem) {
        let through = writer.lastSeq
        do {
            try writer.sync()
            model.synced(through: through)
            note("sync() through seq \(through)")
        } catch {
            if error.code == .ioError { model.noteContext("a failed explicit sync()") }
            note("sync() failed: \(error.code)")
        }
        Self.returned(fs, model, path: path, baseline: failedSyncBaseline)
    }

    private func discard(_ writer: LogWriter, _ fs: FaultyFileSystem) {
        let last = writer.lastSeq
        let keep = UInt64.random(in: (last > 5 ? last - 5 : 0)...last, using: &rng)
        do {
            let cut = try writer.discardRecords(after: keep)
            var kept = model.knownLog().map { Array($0.prefix(Int(keep))) }
            if kept?.count != Int(keep) { kept = try? writer.read(from: 1, maxCount: Int(keep)) }
            model.discarded(after: keep, kept: kept ?? [], error: nil)
            note("discardRecords(after: \(keep)) cut \(cut) bytes")
        } catch {
            model.discarded(after: keep, kept: nil, error: error)
            note("discardRecords(after: \(keep)) failed: \(error.code)")
        }
        Self.returned(fs, model, path: path, baseline: failedSyncBaseline)
    }

    /// What one thread of a burst does.
    private enum Action: Sendable {
        case append([LogEntry])
        /// An explicit `sync()`; `failing`: its syncData is made to fail (it races the group syncs for it).
        case sync(failing: Bool)
    }

    /// 2–4 threads append at once (group commit); the first may also call `sync()`.
    private func burst(_ writer: LogWriter, _ fs: FaultyFileSystem) {
        let plans: [[Action]] = (0..<threads).map { t in
            var plan: [Action] = (0..<Int.random(in: 1...3, using: &rng)).map { _ in .append(makeEntries()) }
            if t == 0 && Bool.random(using: &rng) {
                plan.insert(.sync(failing: Bool.random(using: &rng)), at: Int.random(in: 1...plan.count, using: &rng))
            }
            return plan
        }
        let notes = Locked<[String]>([])
        let group = DispatchGroup()
        let (model, path, baseline) = (self.model, self.path, failedSyncBaseline)
        for (t, plan) in plans.enumerated() {
            group.enter()
            Thread.detachNewThread {
                for action in plan {
                    switch action {
                    case .append(let entries):
                        let line = Self.append(entries, writer, fs, model: model, path: path, failedSyncBaseline: baseline)
                        notes.withLock { $0.append("  thread \(t): \(line)") }
                    case .sync(let failing):
                        // Armed just before the call, so the fault most likely hits this sync, not a group sync.
                        if failing { fs.failNext(.syncData) }
                        let through = writer.lastSeq
                        do throws(EventLogError) {
                            try writer.sync()
                            model.synced(through: through)
                            notes.withLock { $0.append("  thread \(t): sync() through seq \(through)") }
                        } catch {
                            if error.code == .ioError { model.noteContext("a failed explicit sync() beside group syncs") }
                            notes.withLock {
                                $0.append("  thread \(t): sync()\(failing ? " (its syncData made to fail)" : "") failed: \(error.code)")
                            }
                        }
                        Self.returned(fs, model, path: path, baseline: baseline)
                    }
                }
                group.leave()
            }
        }
        note("burst of \(threads) threads")
        if group.wait(timeout: .now() + 120) == .timedOut {
            fail("a burst of concurrent appends did not finish within 120 s (deadlock?)")
        }
        for line in notes.withLock({ $0 }) { note(line) }
    }

    // MARK: Entries

    private func makeEntries() -> [LogEntry] {
        let roll = Int.random(in: 0..<100, using: &rng)
        let count = roll < 60 ? 1 : roll < 95 ? Int.random(in: 2...4, using: &rng) : 8
        return (0..<count).map { _ in makeEntry() }
    }

    /// An entry unique in the round (its timestamp is its serial number).
    private func makeEntry() -> LogEntry {
        serial += 1
        let time = EventTimestamp(millisecondsSince1970: 1_800_000_000_000 + serial)
        let id = StressRecords.asciiID(Int(serial))
        let roll = Int.random(in: 0..<100, using: &rng)
        if roll < 4 && largeBudget > 0 {
            largeBudget -= 1
            return StressRecords.largeReorder(timestamp: time, actor: "bulk \(serial)")
        }
        if roll < 14, let frame {
            return StressRecords.frameCarrier(
                tag: "m\(serial) ", frame: frame, length: Int.random(in: 100...6000, using: &rng), timestamp: time)
        }
        if roll < 26 {
            let title =
                "m\(serial) " + String(repeating: "é", count: Int.random(in: 0...4000, using: &rng))
                + String(repeating: "z", count: Int.random(in: 1000...8000, using: &rng))
            return LogEntry(.added(id: id, title: title, isEnabled: false, index: 0), timestamp: time)
        }
        if roll < 34 {
            return LogEntry(
                .toggled(id: id, isEnabled: true), timestamp: time,
                actor: String(repeating: "a", count: LogLimits.maxActorBytes), note: String(repeating: "n", count: LogLimits.maxNoteBytes))
        }
        if roll < 40 {
            return LogEntry(.rejected(id: id, command: "cmd \(serial)", reason: "refused ✨"), timestamp: time, actor: "model")
        }
        let title = "m\(serial) " + String(repeating: "ø", count: Int.random(in: 0...60, using: &rng))
        return LogEntry(.added(id: id, title: title, isEnabled: true, index: 0), timestamp: time)
    }

    static func describe(_ entry: LogEntry) -> String {
        switch entry.event {
        case .reordered(let order): StressRecords.carriesFrame(entry.event) ? "frame carrier" : "reorder of \(order.count) ids"
        case .added(_, let title, _, _): "title of \(title.utf8.count) bytes"
        default: "\(entry.event.kind)"
        }
    }

    // MARK: Reporting

    private static let printsTrace = ProcessInfo.processInfo.environment["LABELSTORE_MODEL_TRACE"] != nil

    private func note(_ line: String) {
        trace.append("[\(position)] \(line)")
        if Self.printsTrace { print("model check \(seed): \(trace.last!)") }
    }

    private func fail(_ text: String) {
        failures.append("\(position): \(text)")
        note("VIOLATION: \(text)")
    }

    private func collectModelViolations() {
        for text in model.takeViolations() { fail(text) }
    }
}
