import Foundation
import LabelStoreTestSupport

@testable import EventLog

/// What a log may hold after one crash, and the check of a reopened log against it:
///
/// - every `required` record (acknowledged and durable for this kind of crash)
///   is there, exactly, at its seq — so the log holds at least up to the last one;
/// - every other record is an `exact` one (acknowledged but not required) at its
///   seq, or an `inFlight` entry (written, not acknowledged), whole;
/// - the records of one append form a run that starts at its first record, and
///   only the last run may be cut short (an append is one write; recovery keeps a prefix).
struct CrashExpectation {
    enum CallKey: Hashable, Sendable { case call(Int) }

    var required: [UInt64: EventRecord] = [:]
    var exact: [UInt64: EventRecord] = [:]
    /// The append and position of each acknowledged record.
    var origin: [UInt64: (key: CallKey, index: Int)] = [:]
    /// Entries of appends that may have been written, by their unique timestamp.
    var inFlight: [Int64: (key: CallKey, index: Int, entry: LogEntry)] = [:]
    var callSizes: [CallKey: Int] = [:]
    /// Events of the life that may explain lost records, named in the report.
    var context: [String] = []

    var lastRequiredSeq: UInt64 { required.keys.max() ?? 0 }

    /// How many records that may be torn by this crash carry a frame of the log in their bytes.
    var unsyncedFrameCarriers: Int {
        let events = exact.values.map(\.event) + inFlight.values.map(\.entry.event)
        return events.filter(StressRecords.carriesFrame).count
    }

    /// The problems of `records` (a reopened log's, seq 1 first); empty if it is a log this crash may leave.
    func problems(of records: [EventRecord]) -> [String] {
        if UInt64(records.count) < lastRequiredSeq {
            let missing = (UInt64(records.count) + 1)...lastRequiredSeq
            let lost = missing.filter { required[$0] != nil }
            let during = context.isEmpty ? "" : "; during the life: \(context.joined(separator: ", "))"
            return [
                "acknowledged records are lost: seqs \(Self.ranges(lost)) (the log ends at seq \(records.count); acknowledged through \(lastRequiredSeq)\(during))"
            ]
        }
        var run: (key: CallKey, next: Int)?
        var used = Set<Int64>()
        for record in records {
            var origin: (key: CallKey, index: Int)?
            if let wanted = required[record.seq] {
                guard record == wanted else {
                    return [
                        "seq \(record.seq) is not the acknowledged record: found \(Self.describe(record)), acknowledged \(Self.describe(wanted))"
                    ]
                }
                origin = self.origin[record.seq]
            } else if let wanted = exact[record.seq], record == wanted {
                origin = self.origin[record.seq]
            } else if let candidate = inFlight[record.timestamp.millisecondsSince1970],
                candidate.entry.record(seq: record.seq, now: record.timestamp) == record
            {
                origin = (candidate.key, candidate.index)
            } else {
                return ["seq \(record.seq) holds a record no append wrote (or not whole): \(Self.describe(record))"]
            }
            if !used.insert(record.timestamp.millisecondsSince1970).inserted {
                return ["seq \(record.seq) repeats an earlier record: \(Self.describe(record))"]
            }
            if let current = run, let origin, current.key == origin.key, current.next == origin.index {
                run = (current.key, current.next + 1)
                continue
            }
            if let current = run, current.next < callSizes[current.key, default: 0] {
                return [
                    "an append survives with only \(current.next) of its \(callSizes[current.key, default: 0]) records, yet seq \(record.seq) follows it"
                ]
            }
            if let origin, origin.index != 0 {
                return ["seq \(record.seq) is record \(origin.index + 1) of an append whose earlier records are missing"]
            }
            run = origin.map { ($0.key, 1) }
        }
        return []
    }

    /// A short description of a record (large reorders are not spelled out).
    static func describe(_ record: EventRecord) -> String {
        let what: String
        switch record.event {
        case .added(_, let title, _, _): what = "added \"\(title.prefix(24))\(title.count > 24 ? "…" : "")\" (\(title.utf8.count) bytes)"
        case .reordered(let order): what = "reordered \(order.count) ids"
        default: what = "\(record.event.kind)"
        }
        return "seq \(record.seq) \(what) at \(record.timestamp.millisecondsSince1970)"
    }

    /// `[1, 2, 3, 7]` → `1...3, 7`.
    static func ranges(_ seqs: [UInt64]) -> String {
        var parts: [String] = []
        var current: ClosedRange<UInt64>?
        func close() {
            if let r = current { parts.append(r.lowerBound == r.upperBound ? "\(r.lowerBound)" : "\(r.lowerBound)...\(r.upperBound)") }
        }
        for seq in seqs.sorted() {
            if let r = current, seq == r.upperBound + 1 {
                current = r.lowerBound...seq
                continue
            }
            close()
            current = seq...seq
        }
        close()
        return parts.joined(separator: ", ")
    }
}
