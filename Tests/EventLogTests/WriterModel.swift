import Foundation

@testable import EventLog

/// The oracle of the writer model check: what the writer acknowledged, what
/// was in flight, and so what a log may hold after a crash.
///
/// Every entry carries a timestamp unique in its round, so a record found
/// after a crash is matched to the entry it came from even when its seq was
/// never reported (its append failed or had not returned).
///
/// Thread safety: appends of concurrent threads register through the lock;
/// everything else is called by the driver between steps.
final class WriterModel: Sendable {
    enum Outcome: Sendable {
        case pending
        case acknowledged([EventRecord])
        case failed(EventLogError)
    }

    struct Call: Sendable {
        var entries: [LogEntry]
        /// Injected sync failures the writer had reported (a call that met one returned) before the call began.
        var failedSyncsAtStart: Int
        /// Their call sites.
        var failedSyncSites: [String] = []
        var outcome: Outcome = .pending
    }

    struct State: Sendable {
        /// The log as the writer had it at the last checkpoint (open, or a discard that succeeded).
        var base: [EventRecord] = []
        /// Appends since the checkpoint.
        var calls: [Call] = []
        /// For `noSync`: the last seq known durable (at open, or made so by an explicit `sync()`).
        var syncedThrough: UInt64 = 0
        /// A discard failed: records above this seq, acknowledged by then, may or may not have been cut.
        var demotedAbove: UInt64?
        /// The calls (by index) the demotion covers: those made before the failed discard.
        var demotedCalls = 0
        /// Injected sync failures (positions in the file system's list, with their call sites)
        /// whose error a call of this writer has returned.
        var reportedFailures: [Int: String] = [:]
        /// What happened since the checkpoint, to name the likely cause of lost records.
        var context: Set<String> = []
        var violations: [String] = []
    }

    let state = Locked(State())

    var violations: [String] { state.withLock { $0.violations } }
    /// The violations found since the last call.
    func takeViolations() -> [String] {
        state.withLock { s in
            defer { s.violations = [] }
            return s.violations
        }
    }

    // MARK: Events of a life

    /// A writer opened the log and read `records`: they are the new checkpoint.
    func reopened(_ records: [EventRecord]) {
        state.withLock { s in
            s.reportedFailures = [:]
            s.context = []
            s.base = records
            s.calls = []
            s.syncedThrough = UInt64(records.count)
            s.demotedAbove = nil
            s.demotedCalls = 0
        }
    }

    /// A call of the writer returned, and `failures` (positions in the file system's list of
    /// failed syncs) had happened in calls of its thread: the writer has seen them.
    func callReturned(afterMeeting failures: [(index: Int, site: String)]) {
        state.withLock { s in for failure in failures { s.reportedFailures[failure.index] = failure.site } }
    }

    func beginAppend(_ entries: [LogEntry]) -> Int {
        state.withLock { s in
            let sites = s.reportedFailures.sorted { $0.key < $1.key }.map(\.value)
            s.calls.append(Call(entries: entries, failedSyncsAtStart: sites.count, failedSyncSites: sites))
            return s.calls.count - 1
        }
    }

    /// Records how append `index` ended and checks the poison rule: an append that
    /// began after a failed sync must be refused (`poisoned`), never acknowledged.
    func endAppend(_ index: Int, _ result: Result<[EventRecord], EventLogError>, crashed: Bool) {
        state.withLock { s in
            let call = s.calls[index]
            switch result {
            case .success(let records):
                s.calls[index].outcome = .acknowledged(records)
                let matches =
                    records.count == call.entries.count
                    && zip(records, call.entries).allSatisfy { $0 == $1.record(seq: $0.seq, now: $0.timestamp) }
                    && zip(records, records.dropFirst()).allSatisfy { $0.seq + 1 == $1.seq }
                if !matches { s.violations.append("an append returned records that differ from its entries: seqs \(records.map(\.seq))") }
                if call.failedSyncsAtStart > 0 {
                    s.violations.append(
                        "seqs \(records.first!.seq)...\(records.last!.seq) were acknowledged by an append that began after the writer reported a failed sync (\(call.failedSyncSites.joined(separator: ", "))): the writer is not poisoned"
                    )
                }
            case .failure(let error):
                s.calls[index].outcome = .failed(error)
                if call.failedSyncsAtStart > 0 && !crashed && error.code != .poisoned {
                    s.violations.append(
                        "an append that began after the writer reported a failed sync (\(call.failedSyncSites.joined(separator: ", "))) was not refused as poisoned; it failed with \(error.code): \(error)"
                    )
                }
            }
        }
    }

