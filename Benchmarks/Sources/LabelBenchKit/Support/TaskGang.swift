import Dispatch
import Synchronization

/// Runs a group of Swift tasks (child tasks of one task group, on the
/// cooperative pool) from synchronous code, for the async API's writers: the
/// counterpart of ``ThreadGang`` for tasks that suspend instead of blocking.
enum TaskGang {
    /// Starts `tasks` child tasks running `work` and blocks the calling thread
    /// (which must not be a thread of the cooperative pool) until all are done;
    /// returns the time from just before the first task was created until the
    /// last one returned. Rethrows the first error (the other tasks are cancelled).
    static func run(tasks: Int, work: @escaping @Sendable (_ task: Int) async throws -> Void) throws -> Duration {
        let done = DispatchSemaphore(value: 0)
        let box = OutcomeBox()
        Task.detached {
            let clock = ContinuousClock()
            let start = clock.now
            do {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for index in 0..<tasks { group.addTask { try await work(index) } }
                    try await group.waitForAll()
                }
                box.set(.success(clock.now - start))
            } catch {
                box.set(.failure(error))
            }
            done.signal()
        }
        done.wait()
        guard let result = box.get() else { throw BenchError("task gang ended without an outcome") }
        return try result.get()
    }
}

/// The outcome of a ``TaskGang`` run, handed from its task to the waiting thread.
private final class OutcomeBox: Sendable {
    private let value = Mutex<Result<Duration, any Error>?>(nil)
    func set(_ result: Result<Duration, any Error>) { value.withLock { $0 = result } }
    func get() -> Result<Duration, any Error>? { value.withLock { $0 } }
}
