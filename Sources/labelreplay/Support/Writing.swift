import EventLog
import Foundation
import LabelProjection

/// What the write commands (`add`, `rename`, `toggle`, …, `revert`) share:
/// opening the store, the envelope options, id resolution and the report.
///
/// Every write goes through ``LabelStore``: it validates the command against
/// the current state, appends, and only then applies. The store holds the
/// log's exclusive lock while the command runs, so a second writer fails
/// with "in use" instead of interleaving.
enum Writing {
    /// `--actor`, `--note` and `--json`, taken by every write command.
    static let envelope: [ArgumentSpec] = [
        .option(
            "actor", value: "name",
            "Who makes the edit (stored in the record; default: $LABELREPLAY_ACTOR, else the login name; '' for none)."),
        .option("note", value: "text", "A comment or correlation id (stored in the record)."),
        .flag("json", "Print the appended records as JSON Lines (the form of 'log --json').")
    ]

    /// ``envelope`` plus `--record-rejection`, taken by the commands the store validates.
    static let common: [ArgumentSpec] =
        envelope + [
            .flag("record-rejection", "If the store refuses the edit, append a 'rejected' audit record saying why.")
        ]

    /// `--expect-version` for commands addressed to one label (its version).
    static let expectLabelVersion = ArgumentSpec.option(
        "expect-version", value: "version",
        "Refuse the edit unless the label's version (the seq that last added it or changed its title or state, as 'show' prints it) is still <version>."
    )

    /// `--expect-version` for commands about membership or order (the list's version).
    static let expectListVersion = ArgumentSpec.option(
        "expect-version", value: "version",
        "Refuse the edit unless the list's version (the seq that last changed membership or order) is still <version>.")

    /// Opens the store over `path` (creating the log only when `create`),
    /// runs `body`, prints what was appended (or, when nothing was, the
    /// sentence `body` returned with the records), and closes the store.
    /// `human`, when given, replaces the default one-line-per-record report.
    static func perform(
        _ arguments: ParsedArguments, console: Console, create: Bool = false, subject: Subject? = nil,
        _ body: (LabelStore, WriteOptions) throws -> (records: [EventRecord], unchanged: String),
        report human: (([EventRecord]) -> [String])? = nil
    ) throws -> Int32 {
        let path = try arguments.logPath()
        if let id = arguments.optionalPositional("id") ?? arguments.option("id"), let spec = arguments.spec.argument(named: "id") {
            _ = try LabelIDArgument.parse(id, for: spec.display)  // malformed ids are usage errors, found before any I/O
        }
        if Mirror.isMirror(path) { return try performOnMirror(path, arguments, console: console, subject: subject, body, report: human) }
        let store = try open(path, create: create, recordRejections: arguments.flag("record-rejection"), console: console)
        // The caches are kept once the store is released (its list's memory with it).
        defer { HistoryCaches.keep(path, console: console, occasion: .write) }
        return try performOpen(consume store, path, arguments, console: console, subject: subject, body, report: human)
    }

    /// ``perform(_:console:create:subject:_:report:)`` on a synced log: the
    /// edits go to its outbox (``Mirror``), reported as the records they make
    /// on the device's list and as pending.
    private static func performOnMirror(
        _ path: String, _ arguments: ParsedArguments, console: Console, subject: Subject?,
        _ body: (LabelStore, WriteOptions) throws -> (records: [EventRecord], unchanged: String),
        report human: (([EventRecord]) -> [String])?
    ) throws -> Int32 {
        let options = WriteOptions(actor: actor(arguments), note: arguments.option("note"))
        let (store, records, unchanged) = try Mirror.perform(path, options: options, body)
        defer { store.close() }
        try reportOutcome((records, unchanged), store: store, arguments: arguments, console: console, subject: subject, report: human)
        if !records.isEmpty, !arguments.flag("json") {
            console.errorLine(
                Escape.text(
                    "\(path): saved on this device; \(records.count == 1 ? "it goes" : "they go") to the server list at the next 'labelreplay sync'"
                ))
        }
        return ExitStatus.success
    }

