import Foundation

@testable import EventLog

/// Forces an interleaving: the first call of `op` that reaches a
/// ``FaultyFileSystem``'s hook blocks (before it is counted or performed)
/// until the test releases it.
final class CallGate: Sendable {
    let op: FaultyFileSystem.Op
    private let armed = Locked(true)
    private let arrivedSignal = DispatchSemaphore(value: 0)
    private let releaseSignal = DispatchSemaphore(value: 0)

    init(_ op: FaultyFileSystem.Op, on fs: FaultyFileSystem) {
        self.op = op
        fs.setHook { [self] called, _ in
            guard called == self.op,
                self.armed.withLock({ armed in
                    defer { armed = false }
                    return armed
                })
            else { return }
            self.arrivedSignal.signal()
            self.releaseSignal.wait()
        }
    }

    /// Waits until a call is held at the gate; `false` after `seconds` without one.
    func waitUntilHeld(seconds: Double = 20) -> Bool { arrivedSignal.wait(timeout: .now() + seconds) == .success }

    /// Lets the held call go on.
    func release() { releaseSignal.signal() }
}

/// Runs `body` on its own thread; ``value(seconds:)`` waits for its result.
final class Background<T: Sendable>: Sendable {
    private let result = Locked<Result<T, EventLogError>?>(nil)
    private let done = DispatchSemaphore(value: 0)

    init(_ body: @escaping @Sendable () throws(EventLogError) -> T) {
        Thread.detachNewThread { [result, done] in
            let outcome: Result<T, EventLogError>
            do throws(EventLogError) { outcome = .success(try body()) } catch { outcome = .failure(error) }
            result.withLock { $0 = outcome }
            done.signal()
        }
    }

    /// The result, or `nil` if `body` has not finished after `seconds`.
    func value(seconds: Double = 20) -> Result<T, EventLogError>? {
        guard done.wait(timeout: .now() + seconds) == .success else { return nil }
        done.signal()
        return result.withLock { $0 }
    }
}
