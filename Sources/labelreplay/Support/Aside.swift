import Foundation

/// Work done on a second thread while the calling thread goes on, and its
/// result taken when the caller needs it (``result()``, ``value()``).
///
/// Thread safety: the thread writes `outcome` once, before it leaves `done`;
/// the caller reads it only after waiting on `done`.
final class Aside<Value>: @unchecked Sendable {
    private let done = DispatchGroup()
    private var outcome: Result<Value, any Error> = .failure(CancellationError())

    /// Starts `work` on a thread of its own, named `name`.
    init(_ name: String, _ work: @escaping @Sendable () throws -> Value) {
        done.enter()
        let thread = Thread { [self] in
            defer { done.leave() }
            outcome = Result { try work() }
        }
        thread.name = name
        thread.start()
    }

    /// Waits up to `timeout` for the work; whether it has ended.
    func wait(upTo timeout: DispatchTimeInterval) -> Bool {
        done.wait(timeout: .now() + timeout) == .success
    }

    /// Waits for the work, and returns what it returned or threw.
    func result() -> Result<Value, any Error> {
        done.wait()
        return outcome
    }

    /// Waits for the work, and returns its value or rethrows its error.
    func value() throws -> Value { try result().get() }
}
