import EventLog
import LabelProjection

/// The exit statuses of `labelreplay` (BSD `sysexits` for usage).
enum ExitStatus {
    /// The command did what was asked (including "nothing to change").
    static let success: Int32 = 0
    /// An operation failed: a rejected edit, an unknown id, a corrupt log, an I/O error.
    static let failure: Int32 = 1
    /// The command line is malformed (`EX_USAGE`).
    static let usage: Int32 = 64
}

/// A failed operation: printed as `error: message` on standard error, exit status 1.
///
/// Messages hold raw text (titles unescaped); ``Console`` escapes on output.
struct Failure: Error, Sendable {
    /// What failed and where (path, id, seq, byte offset).
    let message: String
    /// Lines printed under the message (e.g. the candidates of an ambiguous id).
    let details: [String]
    init(_ message: String, details: [String] = []) {
        self.message = message
        self.details = details
    }
}

/// Turns any error a command throws into the sentence shown after `error:`.
enum ErrorText {
    /// The readable text of `error`, naming path, id, seq and byte offset where known.
    static func describe(_ error: any Error) -> String {
        switch error {
        case let failure as Failure:
            return failure.message
        case let error as StoreError:
            return describe(error)
        case let error as EventLogError:
            return describe(error)
        case let error as ProjectionError:
            return "inconsistent log: " + error.message
        default:
            return String(describing: error)
        }
    }

    /// A store refusal or failure; storage failures show the log's own error.
    static func describe(_ error: StoreError) -> String {
        var text: String
        switch error.code {
        case .storage(let underlying): text = describe(underlying)
        case .inconsistentEvent(let underlying): text = "inconsistent log: " + underlying.message
        default: text = error.message
        }
        if let audit = error.auditSeq { text += " (recorded as rejected audit record seq \(audit))" }
        return text
    }

    /// A log error: `PATH: message (byte offset N, last good seq M)`.
    static func describe(_ error: EventLogError) -> String {
        var text = error.path.map { "\($0): " } ?? ""
        text += error.message
        var facts: [String] = []
        if let offset = error.offset { facts.append("byte offset \(offset)") }
        if let seq = error.lastGoodSeq { facts.append("last good seq \(seq)") }
        if !facts.isEmpty { text += " (" + facts.joined(separator: ", ") + ")" }
        if let code = error.errno { text += ": " + SystemFile.describe(errno: code) }
        return text
    }
}
