import EventLog
import LabelProjection

/// `diff LOG FROM TO`: what changed between two seqs, per label.
enum Diff: Command {
    static let spec = CommandSpec(
        name: "diff",
        abstract: "Show what changed between two seqs, per label.",
        discussion: """
            Compares the list right after seq FROM with the list right after seq TO (0 is the empty list). Each label \
            gets one entry per kind of change: added, removed, renamed (old → new), toggled, moved. A label counts as \
            moved when its order relative to the other labels present at both seqs changed (the fewest labels that \
            explain the new order), not when it merely shifted because others were added or removed.

            JSON (--json): {"from", "to", "changes": [...]}, each change with id, change, title (at TO, or when \
            removed) and its values: added isEnabled, to; removed isEnabled, from; renamed oldTitle, newTitle; \
            toggled oldIsEnabled, isEnabled; moved from, to (positions in the full list at FROM and at TO).
            """,
        arguments: [
            .positional("log", "The label log file."),
            .positional("from", "The earlier seq (0: the empty list)."),
            .positional("to", "The later seq."),
            .flag("json", "Print one JSON object instead of text."),
            Style.option
        ],
        examples: ["diff labels.labellog 12 17", "diff labels.labellog 0 18 --json"])

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let path = try arguments.logPath()
        let style = try Style.resolve(arguments, console: console)
        let from = try arguments.seq("from") ?? 0
        let to = try arguments.seq("to") ?? 0
        if from > to { throw UsageError("<from> (\(from)) must not be after <to> (\(to))") }

        let (before, after, removedAs) = try lists(path, from: from, to: to, console: console)
        let changes = try compare(before, after, removedAs: removedAs.all)

