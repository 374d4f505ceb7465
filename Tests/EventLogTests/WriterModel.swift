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
        var outcome: Outcome = .pending
    }

    struct State: Sendable {
        /// The log as the writer had it at the last checkpoint (open, or a discard that succeeded).
        var base: [EventRecord] = []
        /// Appends since the checkpoint.
        var calls: [Call] = []
        /// For `noSync`: the last seq an explicit `sync()` made durable.
        var syncedThrough: UInt64 = 0
        /// A discard failed: records above this seq, acknowledged by then, may or may not have been cut.
        var demotedAbove: UInt64?
        /// The calls (by index) the demotion covers: those made before the failed discard.
        var demotedCalls = 0
        /// Injected sync failures (positions in the file system's list) whose error a call of this writer has returned.
        var reportedFailures = Set<Int>()
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
            s.reportedFailures = []
            s.base = records
            s.calls = []
            s.syncedThrough = UInt64(records.count)
            s.demotedAbove = nil
            s.demotedCalls = 0
        }
    }

    /// A call of the writer returned, and `failures` (positions in the file system's list of
    /// failed syncs) had happened in calls of its thread: the writer has seen them.
    func callReturned(afterMeeting failures: [Int]) {
        state.withLock { s in s.reportedFailures.formUnion(failures) }
    }

    func beginAppend(_ entries: [LogEntry]) -> Int {
        state.withLock { s in
            s.calls.append(Call(entries: entries, failedSyncsAtStart: s.reportedFailures.count))
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
                let matches = records.count == call.entries.count
                    && zip(records, call.entries).allSatisfy { $0 == $1.record(seq: $0.seq, now: $0.timestamp) }
                    && zip(records, records.dropFirst()).allSatisfy { $0.seq + 1 == $1.seq }
                if !matches { s.violations.append("an append returned records that differ from its entries: seqs \(records.map(\.seq))") }
                if call.failedSyncsAtStart > 0 {
                    s.violations.append("seqs \(records.first!.seq)...\(records.last!.seq) were acknowledged by an append that began after a failed sync: the writer is not poisoned")
                }
            case .failure(let error):
                s.calls[index].outcome = .failed(error)
                if call.failedSyncsAtStart > 0 && !crashed && error.code != .poisoned {
                    s.violations.append("an append that began after a failed sync failed with \(error.code) instead of poisoned: \(error)")
                }
            }
        }
    }

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
                s.base = kept
                s.calls = []
                s.syncedThrough = UInt64(kept.count)
                s.demotedAbove = nil
                s.demotedCalls = 0
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
            let demoted = s.demotedAbove ?? .max
            for record in s.base {
                if record.seq <= demoted { e.required[record.seq] = record } else { e.exact[record.seq] = record }
            }
            for (index, call) in s.calls.enumerated() {
                let key = CrashExpectation.CallKey.call(index)
                e.callSizes[key] = call.entries.count
                switch call.outcome {
                case .acknowledged(let records):
                    for (i, record) in records.enumerated() {
                        e.origin[record.seq] = (key, i)
                        var durable = true
                        if mode == .noSync {
                            switch kind {
                            case .process: durable = !syncFailed || record.seq <= s.syncedThrough
                            case .power: durable = record.seq <= s.syncedThrough
                            }
                        }
                        if index < s.demotedCalls && record.seq > demoted { durable = false }
                        if durable { e.required[record.seq] = record } else { e.exact[record.seq] = record }
                    }
                case .failed(let error) where [.poisoned, .closed, .invalidEvent, .seqConflict].contains(error.code):
                    break  // refused before anything was written
                case .pending, .failed:
                    for (i, entry) in call.entries.enumerated() {
                        e.inFlight[entry.timestamp!.millisecondsSince1970] = (key, i, entry)
                    }
                }
            }
            return e
        }
    }
}
