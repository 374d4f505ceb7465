import EventLog
import Foundation

/// A storage that models a machine losing power: an append is first
/// *written* (in flight, not yet durable), then, after a simulated sync of
/// `syncTime`, *durable*; reads and ``lastSeq`` see durable records only, as a
/// reopened log would.
///
/// The `cutAt`-th append is where the power goes: that append throws an
/// `ioError`, and so does every call after it. With `landsOnCut` the cut
/// append's records still became durable (the sync finished, its
/// acknowledgement was lost); without, they are gone.
///
/// Thread safety: all state behind one lock (`Locked`); the simulated sync
/// runs outside it, so readers of the store run while a group is in flight.
final class PowerCutStorage: EventStorage, Sendable {
    private struct State {
        var durable: [EventRecord] = []
        var inFlight: [EventRecord] = []
        var appends = 0
        var dead = false
        /// How many entries each append carried, in order (a group's size).
        var groupSizes: [Int] = []
    }

    let cutAt: Int
    let landsOnCut: Bool
    let syncTime: Duration
    private let state = Locked(State())

    init(cutAt: Int, landsOnCut: Bool, syncTime: Duration = .microseconds(300)) {
        self.cutAt = cutAt
        self.landsOnCut = landsOnCut
        self.syncTime = syncTime
    }

    /// Every durable record: what a reopened log holds.
    var durableRecords: [EventRecord] { state.withLock { $0.durable } }
    /// The number of durable records (never decreases).
    var durableCount: UInt64 { state.withLock { UInt64($0.durable.count) } }
    /// Whether the power has been cut.
    var isDead: Bool { state.withLock { $0.dead } }
    /// The number of entries of each append, in order (the cut one included).
    var groupSizes: [Int] { state.withLock { $0.groupSizes } }

    var lastSeq: UInt64 { durableCount }

    func append(_ entries: [LogEntry], expectedLastSeq: UInt64?) throws(EventLogError) -> [EventRecord] {
        let (records, isCut) = try state.withLock { (s) throws(EventLogError) -> ([EventRecord], Bool) in
            if s.dead { throw Self.powerLost }
            let last = UInt64(s.durable.count)
            if let expectedLastSeq, expectedLastSeq != last {
                throw EventLogError(.seqConflict, "expected last seq \(expectedLastSeq), log is at \(last)", path: nil)
            }
            let records = entries.enumerated().map { i, entry in
                EventRecord(
                    seq: last + UInt64(i) + 1, timestamp: entry.timestamp ?? .now(), actor: entry.actor, note: entry.note,
                    event: entry.event)
            }
            s.appends += 1
            s.groupSizes.append(entries.count)
            s.inFlight = records
            let isCut = s.appends == cutAt
            if isCut { s.dead = true }
            return (records, isCut)
        }
        // The sync: the records are written but not durable yet.
        Thread.sleep(forTimeInterval: Double(syncTime.components.attoseconds) / 1e18 + Double(syncTime.components.seconds))
        state.withLock { s in
            if !isCut || landsOnCut { s.durable += records }
            s.inFlight = []
        }
        if isCut { throw Self.powerLost }
        return records
    }

    func read(from seq: UInt64, maxCount: Int) throws(EventLogError) -> [EventRecord] {
        try state.withLock { (s) throws(EventLogError) -> [EventRecord] in
            if s.dead { throw Self.powerLost }
            let start = Int(max(seq, 1) - 1)
            guard start < s.durable.count, maxCount > 0 else { return [] }
            return Array(s.durable[start..<min(s.durable.count, start + maxCount)])
        }
    }

    private static var powerLost: EventLogError {
        EventLogError(.ioError, "injected: the power was cut", path: "power-cut", errno: EIO)
    }
}