    /// Remembers an event of this life that may explain a lost record (e.g. "a failed explicit sync()").
    func noteContext(_ text: String) { _ = state.withLock { $0.context.insert(text) } }

    /// An explicit `sync()` succeeded; it had been called when the writer's last seq was `seq`.
    func synced(through seq: UInt64) { state.withLock { s in s.syncedThrough = max(s.syncedThrough, seq) } }

    /// The records the writer holds by the model: checkpoint plus acknowledged appends, if gapless.
    func knownLog() -> [EventRecord]? {
        state.withLock { s in
            var log = s.base
            let acked = s.calls.compactMap { call -> [EventRecord]? in
                if case .acknowledged(let records) = call.outcome { return records }
                return nil
            }.joined().sorted { $0.seq < $1.seq }
            for record in acked {
                guard record.seq == UInt64(log.count + 1) else { return nil }
                log.append(record)
            }
            return log
        }
    }

    /// `discardRecords(after: seq)` returned: a success is a checkpoint at `kept`
    /// (the writer's records through seq); an I/O failure leaves it open whether the cut reached the disk.
    func discarded(after seq: UInt64, kept: [EventRecord]?, error: EventLogError?) {
        state.withLock { s in
            if let kept {
                // The cut is durable; the kept records are as durable as they were.
                s.base = kept
                s.calls = []
                s.syncedThrough = min(s.syncedThrough, UInt64(kept.count))
                s.demotedAbove = nil
                s.demotedCalls = 0
                s.context.insert("appended after discardRecords")
            } else if let error, error.code == .ioError {
                s.demotedAbove = min(s.demotedAbove ?? .max, seq)
                s.demotedCalls = s.calls.count
            }
        }
    }

    // MARK: Crash

    enum CrashKind: Sendable, CustomStringConvertible {
        /// The process died: everything written survives (with evicted pages reverted).
        case process
        case power(FaultyFileSystem.Loss)

        var description: String {
            switch self {
            case .process: "process crash"
            case .power(let loss): "power loss (\(loss))"
            }
        }
    }

    /// What the log may hold after a crash of `kind`, now.
    func expectation(after kind: CrashKind, mode: Durability, syncFailed: Bool) -> CrashExpectation {
        state.withLock { s in
            var e = CrashExpectation()
            e.context = s.context.sorted()
            let demoted = s.demotedAbove ?? .max
            /// Whether a record of the writer must survive this crash (if nothing cut it).
            func isDurable(_ seq: UInt64) -> Bool {
                guard mode == .noSync else { return true }  // acknowledged means synced
                switch kind {
                case .process: return !syncFailed || seq <= s.syncedThrough  // a failed sync drops unsynced pages
                case .power: return seq <= s.syncedThrough
                }
            }
            for record in s.base {
                if record.seq <= demoted && isDurable(record.seq) { e.required[record.seq] = record } else { e.exact[record.seq] = record }
            }
            for (index, call) in s.calls.enumerated() {
                let key = CrashExpectation.CallKey.call(index)
                e.callSizes[key] = call.entries.count
                switch call.outcome {
                case .acknowledged(let records):
                    for (i, record) in records.enumerated() {
                        e.origin[record.seq] = (key, i)
                        let durable = isDurable(record.seq) && !(index < s.demotedCalls && record.seq > demoted)
                        if durable { e.required[record.seq] = record } else { e.exact[record.seq] = record }
                    }
                case .failed(let error) where [.closed, .invalidEvent, .seqConflict].contains(error.code):
                    break  // refused before anything was written
                // A poisoned append is not taken as refused before writing: with concurrent
                // appenders, an append can begin between a group sync's failure and
                // the poison that follows it: it writes, is never acknowledged, and is refused while
                // waiting for durability — in flight, like any other unacknowledged write.
                case .pending, .failed:
                    // Written or not; a poisoned group-commit appender may have written before its sync refused.
                    for (i, entry) in call.entries.enumerated() {
                        e.inFlight[entry.timestamp!.millisecondsSince1970] = (key, i, entry)
                    }
                }
            }
            return e
        }
    }
}
