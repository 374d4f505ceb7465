import EventLog

/// `prove LOG SEQ` / `prove LOG --extends SEQ:HEX`: proofs anyone can check
/// against a head without the log.
enum Prove: Command {
    static let spec = CommandSpec(
        name: "prove",
        abstract: "Prove that a record is in the history under a head, or that the history extends an earlier head.",
        discussion: """
            With a SEQ: an inclusion proof that record SEQ is in the history under the head after --at (default: the \
            last record), or under the head given with --head, which the log must still have (else exit 1: the log does \
            not extend it). The proof holds the record's payload and the hashes beside its path to the head (RFC 9162).

            With --extends SEQ:HEX: a consistency proof that the history now (or at --at) extends that earlier head, \
            which the log must still have: nothing up to it was changed, removed, inserted or reordered.

            Either is checked without the log by 'check-proof', by anyone who trusts the head it names. Every proof is \
            checked before it is printed. The records are read from seq 1 (the caches are not used).

            JSON (--json): the proof document that 'check-proof' reads: {"kind": "inclusion", "seq", "head": {"seq", \
            "hash"}, "path": [hex], "payload": hex} or {"kind": "consistency", "old": {"seq", "hash"}, "new": {"seq", \
            "hash"}, "path": [hex]}.
            """,
        arguments: [
            .positional("log", "The label log file, or a postgres:// list."),
            .positional("seq", optional: true, "The record to prove (not with --extends)."),
            .option("at", value: "seq", "Prove under the head after this seq (default: the last record)."),
            .option("head", value: "seq:hex", "Prove under this head, which the log must have (not with --at)."),
            .option("extends", value: "seq:hex", "Prove that the history extends this earlier head."),
            .flag("json", "Print the proof document instead of text.")
        ],
        examples: [
            "prove labels.labellog 12 --json > record-12.proof", "prove labels.labellog 12 --head 40:3f9a…",
            "prove labels.labellog --extends 40:3f9a… --json"
        ])

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let path = try arguments.logPath()
        try arguments.exclusive("at", "head")
        let seq = try arguments.seq("seq")
        let extends = try arguments.option("extends").map { text throws(UsageError) in
            try HistorySource.head(text, option: "extends", arguments: arguments)
        }
        let trusted = try arguments.option("head").map { text throws(UsageError) in
            try HistorySource.head(text, option: "head", arguments: arguments)
        }
        switch (seq, extends) {
        case (nil, nil): throw UsageError("give the seq of a record to prove, or '--extends <seq:hex>'")
        case (.some, .some): throw UsageError("'<seq>' and '--extends' cannot be used together")
        default: break
        }
        let at = try trusted?.seq ?? arguments.seq("at")
        // The first record needed: the one proved, and the one after each head (a head at the
        // seq an archive starts after is the frontier of the archive before it).
        let reaching = [seq, extends.map { $0.seq + 1 }, at.map { $0 + 1 }].compactMap { $0 }.min()
        let (records, progress) = try HistorySource.open(path, label: "hashing \(path)", console: console, reaching: reaching)
        let document: ProofDocument
        do {
            defer { progress.finish() }
            if let extends {
                let proof = try HistoryProver.consistencyProof(from: extends.seq, to: at, in: records)
                guard proof.old == extends else { throw diverged(path, from: extends, now: proof.old) }
                try check(proof.new, against: trusted, path: path)
                document = ProofDocument(proof)
            } else {
                let (proof, payload) = try HistoryProver.inclusionProof(ofSeq: seq!, underHeadAt: at, in: records)
                try check(proof.head, against: trusted, path: path)
                document = ProofDocument(proof, payload: payload)
            }
        }
        if arguments.flag("json") {
            console.line(try JSONLines().line(document))
        } else {
            CheckProof.describe(document, console: console)
            console.line("check it without the log: labelreplay prove … --json > FILE, then labelreplay check-proof FILE --head HEAD")
        }
        return ExitStatus.success
    }

    /// Fails unless `head` (computed from the log) is the head the user gave.
    private static func check(_ head: HistoryHead, against trusted: HistoryHead?, path: String) throws {
        guard let trusted, trusted != head else { return }
        throw diverged(path, from: trusted, now: head)
    }

    private static func diverged(_ path: String, from trusted: HistoryHead, now: HistoryHead) -> Failure {
        Failure(
            "\(path) does not extend head \(trusted): its records 1…\(trusted.seq) give \(now.hash.hex), so one of them was "
                + "changed, removed, inserted or reordered since that head was taken; 'labelreplay verify \(path) --head "
                + "\(trusted)' says more")
    }
}
