#if canImport(Darwin)
import Synchronization
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A value behind a mutual-exclusion lock: the one way shared mutable state
/// is guarded in this package.
///
/// On Apple platforms it is `Synchronization.Mutex` (an `os_unfair_lock`).
/// Elsewhere it is a `pthread_mutex_t`, because `Mutex` there is built on raw
/// futex calls that ThreadSanitizer cannot see, so every access under it would
/// be reported as a race; with a pthread mutex the sanitizer run in CI checks
/// real happens-before edges. The lock is not recursive: do not call
/// `withLock` on the same instance from inside its body.
package final class Locked<Value>: @unchecked Sendable {
    #if canImport(Darwin)
    private let mutex: Mutex<Value>

    /// Creates a lock guarding `value`.
    package init(_ value: sending Value) { mutex = Mutex(value) }

    /// Runs `body` with exclusive access to the value.
    package func withLock<Result, E: Error>(_ body: (inout sending Value) throws(E) -> sending Result) throws(E) -> sending Result {
        try mutex.withLock(body)
    }
    #else
    private var value: Value
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// Creates a lock guarding `value`.
    package init(_ value: sending Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init failed with \(status)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    package func withLock<Result, E: Error>(_ body: (inout sending Value) throws(E) -> sending Result) throws(E) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
    #endif
}
