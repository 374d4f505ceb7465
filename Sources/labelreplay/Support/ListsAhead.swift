import Foundation
import LabelProjection

/// The lists right after each of a list of seqs (ascending), for `trace
/// --label`: each is a fold from a checkpoint or on from an earlier one, and
/// they do not depend on each other, so on a machine with two cores or more
/// two threads (lanes) compute them, every other seq each, while the calling
/// thread takes them in order (``next()``). A lane is at most one list ahead
/// of the caller, so at most two lists wait at a time.
///
/// Each lane has its own ``ListCursor`` over its own reader and ``Checkpoints/lane()``;
/// what a lane's checkpoints would report is handed over with its list and
/// printed by the caller, in seq order. A lane that fails hands over its
/// error in its list's place; the caller rethrows it when it gets there, as
/// the folds on one thread would have.
///
/// With one core, one seq, or a server list (whose checkpoints are read
/// through one connection), the lists are folded on the calling thread.
///
/// Thread safety: the shared state below `condition` is guarded by it; a
/// lane's cursor belongs to its thread until ``stop()`` has joined it.
final class ListsAhead: @unchecked Sendable {
    /// One lane: a cursor used only by its thread.
    private final class Lane: @unchecked Sendable {
        var cursor: ListCursor
        init(_ cursor: ListCursor) { self.cursor = cursor }
    }

    private let seqs: [UInt64]
    /// The caller's cursor, when there are no lanes (moved on by ``next()``: hand it back after).
    private(set) var cursor: ListCursor?
    private let checkpoints: Checkpoints
    private let condition = NSCondition()
    /// Finished lists by index in `seqs`, not yet taken.
    private var ready: [Int: (Result<ListCheckpoint?, any Error>, [Checkpoints.Report])] = [:]
    /// How many lists the caller has taken.
    private var taken = 0
    private var cancelled = false
    private var running = 0
    private var lanes: [Lane] = []

    /// The lists right after each of `seqs`: with lanes when worth it (at most
    /// `lanes`, and one per core), else through `cursor`.
    init(seqs: [UInt64], cursor: ListCursor, lanes maxLanes: Int = 2) throws {
        self.seqs = seqs
        self.checkpoints = cursor.checkpoints
        let laneCount = min(maxLanes, ProcessInfo.processInfo.activeProcessorCount, seqs.count)
        guard laneCount > 1 else {
            self.cursor = cursor
            return
        }
        for _ in 0..<laneCount {
            guard let lane = try cursor.checkpoints.lane() else {
                lanes = []
                self.cursor = cursor
                return
            }
            lanes.append(
                Lane(
                    ListCursor(
                        path: cursor.path, checkpoints: lane, interval: cursor.interval, console: cursor.console,
                        removedAmong: cursor.removedAmong)))
        }
        running = lanes.count
        let runs = Self.runs(seqs, checkpointSeqs: cursor.checkpoints.seqs, interval: cursor.interval)
        for (number, lane) in lanes.enumerated() {
            let indexes = runs.enumerated().filter { $0.offset % lanes.count == number }.flatMap(\.element)
            let thread = Thread { [self] in run(lane, indexes: indexes) }
            thread.name = "labelreplay lists \(number)"
            thread.start()
        }
    }

    /// `seqs` (their indexes) in runs: each starts where ``ListCursor/list(through:)``
    /// starts afresh from a checkpoint, and goes on with the seqs it folds on to.
    /// The lanes take whole runs in turn, so together they fold what one cursor would.
    static func runs(_ seqs: [UInt64], checkpointSeqs: [UInt64], interval: UInt64) -> [[Int]] {
        var runs: [[Int]] = []
        var previous: UInt64?
        for (index, seq) in seqs.enumerated() {
            let nearest = checkpointSeqs.last { $0 <= seq } ?? 0
            if let previous, !ListCursor.startsAfresh(from: previous, to: seq, nearest: nearest, interval: interval) {
                runs[runs.count - 1].append(index)
            } else {
                runs.append([index])
            }
            previous = seq
        }
        return runs
    }

    /// A lane's loop: the lists at `indexes` (ascending), each computed once
    /// the caller has taken the lane's previous one.
    private func run(_ lane: Lane, indexes: [Int]) {
        defer {
            condition.withLock {
                running -= 1
                condition.broadcast()
            }
        }
        var previous: Int?
        for index in indexes {
            let go = condition.withLock {
                while !cancelled, let previous, previous >= taken { condition.wait() }
                return !cancelled
            }
            guard go else { return }
            let result = Result { try lane.cursor.list(through: seqs[index]) }
            let reports = lane.cursor.checkpoints.takeReports()
            condition.withLock {
                ready[index] = (result, reports)
                condition.broadcast()
            }
            if case .failure = result { return }
            previous = index
        }
    }

    /// The list right after the next seq (in order), with what its checkpoints reported printed first.
    func next() throws -> ListCheckpoint? {
        if cursor != nil {
            precondition(taken < seqs.count)
            defer { taken += 1 }
            return try cursor!.list(through: seqs[taken])
        }
        let index = taken
        let (result, reports) = condition.withLock {
            while ready[index] == nil { condition.wait() }
            taken += 1
            condition.broadcast()
            return ready.removeValue(forKey: index)!
        }
        for report in reports { checkpoints.report(report) }
        return try result.get()
    }

    /// Stops the lanes and waits until they have ended (a lane in the middle of a fold finishes it first).
    func stop() {
        condition.withLock {
            cancelled = true
            condition.broadcast()
            while running > 0 { condition.wait() }
            ready = [:]
        }
    }
}
