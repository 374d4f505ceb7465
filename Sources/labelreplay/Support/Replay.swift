import EventLog
import LabelProjection

/// Reads a log for the read-only commands: no lock is taken and the file is
/// never changed, so it works while another process writes.
///
/// A server list (a `postgres://` location) is read the same way, through its
/// storage (``ReplayReader``).
///
/// Records come from ``LogReader`` in seq order (a torn or still-being-written
/// last frame is simply not there yet; damage before the tail throws, naming
/// the byte offset) and are folded with ``LabelList/apply(_:)`` — the one fold
/// the store itself uses. Progress is drawn on standard error when asked for.
final class Replay {
    /// One record read, with what folding it changed.
    struct Step {
        /// The record.
        let record: EventRecord
        /// What the record changed, or `nil` once folding stopped (non-strict replays of inconsistent logs).
        let change: LabelChange?
        /// The byte offset of the record's frame.
        let offset: Int64
    }

    /// The log's path, as given.
    let path: String
    /// The log's header.
    let header: LogHeader
    /// The fold of every record read so far.
    private(set) var list = LabelList()
    /// The last title of every id the records named (live or removed), for naming labels in output.
    private(set) var titles: [LabelID: String] = [:]
    /// The first record the fold refused, in a non-strict replay.
    private(set) var foldFailure: ProjectionError?
    /// The seq of the last record read (0 before the first).
    private(set) var lastSeq: UInt64 = 0
    /// Whether a read found no further record.
    private(set) var reachedEnd = false
    /// Whether a refused record throws (`true`) or only stops the fold (`false`, for listing events).
    private let strict: Bool
    /// Whether records are folded at all (`trace` folds them itself).
    private let folds: Bool
    private var reader: ReplayReader
    let console: Console
    private var progress: Progress?
    private var startPosition: LogPosition?
    /// The seq of the list reading starts from (0, or a based log's last cut seq).
    private(set) var origin: UInt64 = 0
    /// The base of the file read first: the log's, or its archive's once that is read first.
    private(set) var reachableBase: LogBase?
    /// The oldest archive read before the log, if one is (``readArchivesFirst(_:)``).
    private(set) var archivePath: String?
    /// The header of the file read first: the log's, or its archive's once that is read first.
    private(set) var startHeader: LogHeader
    /// Whether an archive is read before the log.
    var readsArchive: Bool { reader.chainsArchive }

    /// Opens `path` for reading. `progress` labels a progress line (omit it for streaming output).
    init(path: String, strict: Bool = true, folds: Bool = true, console: Console, progress label: String? = nil) throws {
        let location = LogLocation.resolve(path)
        switch location {
        case .file: reader = ReplayReader(file: try Self.openReader(path))
        case .server: reader = try ReplayReader(server: try ServerStorage.openForReading(location))
        }
        self.path = location.display
        self.header = reader.header
        // A based log folds on from its base: the list after the records it cut.
        list = try LabelList.origin(of: reader.header, path: location.display)
        lastSeq = reader.header.firstSeq - 1
        origin = lastSeq
        reachableBase = reader.header.base
        startHeader = reader.header
        for label in list.labels { titles[label.id] = label.title }
        self.strict = strict
        self.folds = folds
        self.console = console
        if let label {
            // Asked only for a progress line: a server list's size is a query.
            progress = Progress(label, total: try reader.fileSize(), unit: reader.isServer ? "records" : "bytes", console: console)
        } else {
            progress = nil
        }
    }

    /// A reader on `path`; a missing file is a plain "no such file".
    static func openReader(_ path: String) throws -> LogReader {
        do {
            return try LogReader(path: path)
        } catch {
            if error.code == .fileNotFound {
                throw Failure("\(path): no such file; check the path ('\(Tool.name) demo' writes an example log)")
            }
            throw error
        }
    }

    /// Whether this reads a list on a server (no bytes, tail or file to watch).
    var isServer: Bool { reader.isServer }

    /// The server list's storage, when this reads one.
    var serverStorage: (any EventStorage)? { reader.serverStorage }

    /// ` at byte offset N` for a record of a file; nothing for a server list's.
    func at(_ offset: Int64) -> String { reader.isServer ? "" : " at byte offset \(offset)" }

    /// A size for `log`'s columns (``EventColumns``): a server list's records as a file's would
    /// be; for a file, the bytes of every record of the history plus the oldest part's header —
    /// the size of the log had it never been cut, so a cut log's columns are the uncut one's
    /// (a format 4 part's bytes as ``EventColumns/bytes(_:of:)`` counts them).
    func columnsSize() throws -> Int64 {
        if reader.isServer { return try reader.fileSize() * 16 }
        var bytes = EventColumns.bytes(try LogReader(path: path).fileSize() - Int64(header.length), of: header)
        var oldestHeader = Int64(header.length)
        let history = self.history()
        var first = history.liveFirstSeq
        while first > 1, case .archive(let archive)? = try? history.holder(of: first - 1),
            let part = try? LogReader(path: archive.path)
        {
            bytes += EventColumns.bytes(try part.fileSize() - Int64(part.header.length), of: part.header)
            oldestHeader = Int64(part.header.length)
            first = archive.seqs.lowerBound
        }
        // Records dropped or in a missing archive: counted at the smallest a record takes.
        return bytes + oldestHeader + Int64(first - 1) * 16
    }

