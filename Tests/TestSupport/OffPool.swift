import Foundation

/// Runs `body` on a thread of its own and waits for it without holding a
/// thread of Swift's cooperative pool.
///
/// Swift Testing runs every test, synchronous ones included, on the
/// cooperative pool, which has one thread per core (two on the CI machine).
/// A test that blocks for long — child processes it kills, waits on
/// semaphores, long model checks — holds one of those threads the whole time;
/// two of them at once stop every other test's tasks, including the actor and
/// stream deliveries that delivery tests wait for (which then looked like
/// lost notifications: issue 25, item 7). Such tests run their body here.
package func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { (done: CheckedContinuation<T, any Error>) in
        let thread = Thread {
            do { done.resume(returning: try body()) } catch { done.resume(throwing: error) }
        }
        thread.stackSize = 8 << 20
        thread.start()
    }
}