        if arguments.flag("json") {
            console.json(ListDiff(from: from, to: to, changes: changes))
            return ExitStatus.success
        }
        console.line(
            Escape.text(
                "\(path) seq \(from) → \(to): \(before.count) → \(after.count) labels, \(changes.count) change\(changes.count == 1 ? "" : "s")"
            ))
        if changes.isEmpty {
            console.line("  (no changes)")
            return ExitStatus.success
        }
        var table = Table()
        for change in changes {
            table.append([
                style.paint(change.change.rawValue, role(of: change.change)), EventText.name(change.id, title: change.title),
                describe(change, style: style)
            ])
        }
        table.write(indent: "  ", to: console)
        return ExitStatus.success
    }

    /// The lists right after `from` and `to`, and the title and state each label removed
    /// in between had at its last removal. Each list is folded from the nearest checkpoint
    /// at or before its seq (LOG.checkpoints, or a server list's) when there is one, else
    /// from seq 1; `to`'s list is folded on from `from`'s unless a later checkpoint is nearer.
    static func lists(_ path: String, from: UInt64, to: UInt64, console: Console) throws -> (LabelList, LabelList, RemovedTitles) {
        let checkpoints = try Checkpoints.open(path, console: console)
        // A server list's checkpoint for `to`, when its rows had one after `from`, is read
        // while `from`'s list is folded (and waited for whatever happens: the command's
        // connection is closed when it ends).
        let laterAside =
            checkpoints?.seqs.contains { $0 > from && $0 <= to } == true ? checkpoints?.serverCheckpointAside(atOrBefore: to) : nil
        defer { _ = laterAside?.result() }
        let replay = try Replay(path: path, console: console, progress: "reading \(path)")
        if let checkpoint = checkpoints?.checkpoint(atOrBefore: from, withRemovedLabels: false) { try replay.start(from: checkpoint) }
        let before = try replay.foldQuickly(through: from)
        var titles = RemovedTitles()
        let noteRemoval = { (view: EventRecordView) in
            if case .removed(let id, _, let title, let isEnabled) = view.event { titles.folded[id] = (title.string, isEnabled) }
        }
        // A server list's checkpoints hold no removed label's title: they are read from the
        // removal records, aside, once the later list is folded (see `RemovedTitles`).
        let server = checkpoints?.serverStorage
        // A first list read through the archive folds on across the join: the log's checkpoints
        // do not hold the titles of labels removed before its base, which the diff may print.
        guard !replay.readsArchive, let checkpoints, checkpoints.mayHaveCheckpoint(after: from, through: to),
            // Only the labels live at `from` can be printed as removed.
            let checkpoint = try laterAside.map({ try checkpoints.checkpoint(readAside: $0) })
                ?? (server == nil ? checkpoints.checkpoint(atOrBefore: to, removedAmong: Set(before.ids)) : nil),
            checkpoint.position.seq > from
        else {
            let after = try replay.foldQuickly(through: to, visit: noteRemoval)
            return (before, after, titles)
        }
        // Labels live at `from` and removed by the checkpoint: as the checkpoint says they were removed.
        let tombstones = Set(checkpoint.list.removedIDs.filter { before.contains($0) })
        if server == nil {
            for id in tombstones {
                if let removed = checkpoint.removed[id] { titles.checkpointed[id] = (removed.title, removed.isEnabled) }
            }
        }
        let later = try Replay(path: path, console: console, progress: "reading \(path)")
        try later.start(from: checkpoint)
        let after = try later.foldQuickly(through: to, visit: noteRemoval)
        if let server, !tombstones.isEmpty {
            let list = checkpoint.list
            titles.reading = Aside("labelreplay removals") {
                try ServerStorage.removals(of: tombstones, removedIn: list, in: server) ?? [:]
            }
        }
        return (before, after, titles)
    }

    /// The title and state each label removed between a diff's seqs had at
    /// its last removal, where known (a label not named is printed with its
    /// title and state at FROM, which are then its last).
    struct RemovedTitles {
        /// As the records folded after the checkpoint state them (or from FROM, without one).
        var folded: [LabelID: (title: String, isEnabled: Bool)] = [:]
        /// As a file's checkpoint states them.
        var checkpointed: [LabelID: (title: String, isEnabled: Bool)] = [:]
        /// A server list's: read from the removal records the checkpoint names, on a
        /// second thread while the diff is computed (over the command's one connection,
        /// which nothing else then uses).
        var reading: Aside<[LabelID: RemovedLabel]>?

        /// Every title known: waits for the read aside (rethrowing its error);
        /// a later removal (folded) wins over the checkpoint's.
        func all() throws -> [LabelID: (title: String, isEnabled: Bool)] {
            var all = checkpointed
            for (id, removed) in try reading?.value() ?? [:] { all[id] = (removed.title, removed.isEnabled) }
            all.merge(folded) { _, later in later }
            return all
        }
    }

    /// The per-label changes from `a` to `b`: for each label in `b`'s order its
    /// additions, renames, toggles and moves, then the removed labels in `a`'s order.
    /// Labels are matched by slot (``LabelList/correspondence(to:)``) and titles
    /// compared as bytes: a `String` is made only for a label that changed.
    /// `removedAs` gives the removed labels' last titles and states; it is
    /// called once, after the other changes are found (it may wait for a read).
    static func compare(
        _ a: LabelList, _ b: LabelList, removedAs titles: () throws -> [LabelID: (title: String, isEnabled: Bool)]
    ) rethrows -> [LabelDiffEntry] {
        let match = a.correspondence(to: b)
        // The labels present at both, in `a`'s order, by their positions in `b`: those of a longest
        // increasing run stayed, the others moved.
        let common = match.newPosition.compactMap { $0 >= 0 ? Int($0) : nil }
        var stayed = [Bool](repeating: false, count: match.laterSlots.count)
        for i in longestIncreasingRun(common) { stayed[common[i]] = true }

        var changes: [LabelDiffEntry] = []
        for (position, slot) in match.laterSlots.enumerated() {
            let oldPosition = Int(match.oldPosition[position])
            guard oldPosition >= 0 else {
                let new = b.label(inSlot: slot)
                changes.append(LabelDiffEntry(id: new.id, change: .added, title: new.title, isEnabled: new.isEnabled, to: position))
                continue
            }
            let oldSlot = match.earlierSlots[oldPosition]
            let renamed = !a.sameTitle(slot: oldSlot, as: b, slot: slot)
            let toggled = a.isEnabled(slot: oldSlot) != b.isEnabled(slot: slot)
            let moved = !stayed[position]
            guard renamed || toggled || moved else { continue }
            let new = b.label(inSlot: slot)
            if renamed {
                changes.append(
                    LabelDiffEntry(
                        id: new.id, change: .renamed, title: new.title, oldTitle: a.label(inSlot: oldSlot).title, newTitle: new.title))
            }
            if toggled {
                changes.append(
                    LabelDiffEntry(id: new.id, change: .toggled, title: new.title, oldIsEnabled: !new.isEnabled, isEnabled: new.isEnabled))
            }
            if moved {
                changes.append(LabelDiffEntry(id: new.id, change: .moved, title: new.title, from: oldPosition, to: position))
            }
        }
        let removedAs = try titles()
        for (position, slot) in match.earlierSlots.enumerated() where match.newPosition[position] < 0 {
            let id = a.id(slot: slot)
            let last =
                removedAs[id]
                ?? {
                    let old = a.label(inSlot: slot)
                    return (old.title, old.isEnabled)
                }()
            changes.append(LabelDiffEntry(id: id, change: .removed, title: last.title, isEnabled: last.isEnabled, from: position))
        }
        return changes
    }

    /// The indices of one longest strictly increasing subsequence of `values` (patience sorting, O(n log n)).
    static func longestIncreasingRun(_ values: [Int]) -> [Int] {
        var tails: [Int] = []  // index into values of the smallest tail of each run length
        var previous = [Int](repeating: -1, count: values.count)
        for (i, value) in values.enumerated() {
            var low = 0, high = tails.count
            while low < high {
                let mid = (low + high) / 2
                if values[tails[mid]] < value { low = mid + 1 } else { high = mid }
            }
            if low > 0 { previous[i] = tails[low - 1] }
            if low == tails.count { tails.append(i) } else { tails[low] = i }
        }
        var run: [Int] = []
        var i = tails.last ?? -1
        while i >= 0 {
            run.append(i)
            i = previous[i]
        }
        return run.reversed()
    }

    /// The old → new part of a change, for text output.
    static func describe(_ change: LabelDiffEntry, style: Style = .plain) -> String {
        func step(_ old: String, _ new: String) -> String { "\(style.paint(old, .old)) → \(style.paint(new, .new))" }
        switch change.change {
        case .added: return "new \(EventText.onOff(change.isEnabled ?? true)) at position \(change.to ?? 0)"
        case .removed: return "gone (was \(EventText.onOff(change.isEnabled ?? true)) at position \(change.from ?? 0))"
        case .renamed: return step(Escape.quoted(change.oldTitle ?? ""), Escape.quoted(change.newTitle ?? ""))
        case .toggled: return step(EventText.onOff(change.oldIsEnabled ?? false), EventText.onOff(change.isEnabled ?? false))
        case .moved: return "position " + step(String(change.from ?? 0), String(change.to ?? 0))
        }
    }

    /// The colour of a kind of change (the event kind's colour).
    static func role(of change: LabelDiffEntry.Kind) -> Style.Role {
        switch change {
        case .added: .added
        case .removed: .removed
        case .renamed: .renamed
        case .toggled: .toggled
        case .moved: .moved
        }
    }
}

