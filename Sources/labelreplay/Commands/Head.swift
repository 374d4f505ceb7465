import EventLog

/// `head LOG [--at SEQ]`: the history tree's head, to keep somewhere else.
enum Head: Command {
    static let spec = CommandSpec(
        name: "head",
        abstract: "Print the history's head: one value that commits to every record up to a seq.",
        discussion: """
            The head after seq N is the root of a hash tree (RFC 9162's Merkle tree, SHA-256) over the payloads of \
            records 1…N, printed as SEQ:HEX. Change, remove, insert or reorder any of those records, even recomputing \
            every checksum of the file after it, and the head changes. Keep it where whoever can write the log cannot \
            (a ticket, another machine, a server): later, 'verify LOG --head SEQ:HEX' proves the log still extends it, \
            and 'prove' gives proofs that anyone can check against it with 'check-proof'. A head kept only beside the \
            log proves nothing.

            The same records give the same head in a file, on a server, in a copy and after export and import. It is \
            computed by reading the records from seq 1 (the caches are not used).

            JSON (--json): {"path", "seq", "hash", "head"} where head is "SEQ:HEX".
            """,
        arguments: [
            .positional("log", "The label log file, or a postgres:// list."),
            .option("at", value: "seq", "The head after this seq (default: the last record)."),
            .flag("json", "Print one JSON object instead of text.")
        ],
        examples: [
            "head labels.labellog", "head labels.labellog --at 1200",
            "verify labels.labellog --head \"$(labelreplay head labels.labellog)\""
        ])

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let path = try arguments.logPath()
        let at = try arguments.seq("at")
        let (records, progress) = try HistorySource.open(path, label: "hashing \(path)", console: console, reaching: at.map { $0 + 1 })
        let head: HistoryHead
        do {
            defer { progress.finish() }
            head = try HistoryProver.head(of: records, atSeq: at)
        }
        if arguments.flag("json") {
            console.line(try JSONLines().line(HeadOutput(path: path, seq: head.seq, hash: head.hash.hex, head: head.description)))
        } else {
            console.line(head.description)
        }
        return ExitStatus.success
    }
}

/// `head --json`.
struct HeadOutput: Encodable {
    let path: String
    let seq: UInt64
    let hash: String
    let head: String
}
