import Dispatch

/// Work done on another thread while the caller does its own, its result
/// taken once by the caller: a long history's id index built while a
/// snapshot's columns or a checkpoint's order are checked, a checkpoint's
/// removal blocks read while its images are decoded.
///
/// `@unchecked Sendable`: the work runs once, writes ``value`` and then
/// signals; the caller reads it only after waiting (``wait()``, ``take()``),
/// from one thread. Whatever the work reads (a buffer of the caller's) must
/// stay alive and unchanged until that wait: a caller that leaves early, by
/// an error, waits first.
final class ConcurrentJob<Value>: @unchecked Sendable {
    /// From this many slots on, a list's work is worth a second thread (below, a thread costs more than it saves).
    static var worthwhileSlotCount: Int { 50_000 }

    private var work: (() -> Value)?
    private var value: Value?
    private let finished = DispatchSemaphore(value: 0)
    /// Whether the caller has waited (the semaphore is waited on once).
    private var joined = false

    /// A job that will run `work` once ``start(concurrently:)`` is called.
    init(_ work: @escaping () -> Value) {
        self.work = work
    }

    /// Runs the work on a global queue, or, unless `concurrently`, here and now.
    func start(concurrently: Bool = true) {
        if concurrently { DispatchQueue.global(qos: .userInitiated).async { self.run() } } else { run() }
    }

    private func run() {
        value = work?()
        work = nil
        finished.signal()
    }

    /// Waits for the work to end (at most once; again, it returns at once).
    func wait() {
        guard !joined else { return }
        finished.wait()
        joined = true
    }

    /// The work's result, after waiting for it; moved out, so it is not shared (taken once).
    func take() -> Value {
        wait()
        defer { value = nil }
        guard let value else { preconditionFailure("a concurrent job's result is taken once, after it was started") }
        return value
    }
}