    /// ``perform(_:console:create:subject:_:report:)`` with the store open: writes, reports and closes it.
    private static func performOpen(
        _ store: consuming LabelStore, _ path: String, _ arguments: ParsedArguments, console: Console, subject: Subject?,
        _ body: (LabelStore, WriteOptions) throws -> (records: [EventRecord], unchanged: String),
        report human: (([EventRecord]) -> [String])?
    ) throws -> Int32 {
        defer { close(store, path: path) }
        let created = store.createdLog
        let options = WriteOptions(actor: actor(arguments), note: arguments.option("note"))
        let outcome: (records: [EventRecord], unchanged: String)
        do {
            outcome = try body(store, options)
        } catch {
            if created { discardNewLog(store, path: path) }
            throw error
        }
        try reportOutcome(outcome, store: store, arguments: arguments, console: console, subject: subject, report: human)
        return ExitStatus.success
    }

    /// Prints what a write appended (one `log`-style line per record, `human`'s lines, or JSON Lines),
    /// or, when it appended nothing, why (with `--json`, the label it was about as it is now).
    private static func reportOutcome(
        _ outcome: (records: [EventRecord], unchanged: String), store: LabelStore, arguments: ParsedArguments, console: Console,
        subject: Subject?, report human: (([EventRecord]) -> [String])?
    ) throws {
        let records = outcome.records
        if records.isEmpty {
            if arguments.flag("json") {
                // The state, so a script learns as much as from a change: nothing changed, why, and the label now.
                let subject = subject?.id.flatMap { id in store.label(id).map { (id, $0) } }
                let unchanged = Unchanged(
                    changed: false, reason: outcome.unchanged, seq: store.lastSeq,
                    label: subject.map { id, label in
                        ShownLabel(
                            id: id, title: label.title, isEnabled: label.isEnabled, version: label.version,
                            position: store.snapshot.position(of: id) ?? -1)
                    })
                console.line(try JSONLines().line(unchanged))
                return
            }
            console.line(Escape.text("nothing changed: " + outcome.unchanged))
            return
        }
        if let human, !arguments.flag("json") {
            console.lines(human(records))
        } else {
            try report(records, store: store, json: arguments.flag("json"), console: console)
        }
    }

    /// The arguments of a command addressed to one label: `<log> <id>`, then `extra`,
    /// then `--expect-version` (the label's version) and the ``common`` options.
    static func labelArguments(_ extra: [ArgumentSpec] = []) -> [ArgumentSpec] {
        [
            .positional("log", "The label log file."),
            .positional("id", "The label's id, or a unique prefix of at least 4 hex digits.")
        ]
            + extra + [expectLabelVersion] + common
    }

    /// ``perform(_:console:create:_:report:)`` for a command addressed to one label: resolves
    /// `<id>` and turns `--expect-version` into an expectation on that label's version.
    static func performOnLabel(
        _ arguments: ParsedArguments, console: Console,
        _ write: (LabelStore, LabelID, WriteOptions) throws -> (records: [EventRecord], unchanged: String)
    ) throws -> Int32 {
        let version = try expectedVersion(arguments)
        let subject = Subject()
        return try perform(arguments, console: console, subject: subject) { store, options in
            let id = try labelID(arguments, in: store)
            subject.id = id
            var options = options
            options.expectation = version.map { .label(id, version: $0) }
            return try write(store, id, options)
        }
    }

    /// The actor of an edit: `--actor` ('' for none), else `LABELREPLAY_ACTOR` ('' for none), else the login name.
    static func actor(_ arguments: ParsedArguments) -> String? {
        if let given = arguments.option("actor") { return given.isEmpty ? nil : given }
        if let variable = ProcessInfo.processInfo.environment["LABELREPLAY_ACTOR"] { return variable.isEmpty ? nil : variable }
        return Platform.loginName
    }

    /// Closes the store a write command opened; for a server list, the
    /// checkpoint the store may be writing in the background is waited for,
    /// so the command's exit does not cut it off. The command then keeps the
    /// history caches current (``HistoryCaches/keep(_:console:occasion:)``:
    /// a file log's `LOG.index`, `LOG.checkpoints` and `LOG.tree`) once the
    /// store is released, so its list's memory is not held beside theirs.
    static func close(_ store: LabelStore, path: String) {
        store.close()
        if LogLocation.isServer(path) { store.waitForHistoryFiles() }
    }

