import EventLog
import LabelProjection

/// `trace --label` through the history index and the checkpoints: only the
/// events that can concern the labels (their own, and reorders) are replayed
/// into a store, each from the list right before it — folded from the nearest
/// checkpoint, or on from the previous event when that is nearer — and the
/// records after the index are replayed as usual. The output is the full
/// replay's, byte for byte.
///
/// Its cost follows the records it needs: the lists before the events come
/// from ``ListCursor``, which folds on from the previous event or afresh
/// from a nearer checkpoint, whichever reads less, so the records folded are
/// at most those from the first event's checkpoint to the last event — and
/// folded without notifications, which a full replay computes for every
/// record. It is used whenever the log has a usable history index.
extension Trace {
    /// Traces `labels` this way and returns how many events it printed; `nil`
    /// (nothing printed) when the log has no usable history index (`history`,
    /// which the caller opened).
    static func traceThroughCheckpoints(
        _ path: String, labels: Set<LabelID>, query: ViewQuery?, from: UInt64, to: UInt64?, checkpoints: Checkpoints,
        history: IndexedHistory?, printer: TracePrinter, console: Console
    ) throws -> Int? {
        if let storage = checkpoints.serverStorage {
            return try traceThroughServerCheckpoints(
                storage, labels: labels, query: query, from: from, to: to, checkpoints: checkpoints, printer: printer,
                console: console, path: path)
        }
        guard let history,
            let candidates = history.candidates(labels: labels)
        else { return nil }
        let covered = history.index.coveredSeq
        let wanted = candidates.filter { $0 >= from && $0 <= (to ?? .max) }
        let interval = checkpoints.seqs.count > 1 ? checkpoints.seqs[1] - checkpoints.seqs[0] : TestHooks.checkpointInterval

        // Only the traced labels' removed titles are printed: the others' are not made `String`s.
        var state = ListCursor(path: path, checkpoints: checkpoints, interval: interval, console: console, removedAmong: labels)
        var printed = try traceEach(wanted, from: &state, labels: labels, query: query, printer: printer, console: console)
        // The records after the index, replayed one by one from the list before the first of them.
        let tailStart = max(from, covered + 1)
        guard to.map({ tailStart <= $0 }) ?? true else { return printed }
        if history.tailCount == 0, tailStart == covered + 1, let position = history.index.covered,
            try noRecords(after: position, path: path, console: console)
        {
            return printed
        }
        let before = try state.list(through: tailStart - 1)
        let replay = try NotifyingReplay(path: path, query: query, labels: labels, start: before, through: to, console: console)
        if let query { printer.resetRows(viewRows(query, before)) }
        while let step = try replay.nextStep() {
            printer.follow(step.notifications)
            if concerns(step.record, step.notifications, labels) {
                try printer.print(step.change, notifications: step.notifications, list: replay.list) { replay.lastTitles[$0] }
                printed += 1
            }
        }
        replay.replay.warnAboutTail()
        return printed
    }

    /// `trace --label` over a server list: the records that can concern the
    /// labels (their own and the list's reorders, found through the server's
    /// indexes), each replayed from the list right before it, folded from the
    /// nearest server checkpoint or on from the previous one. `nil` (nothing
    /// printed) when replaying everything would read fewer records.
    private static func traceThroughServerCheckpoints(
        _ storage: any EventStorage, labels: Set<LabelID>, query: ViewQuery?, from: UInt64, to: UInt64?,
        checkpoints: Checkpoints, printer: TracePrinter, console: Console, path: String
    ) throws -> Int? {
        let last = min(to ?? .max, try storage.refreshLastSeq())
        guard let candidates = try ServerStorage.candidateRecords(concerning: labels, through: last, in: storage) else { return nil }
        let wanted = candidates.seqs.filter { $0 >= from }
        // A server checkpoint is a chain to read and decode (a full image of the
        // whole list and its deltas: 20–30 ms at 100,000 labels, about what
        // folding 30,000 records over the socket costs), however near the rows
        // are: the cursor starts afresh only when one is at least half of
        // `serverRestartSpan` nearer than folding on.
        let interval = max(ListCursor.interval(of: checkpoints.seqs, lastSeq: last), ListCursor.serverRestartSpan)
        let plannedReads = ListCursor.plannedReads(wanted, checkpointSeqs: checkpoints.seqs, interval: interval)
        if !TestHooks.alwaysUsesIndex && plannedReads >= last { return nil }

        var state = ListCursor(path: path, checkpoints: checkpoints, interval: interval, console: console, removedAmong: labels)
        return try traceEach(
            wanted, from: &state, known: candidates.records, labels: labels, query: query, printer: printer, console: console)
    }

    /// Replays each of `seqs` (ascending) into a store started from the list
    /// right before it (`state`), and prints it when it concerns `labels`;
    /// returns how many were printed. `known` holds records already read (a
    /// server list's, through its label index), which are not read again.
    private static func traceEach(
        _ seqs: [UInt64], from state: inout ListCursor, known: [UInt64: EventRecord] = [:], labels: Set<LabelID>,
        query: ViewQuery?, printer: TracePrinter, console: Console
    ) throws -> Int {
        var printed = 0
        // The lists before the events, computed ahead on two threads where there are two cores (`state` is then not moved).
        let lists = try ListsAhead(seqs: seqs.map { $0 - 1 }, cursor: state)
        defer {
            lists.stop()
            if let cursor = lists.cursor { state = cursor }
        }
        for seq in seqs {
            let before = try lists.next()
            let step = try NotifyingReplay(
                path: state.path, query: query, labels: labels, start: before, through: seq, known: known[seq], console: console)
            guard let next = try step.nextStep() else { break }
            if let query { printer.resetRows(viewRows(query, before)) }
            printer.follow(next.notifications)
            if concerns(next.record, next.notifications, labels) {
                try printer.print(next.change, notifications: next.notifications, list: step.list) { step.lastTitles[$0] }
                printed += 1
            }
        }
        return printed
    }