    /// Erases the progress line and draws no more (before following a live log).
    func stopProgress() {
        progress?.finish()
        progress = nil
    }

    /// The next record, folded; `nil` at the end of the complete records.
    func next() throws -> Step? {
        guard let step = try read() else { return nil }
        return Step(record: step.record, change: try fold(step.record, at: step.offset), offset: step.offset)
    }

    /// The next record, not yet folded.
    private func read() throws -> (record: EventRecord, offset: Int64)? {
        let offset = reader.offset
        guard let record = try reader.next() else {
            reachedEnd = true
            progress?.finish()
            return nil
        }
        lastSeq = record.seq
        progress?.update(reader.offset, detail: "seq \(record.seq)")
        if let (id, title) = Self.statedTitle(record.event) { titles[id] = title }
        return (record, offset)
    }

    /// The id and title an event states (added, renamed, removed), if it states one.
    static func statedTitle(_ event: LabelEvent) -> (LabelID, String)? {
        switch event {
        case .added(let id, let title, _, _), .renamed(let id, _, let title), .removed(let id, _, let title, _): (id, title)
        default: nil
        }
    }

    /// Folds `record` into ``list``; a refusal throws (strict) or stops the fold with a warning.
    private func fold(_ record: EventRecord, at offset: Int64) throws -> LabelChange? {
        guard folds, foldFailure == nil else { return nil }
        do {
            return try list.apply(record)
        } catch {
            let what = "\(path): record seq \(record.seq)\(at(offset)) contradicts the records before it"
            if strict { throw Failure("\(what): \(error.message) (run '\(Tool.name) verify')") }
            foldFailure = error
            console.warning("\(what) (\(error.message)); labels after it are shown without their state")
            return nil
        }
    }

    /// Reads to the end and returns the final state; warns about a torn tail.
    func foldAll() throws -> LabelList {
        while try next() != nil {}
        warnAboutTail()
        return list
    }

    /// Reads through record `seq` (0: nothing), showing each step to `visit`, and
    /// returns the state right after it. A seq past the end is an error, never the latest state.
    func fold(through seq: UInt64, visit: (Step) -> Void = { _ in }) throws -> LabelList {
        try requireHeld(seq)
        while list.lastSeq < seq {
            guard let step = try next() else {
                throw Failure("\(path): there is no seq \(seq): the log ends at seq \(list.lastSeq)")
            }
            visit(step)
        }
        progress?.finish()
        return list
    }

    /// Reads `archives` (oldest first, checked by ``LogHistory``) before the
    /// log: the fold starts from the oldest archive's own origin (empty, or
    /// its base's list).
    func readArchivesFirst(_ archives: [(reader: LogReader, path: String)]) throws {
        let oldest = archives[0]
        list = try LabelList.origin(of: oldest.reader.header, path: oldest.path)
        lastSeq = oldest.reader.header.firstSeq - 1
        origin = lastSeq
        reachableBase = oldest.reader.header.base
        startHeader = oldest.reader.header
        archivePath = oldest.path
        titles = [:]
        for label in list.labels { titles[label.id] = label.title }
        reader.readArchivesFirst(archives)
    }

    /// Starts the fold from `checkpoint` instead of seq 1: the list is the
    /// checkpoint's and the next record read is the one after it (checked, as
    /// every read is, to follow it in the log's chain). Before anything is read.
    func start(from checkpoint: ListCheckpoint) throws {
        precondition(lastSeq == header.firstSeq - 1, "a replay starts from a checkpoint before it reads")
        let position = checkpoint.position
        try reader.seek(toSeq: position.seq + 1, atOffset: position.end, previousChecksum: position.checksum ?? 0)
        list = checkpoint.list
        lastSeq = position.seq
        startPosition = position
    }

    /// Says that no record after `seq` will be asked for (`nil`: any may
    /// be): a server list's reads then fetch no more rows than that.
    func readsNoFurther(than seq: UInt64?) { reader.readsThrough = seq }

    /// Gives a server list's replay the next record, already read and checked
    /// (``ReplayReader/prefill(_:)``); ignored for a file, or another seq.
    func prefill(_ record: EventRecord) { reader.prefill(record) }