    /// Closes and deletes a log this command just created, if nothing was written to it,
    /// so that a refused first write leaves no empty log behind.
    static func discardNewLog(_ store: LabelStore, path: String) {
        guard store.lastSeq == store.storage.base?.lastCutSeq ?? 0, !LogLocation.isServer(path) else { return }
        store.close()
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Opens the store for writing; warns when opening cut a torn tail.
    static func open(_ path: String, create: Bool, recordRejections: Bool = false, console: Console) throws -> LabelStore {
        var options = LabelStore.Options(createIfMissing: create, recordRejections: recordRejections)
        // The command keeps the history caches itself once it wrote and released the store (``perform(_:console:create:subject:_:report:)``), in the
        // foreground; the store's background update would build them a second time beside it, and be cut off at exit.
        options.snapshots.maintainsHistoryFiles = false
        let store = try openStore(path, options: options)
        if let report = store.recoveryReport, report.droppedBytes > 0 {
            console.warning(
                "\(path): opening for writing cut \(report.droppedBytes) bytes at byte offset \(report.validLength), after seq \(report.lastSeq) (\(report.damage?.reason ?? "torn tail"))"
            )
        }
        return store
    }

    private static func openStore(_ path: String, options: LabelStore.Options) throws -> LabelStore {
        let location = LogLocation.resolve(path)
        if case .server = location {
            // A server list is created only by 'init' (or 'copy'): a mistyped list name is an error, not a new list.
            return try store(over: try ServerStorage.open(location).storage, options: options)
        }
        do {
            return try LabelStore.open(path: path, options: options)
        } catch {
            if case .storage(let underlying) = error.code, underlying.code == .fileNotFound {
                if options.createIfMissing {
                    throw Failure("\(path): cannot create the log: the directory \(SystemFile.directoryName(of: path)) does not exist")
                }
                throw Failure("\(path): no such log (only 'add', 'import' and 'demo' create one)")
            }
            throw error
        }
    }

    /// A store over a server list's `storage`; a storage failure is thrown as the backend's error.
    static func store(over storage: any EventStorage, options: LabelStore.Options) throws -> LabelStore {
        do {
            return try LabelStore(storage: storage, options: options)
        } catch {
            if case .storage(let underlying) = error.code { throw underlying }
            throw error
        }
    }

    /// The id named by the positional `name`, resolved among every id the store has seen.
    static func labelID(_ arguments: ParsedArguments, _ name: String = "id", in store: LabelStore) throws -> LabelID {
        let display = arguments.spec.argument(named: name)?.display ?? "<\(name)>"
        let text = arguments.optionalPositional(name) ?? arguments.option(name) ?? ""
        return try LabelIDArgument.resolve(
            text, for: display, known: store.knownIDs, in: LogLocation.display(arguments.positional("log")),
            allowUnknown: true
        ) { id in describe(id, in: store) }
    }

    /// `3f2a9c1e "Amber"` unescaped (for messages, which are escaped when printed).
    static func rawName(_ id: LabelID, in store: LabelStore) -> String {
        EventText.shortID(id) + (store.label(id).map { " \"\($0.title)\"" } ?? "")
    }

    /// `"Amber" (on)`, or `removed at seq 17`, for listing candidates.
    static func describe(_ id: LabelID, in store: LabelStore) -> String {
        if let label = store.label(id) { return "\"\(label.title)\" (\(EventText.onOff(label.isEnabled)))" }
        return store.removal(of: id).map { "removed at seq \($0)" } ?? "unknown"
    }

    /// The version given with `--expect-version`, if any.
    static func expectedVersion(_ arguments: ParsedArguments) throws(UsageError) -> UInt64? {
        try arguments.number("expect-version", what: "a version (a seq, as 'show' prints it)")
    }

    /// The label a write is about, once resolved (so that an unchanged `--json` result can show it).
    final class Subject {
        var id: LabelID?
    }

    /// `--json` when a write changed nothing.
    struct Unchanged: Encodable {
        let changed: Bool
        /// Why nothing changed, e.g. `label 3f2a9c1e "Amber" is already enabled`.
        let reason: String
        /// The log's last seq (nothing was appended).
        let seq: UInt64
        /// The label the command was about, as it is now (absent for list-wide commands).
        let label: ShownLabel?
    }

    /// Prints appended records: one `log`-style line each, or JSON Lines.
    static func report(_ records: [EventRecord], store: LabelStore, json: Bool, console: Console) throws {
        if json {
            for record in records { console.json(record) }
            return
        }
        var table = Table([.right])
        for record in records {
            table.append(EventText.row(record) { store.label($0)?.title })
        }
        table.write(to: console)
    }
}
