import EventLog

/// `export LOG`: the records as JSON Lines, for `import`.
enum Export: Command {
    static let spec = CommandSpec(
        name: "export",
        abstract: "Write the records as JSON Lines to standard output (the input of 'import').",
        discussion: """
            One object per line, exactly the records' JSON form (as 'log --json'): seq, time (ISO 8601 UTC with \
            milliseconds), kind, id, actor, note and the kind's fields. Importing the output into an empty log \
            reproduces the same records: seqs, timestamps, actors and notes.

            A based log (its records before some seq archived or dropped) is exported from seq 1 when its archive \
            is beside it. Otherwise the export starts from its base: the first line is {"base":{…}} (the log id, \
            the first seq, the chained checksum there and the base block, which holds the list at the cut), and \
            'import' into a new path makes a based log of the same history: the same records, seqs and head, \
            which the archive, brought back to where the base names it, joins again ('verify').
            """,
        arguments: [
            .positional("log", "The label log file."),
            .option("from", value: "seq", "Start at this seq."),
            .option("to", value: "seq", "Stop after this seq (a seq past the end exports to the end).")
        ],
        examples: ["export labels.labellog > labels.jsonl", "export labels.labellog --from 10 --to 18"])

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let path = try arguments.logPath()
        let from = try arguments.seq("from") ?? 1
        let to = try arguments.seq("to")
        if let to, to < from { throw UsageError("'--from' (\(from)) is after '--to' (\(to))") }
        let replay = try Replay(path: path, folds: false, console: console)
        // The records before a based log's first are read from its archive when it is there; else named (and,
        // for a whole-history export, exported from the log's first on, after the base they need).
        try replay.includeArchived(
            from: from, explicit: arguments.option("from") != nil || to.map { $0 < replay.header.firstSeq } == true)
        // An export from a base starts with it: an import makes a based log of the same history.
        if from <= replay.origin + 1,
            let base = ExportedBase(
                header: replay.startHeader,
                directory: LogLocation.isServer(replay.path) && !replay.readsArchive
                    ? nil : SystemFile.directoryName(of: replay.archivePath ?? replay.path))
        {
            console.line(base.line)
        }
        // Each record is written from its view in the read buffer, as `JSONEncoder` would write it (`JSONLine.write`).
        try replay.forEachView(from: from) { view in
            if let to, view.seq > to { return false }
            console.line { JSONLine.write(view, to: &$0) }
            return !console.outputFailed
        }
        replay.warnAboutTail()
        return ExitStatus.success
    }
}