    /// Folds through record `seq` without describing the changes (``LabelList/replay(_:)``
    /// on records decoded in place), showing each record to `visit` first, and returns
    /// the state right after it: what ``fold(through:visit:)`` returns, faster.
    func foldQuickly(through seq: UInt64, visit: ((EventRecordView) -> Void)? = nil) throws -> LabelList {
        struct Reached: Error {}
        try requireHeld(seq)
        if list.lastSeq < seq {
            do {
                try reader.forEachView(from: reader.nextSeq) { view in
                    visit?(view)
                    do throws(ProjectionError) {
                        try list.replay(view)
                    } catch {
                        let offset = reader.lastPosition?.offset ?? 0
                        throw Failure(
                            "\(path): record seq \(view.seq)\(at(offset)) contradicts the records before it: \(error.message) (run '\(Tool.name) verify')"
                        )
                    }
                    lastSeq = view.seq
                    if view.seq % 1024 == 0 { progress?.update(reader.offset, detail: "seq \(view.seq)") }
                    if view.seq >= seq { throw Reached() }
                }
            } catch is Reached {
            }
        }
        guard list.lastSeq >= seq else { throw Failure("\(path): there is no seq \(seq): the log ends at seq \(list.lastSeq)") }
        progress?.finish()
        return list
    }

    /// Reads in seq order up to, not including, the first record stamped later than `time`.
    func fold(until time: EventTimestamp) throws -> LabelList {
        try requireHeld(time: time)
        while let step = try read() {
            if step.record.timestamp > time {
                progress?.finish()
                return list
            }
            _ = try fold(step.record, at: step.offset)
        }
        warnAboutTail()
        return list
    }

    /// Moves on so that the next record read is `seq`, without folding or copying
    /// out the records before it (each is still checked and decoded in place, to
    /// learn the titles it states, so later events still name their labels). For
    /// non-folding replays (`log`); `seq` past the end stops at the end.
    func skip(to seq: UInt64) throws {
        precondition(!folds, "a folding replay must fold every record")
        guard seq > reader.nextSeq else { return }
        struct Reached: Error {}
        var titles = self.titles
        var last = lastSeq
        do {
            try reader.forEachView(from: reader.nextSeq) { view in
                switch view.event {
                case .added(let id, let title, _, _), .renamed(let id, _, let title), .removed(let id, _, let title, _):
                    titles[id] = title.string
                default:
                    break
                }
                last = view.seq
                progress?.update(reader.offset, detail: "seq \(view.seq)")
                if view.seq + 1 >= seq { throw Reached() }
            }
        } catch is Reached {
        }
        self.titles = titles
        lastSeq = last
    }

    /// Calls `body` with each record from `seq` on that is complete now, decoded in
    /// place (no copy, not folded, titles not noted), until it returns `false`. For
    /// non-folding replays that only pass records on (`export`).
    func forEachView(from seq: UInt64, _ body: (EventRecordView) throws -> Bool) throws {
        precondition(!folds, "a folding replay must fold every record")
        struct Stop: Error {}
        var last = lastSeq
        do {
            try reader.forEachView(from: seq) { view in
                last = view.seq
                guard try body(view) else { throw Stop() }
            }
            reachedEnd = true
        } catch is Stop {
        }
        lastSeq = last
    }

    /// Where the last record read (or the checkpoint started from) is in the
    /// log; in a server list, its seq alone (a server list has no offsets).
    var lastPosition: LogPosition? {
        if reader.isServer { return lastSeq > 0 ? LogPosition(seq: lastSeq, offset: 0, length: 0) : nil }
        return reader.lastPosition ?? startPosition
    }

    /// The byte offset where the records read so far end.
    var recordsEnd: Int64 { reader.offset }

    /// Whether the file still holds the last record read, unchanged (true before the first).
    func holdsLastRecord() throws -> Bool {
        guard let last = reader.lastPosition else { return true }
        return try reader.holds(last)
    }

    /// Opens the file now at ``path`` and, if it holds the last record read as it
    /// was (the same history, e.g. a copy moved into place), reads on from it.
    /// Returns whether it did; the reader is unchanged if not.
    func reopen() throws -> Bool {
        guard !reader.isServer else { return true }
        let fresh = try Self.openReader(path)
        guard fresh.header.logID == header.logID else { return false }
        guard let last = reader.lastPosition else {
            reader = ReplayReader(file: fresh)
            return true
        }
        guard try fresh.resume(after: last) else { return false }
        reader = ReplayReader(file: fresh)
        return true
    }

    /// The file's size now.
    func fileSize() throws -> Int64 { try reader.fileSize() }

    /// The bytes after the last complete record that are not preallocated
    /// zeros, if any (a torn tail, or a write in progress). Throws when good
    /// records follow them (corruption, not a tail).
    func tail() throws -> (offset: Int64, bytes: Int64)? {
        guard case .torn(let offset, let bytes, _) = try reader.tail() else { return nil }
        return (offset, bytes)
    }

    /// Warns on standard error when bytes follow the last complete record
    /// (only once reading reached them: stopping early says nothing about the tail).
    func warnAboutTail() {
        guard reachedEnd, let tail = try? tail() else { return }
        console.warning(
            "\(path): \(tail.bytes) bytes at byte offset \(tail.offset), after seq \(lastSeq), are not a complete record (a torn tail, or a write in progress); they are ignored ('\(Tool.name) repair' cuts a torn tail)"
        )
    }
}
