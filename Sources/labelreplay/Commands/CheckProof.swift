import EventLog
import Foundation

/// `check-proof FILE [--head SEQ:HEX]`: checks a proof from `prove --json`
/// without the log.
enum CheckProof: Command {
    static let spec = CommandSpec(
        name: "check-proof",
        abstract: "Check a proof from 'prove --json' without the log, against a head you kept.",
        discussion: """
            Reads the proof document from FILE ('-' for standard input) and recomputes every step (RFC 9162): an \
            inclusion proof must give its head from the record's payload and the path; a consistency proof must give \
            both heads from the same hashes. The payload of an inclusion proof is decoded as a record, and its seq must \
            be the one proven; the record is printed.

            A proof only says something about the head it names. Pass --head with a head you kept where the log's \
            writer cannot change it: an inclusion proof must be under that head; a consistency proof must start or end \
            at it (starting at it proves the later head; ending at it proves the earlier one was a state of that \
            history). Without --head the proof is checked against its own head, and a warning says so.

            Exit status 0 when the proof holds, 1 when it does not (or the document is malformed), naming why.

            JSON (--json): {"ok", "kind", "seq", "head", "old", "new", "trusted", "record", "problem"} where trusted says \
            whether --head was given and matched, record is the proven record as 'export' writes it (inclusion), and \
            problem is present only when the proof fails.
            """,
        arguments: [
            .positional("file", "The proof document ('-' for standard input)."),
            .option("head", value: "seq:hex", "The head you trust (from 'labelreplay head', kept elsewhere)."),
            .flag("json", "Print one JSON object instead of text.")
        ],
        examples: ["check-proof record-12.proof --head 40:3f9a…", "labelreplay prove labels.labellog 12 --json | labelreplay check-proof -"]
    )

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let file = arguments.positional("file")
        if file.isEmpty { throw UsageError("the value '' is invalid for '<file>': expected a proof file, or '-' for standard input") }
        let trusted = try arguments.option("head").map { text throws(UsageError) in
            try HistorySource.head(text, option: "head", arguments: arguments)
        }
        let name = file == "-" ? "standard input" : file
        let document = try read(file, name: name)
        var output = CheckProofOutput(kind: document.kind, seq: document.seq, head: document.head, old: document.old, new: document.new)
        do {
            output.record = try check(document, trusted: trusted, name: name)
            output.trusted = trusted != nil
        } catch let failure as Failure {
            output.problem = failure.message
        }
        if arguments.flag("json") {
            console.line(try JSONLines().line(output))
        } else if let problem = output.problem {
            console.error(problem)
        } else {
            describe(document, console: console)
            if trusted == nil {
                console.warning(
                    "checked against the proof's own head: pass '--head' with a head you kept elsewhere for the proof to mean something")
            }
        }
        return output.problem == nil ? ExitStatus.success : ExitStatus.failure
    }

    /// The document in `file` (`-`: standard input).
    static func read(_ file: String, name: String) throws -> ProofDocument {
        let data: Data
        if file == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            if let kind = Platform.unreadableKind(file) {
                throw Failure("\(file): is \(kind); give a proof file from 'labelreplay prove --json'")
            }
            guard let contents = FileManager.default.contents(atPath: file) else {
                throw Failure("\(file): cannot read the file; give a proof file from 'labelreplay prove --json'")
            }
            data = contents
        }
        do {
            return try JSONDecoder().decode(ProofDocument.self, from: data)
        } catch {
            throw Failure("\(name): not a proof document from 'labelreplay prove --json': \(describe(decoding: error))")
        }
    }

    /// Checks the proof; returns the proven record (inclusion).
    static func check(_ document: ProofDocument, trusted: HistoryHead?, name: String) throws -> EventRecord? {
        switch document.kind {
        case "inclusion":
            guard let seq = document.seq, let head = document.head, let hex = document.payload else {
                throw Failure("\(name): an inclusion proof needs \"seq\", \"head\" and \"payload\"")
            }
            guard let payload = ProofDocument.bytes(hex: hex) else { throw Failure("\(name): \"payload\" is not hexadecimal bytes") }
            let record: EventRecord
            do {
                record = try EventRecord.decode(payload: payload)
            } catch {
                throw Failure("\(name): the payload is not a record: \(error.message)")
            }
            guard record.seq == seq else {
                throw Failure("\(name): the payload is record \(record.seq), but the proof is of record \(seq)")
            }
            if let trusted, trusted != head {
                throw Failure("\(name): the proof is under head \(head), not under the head you trust, \(trusted)")
            }
            do {
                try InclusionProof(seq: seq, head: head, path: document.path).verify(payload: payload)
            } catch {
                throw Failure("\(name): \(error.message)")
            }
            return record
        case "consistency":
            guard let old = document.old, let new = document.new else {
                throw Failure("\(name): a consistency proof needs \"old\" and \"new\"")
            }
            if let trusted, trusted != old, trusted != new {
                throw Failure("\(name): the proof is from head \(old) to head \(new); neither is the head you trust, \(trusted)")
            }
            do {
                try ConsistencyProof(old: old, new: new, path: document.path).verify()
            } catch {
                throw Failure("\(name): \(error.message)")
            }
            return nil
        default:
            throw Failure("\(name): \"kind\" is '\(document.kind)': expected inclusion or consistency")
        }
    }

    /// The text description of a proof that holds.
    static func describe(_ document: ProofDocument, console: Console) {
        if document.kind == "inclusion", let seq = document.seq, let head = document.head {
            console.line("ok: record \(seq) is in the history under head \(head)")
            if let payload = document.payload.flatMap(ProofDocument.bytes(hex:)), let record = try? EventRecord.decode(payload: payload) {
                console.line("  " + EventText.row(record) { _ in nil }.joined(separator: "  "))
            }
        } else if let old = document.old, let new = document.new {
            console.line("ok: head \(new) extends head \(old)")
        }
        console.line("  \(document.path.count) hashes in the proof")
    }

    private static func describe(decoding error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        switch error {
        case .dataCorrupted(let context), .typeMismatch(_, let context), .valueNotFound(_, let context):
            let at = context.codingPath.map(\.stringValue).joined(separator: ".")
            return (at.isEmpty ? "" : "at \"\(at)\": ") + context.debugDescription
        case .keyNotFound(let key, _): return "\"\(key.stringValue)\" is missing"
        @unknown default: return "\(error)"
        }
    }
}

/// `check-proof --json`.
struct CheckProofOutput: Encodable {
    let kind: String
    let seq: UInt64?
    let head: HistoryHead?
    let old: HistoryHead?
    let new: HistoryHead?
    var trusted = false
    var record: EventRecord?
    var problem: String?
    var ok: Bool { problem == nil }

    enum CodingKeys: String, CodingKey { case ok, kind, seq, head, old, new, trusted, record, problem }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(ok, forKey: .ok)
        try c.encode(kind, forKey: .kind)
        try c.encodeIfPresent(seq, forKey: .seq)
        try c.encodeIfPresent(head, forKey: .head)
        try c.encodeIfPresent(old, forKey: .old)
        try c.encodeIfPresent(new, forKey: .new)
        try c.encode(trusted, forKey: .trusted)
        try c.encodeIfPresent(record, forKey: .record)
        try c.encodeIfPresent(problem, forKey: .problem)
    }
}