    /// Whether the log still holds no record after `position` (the index's last), without folding
    /// the list up to it; warns about a torn tail there as the replay after it would.
    private static func noRecords(after position: LogPosition, path: String, console: Console) throws -> Bool {
        let probe = try Replay(path: path, folds: false, console: console)
        try probe.start(from: ListCheckpoint(list: LabelList(), position: position, removed: [:]))
        var found = false
        try probe.forEachView(from: position.seq + 1) { _ in
            found = true
            return false
        }
        if !found { probe.warnAboutTail() }
        return !found
    }

    /// The rows of the view of `query` over `start`'s list (the empty list without one).
    private static func viewRows(_ query: ViewQuery, _ start: ListCheckpoint?) -> [LabelID] {
        let list = start?.list ?? LabelList()
        return FilteredView(query: query, list: list).labels(in: list).map(\.id)
    }
}

/// The list at increasing seqs, each folded from the nearest checkpoint at
/// or before it or on from the last one asked for, whichever reads less; with
/// the last title and state of every removed label (as the checkpoint and the
/// records folded since state them).
struct ListCursor {
    let path: String
    let checkpoints: Checkpoints
    let interval: UInt64
    let console: Console
    /// The removed labels whose titles the lists need (`nil`: all of them):
    /// the checkpoints and the records folded give only those named.
    let removedAmong: Set<LabelID>?
    private var replay: Replay?
    private var removed: [LabelID: RemovedLabel] = [:]

    init(path: String, checkpoints: Checkpoints, interval: UInt64, console: Console, removedAmong: Set<LabelID>? = nil) {
        self.path = path
        self.checkpoints = checkpoints
        self.interval = interval
        self.console = console
        self.removedAmong = removedAmong
    }

    /// The least interval a cursor over a server list plans with (its fresh
    /// starts are chains of images, whose cost is not the checkpoints'
    /// spacing): 65,536 records, so it starts afresh from a checkpoint only
    /// when that folds at least 32,768 fewer.
    static let serverRestartSpan: UInt64 = 65_536

    /// The distance between checkpoints that `seqs` (ascending) suggest for a
    /// list of `lastSeq` records: the first gap, or the list's length when
    /// there are fewer than two.
    static func interval(of seqs: [UInt64], lastSeq: UInt64) -> UInt64 {
        seqs.count > 1 ? max(1, seqs[1] - seqs[0]) : max(1, seqs.first ?? lastSeq)
    }

    /// How many records ``list(through:)`` reads to give the lists right
    /// before each of `seqs` (ascending), by the rule it follows; each fresh
    /// start counts as reading an extra 512 records (the checkpoint's image).
    static func plannedReads(_ seqs: [UInt64], checkpointSeqs: [UInt64], interval: UInt64) -> UInt64 {
        var reads: UInt64 = 0
        var folded: UInt64? = nil
        for seq in seqs where seq > 1 {
            let target = seq - 1
            let nearest = checkpointSeqs.last { $0 <= target } ?? 0
            if let at = folded, !startsAfresh(from: at, to: target, nearest: nearest, interval: interval) {
                reads += target - at
            } else {
                reads += target - nearest + 512
            }
            folded = target
        }
        return reads
    }

    /// Whether the list at `seq` is folded afresh from the nearest checkpoint
    /// at or before it (at `nearest`) rather than on from `previous`, where
    /// the last fold stopped (`nil`: none): when `seq` is before it, or the
    /// checkpoint is more than half an interval nearer.
    static func startsAfresh(from previous: UInt64?, to seq: UInt64, nearest: UInt64, interval: UInt64) -> Bool {
        guard let previous, previous <= seq else { return true }
        return previous < nearest && nearest - previous > interval / 2
    }

    /// The list right after `seq` (a seq at or after the previous call's), as a checkpoint to start a replay from.
    mutating func list(through seq: UInt64) throws -> ListCheckpoint? {
        guard seq > 0 else { return nil }
        let nearest = checkpoints.seqs.last { $0 <= seq } ?? 0
        if Self.startsAfresh(from: replay?.lastSeq, to: seq, nearest: nearest, interval: interval) {
            let fresh = try Replay(path: path, console: console)
            removed = [:]
            if let checkpoint = checkpoints.checkpoint(atOrBefore: seq, removedAmong: removedAmong) {
                try fresh.start(from: checkpoint)
                removed = checkpoint.removed
            }
            replay = fresh
        }
        var removed = self.removed
        let among = removedAmong
        let list = try replay!.foldQuickly(through: seq) { view in
            if case .removed(let id, _, let title, let isEnabled) = view.event, among?.contains(id) != false {
                removed[id] = RemovedLabel(title: title.string, isEnabled: isEnabled)
            }
        }
        self.removed = removed
        guard let position = replay!.lastPosition else { return nil }
        return ListCheckpoint(list: list, position: position, removed: removed)
    }
}
