/// A failure of the harness itself (bad arguments, a setup step, a check
/// that both sides stored the same records), with a message for the user.
struct BenchError: Error, CustomStringConvertible {
    /// What went wrong.
    var message: String

    /// Creates an error with `message`.
    init(_ message: String) { self.message = message }

    /// The message.
    var description: String { message }
}
