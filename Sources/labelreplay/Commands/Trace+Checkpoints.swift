import EventLog
import LabelProjection

/// `trace --label` through the history index and the checkpoints: only the
/// events that can concern the labels (their own, and reorders) are replayed
/// into a store, each from the list right before it — folded from the nearest
/// checkpoint, or on from the previous event when that is nearer — and the
/// records after the index are replayed as usual. The output is the full
/// replay's, byte for byte.
extension Trace {
    /// Traces `labels` this way and returns how many events it printed; `nil`
    /// (nothing printed) when there is no usable history index or replaying
    /// everything would read less.
    static func traceThroughCheckpoints(
        _ path: String, labels: Set<LabelID>, query: ViewQuery?, from: UInt64, to: UInt64?, checkpoints: Checkpoints,
        printer: TracePrinter, console: Console
    ) throws -> Int? {
        guard let history = try IndexedHistory.open(path, console: console),
            let candidates = history.candidates(labels: labels)
        else { return nil }
        let covered = history.index.coveredSeq
        let wanted = candidates.filter { $0 >= from && $0 <= (to ?? .max) }
        let interval = checkpoints.seqs.count > 1 ? checkpoints.seqs[1] - checkpoints.seqs[0] : TestHooks.checkpointInterval
        if !TestHooks.alwaysUsesIndex && UInt64(wanted.count) * interval / 2 > covered { return nil }

        var state = ListCursor(path: path, checkpoints: checkpoints, interval: interval, console: console)
        var printed = 0
        for seq in wanted {
            let before = try state.list(through: seq - 1)
            let step = try NotifyingReplay(
                path: path, query: query, labels: labels, start: before, through: seq, console: console)
            guard let next = try step.nextStep() else { break }
            if let query { printer.resetRows(viewRows(query, before)) }
            printer.follow(next.notifications)
            if concerns(next.record, next.notifications, labels) {
                try printer.print(next.change, notifications: next.notifications, list: step.list) { step.lastTitles[$0] }
                printed += 1
            }
        }
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
    private var replay: Replay?
    private var removed: [LabelID: RemovedLabel] = [:]

    init(path: String, checkpoints: Checkpoints, interval: UInt64, console: Console) {
        self.path = path
        self.checkpoints = checkpoints
        self.interval = interval
        self.console = console
    }

    /// The list right after `seq` (a seq at or after the previous call's), as a checkpoint to start a replay from.
    mutating func list(through seq: UInt64) throws -> ListCheckpoint? {
        guard seq > 0 else { return nil }
        let nearest = checkpoints.seqs.last { $0 <= seq } ?? 0
        // Folding on from where the last call stopped, unless a checkpoint is more than half an interval nearer.
        if replay == nil || replay!.lastSeq > seq || replay!.lastSeq < nearest && nearest - replay!.lastSeq > interval / 2 {
            let fresh = try Replay(path: path, console: console)
            removed = [:]
            if let checkpoint = checkpoints.checkpoint(atOrBefore: seq) {
                try fresh.start(from: checkpoint)
                removed = checkpoint.removed
            }
            replay = fresh
        }
        var removed = self.removed
        let list = try replay!.foldQuickly(through: seq) { view in
            if case .removed(let id, _, let title, let isEnabled) = view.event {
                removed[id] = RemovedLabel(title: title.string, isEnabled: isEnabled)
            }
        }
        self.removed = removed
        guard let position = replay!.lastPosition else { return nil }
        return ListCheckpoint(list: list, position: position, removed: removed)
    }
}