/// `diff --json`.
struct ListDiff: Encodable {
    let from: UInt64
    let to: UInt64
    let changes: [LabelDiffEntry]
}

/// One change of one label in `diff --json`; only the fields of its kind are present.
struct LabelDiffEntry: Encodable {
    /// The kinds of change, with their JSON names.
    enum Kind: String, Encodable {
        case added, removed, renamed, toggled, moved
    }

    let id: LabelID
    /// What changed.
    let change: Kind
    /// The title at TO, or when the label was removed.
    let title: String
    var oldTitle: String?
    var newTitle: String?
    var oldIsEnabled: Bool?
    var isEnabled: Bool?
    /// Position in the full list at FROM.
    var from: Int?
    /// Position in the full list at TO.
    var to: Int?

    init(
        id: LabelID, change: Kind, title: String, oldTitle: String? = nil, newTitle: String? = nil,
        oldIsEnabled: Bool? = nil, isEnabled: Bool? = nil, from: Int? = nil, to: Int? = nil
    ) {
        self.id = id
        self.change = change
        self.title = title
        self.oldTitle = oldTitle
        self.newTitle = newTitle
        self.oldIsEnabled = oldIsEnabled
        self.isEnabled = isEnabled
        self.from = from
        self.to = to
    }
}

extension ListDiff: JSONPieces {
    func writeJSONPieces(_ emit: ((inout [UInt8]) -> Void) -> Void) {
        var first = true
        emit { JSONLine.key("changes", first: &first, to: &$0) }
        JSONLine.array(changes, pieces: emit)
        emit { out in
            JSONLine.key("from", first: &first, to: &out)
            JSONLine.number(from, to: &out)
            JSONLine.key("to", first: &first, to: &out)
            JSONLine.number(to, to: &out)
            JSONLine.close(first, to: &out)
        }
    }
}

extension LabelDiffEntry: JSONWritable {
    func writeJSON(to out: inout [UInt8]) {
        var first = true
        JSONLine.key("change", first: &first, to: &out)
        JSONLine.string(change.rawValue, to: &out)
        if let from {
            JSONLine.key("from", first: &first, to: &out)
            JSONLine.number(from, to: &out)
        }
        JSONLine.key("id", first: &first, to: &out)
        JSONLine.labelID(id, to: &out)
        if let isEnabled {
            JSONLine.key("isEnabled", first: &first, to: &out)
            JSONLine.bool(isEnabled, to: &out)
        }
        if let newTitle {
            JSONLine.key("newTitle", first: &first, to: &out)
            JSONLine.string(newTitle, to: &out)
        }
        if let oldIsEnabled {
            JSONLine.key("oldIsEnabled", first: &first, to: &out)
            JSONLine.bool(oldIsEnabled, to: &out)
        }
        if let oldTitle {
            JSONLine.key("oldTitle", first: &first, to: &out)
            JSONLine.string(oldTitle, to: &out)
        }
        JSONLine.key("title", first: &first, to: &out)
        JSONLine.string(title, to: &out)
        if let to {
            JSONLine.key("to", first: &first, to: &out)
            JSONLine.number(to, to: &out)
        }
        JSONLine.close(first, to: &out)
    }
}
