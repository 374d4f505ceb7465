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
    /// Interrupted by Ctrl-C (128 + SIGINT).
    static let interrupted: Int32 = 130
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
