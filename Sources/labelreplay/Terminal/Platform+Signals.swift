import Synchronization

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The signal a deferred interrupt caught (0: none yet). Written by the signal
/// handler, so it is a lock-free atomic and nothing else.
private let caughtSignal = Atomic<Int32>(0)

/// A command stopped by Ctrl-C (SIGINT) or SIGTERM at a point where stopping is
/// safe; the tool exits with 128 + the signal's number (130 for Ctrl-C).
struct Interrupted: Error, Sendable {
    /// The signal that asked for it.
    let signal: Int32
    /// The exit status: 128 + the signal's number.
    var status: Int32 { 128 + signal }
}

extension Platform {
    /// Makes Ctrl-C (SIGINT) and SIGTERM only record that they arrived, so that a
    /// command stops where it chooses (``checkInterrupt()``) instead of at any
    /// instruction: `import` uses it to stop either before its commit or after it,
    /// never in between. A blocking read is not restarted, so it returns at once.
    static func deferInterrupts() {
        var action = sigaction()
        #if canImport(Darwin)
        action.__sigaction_u.__sa_handler = { caughtSignal.store($0, ordering: .relaxed) }
        #else
        action.__sigaction_handler.sa_handler = { caughtSignal.store($0, ordering: .relaxed) }
        #endif
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0  // no SA_RESTART: a read in progress fails with EINTR
        sigaction(SIGINT, &action, nil)
        sigaction(SIGTERM, &action, nil)
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        sigprocmask(SIG_UNBLOCK, &set, nil)
    }

    /// The signal recorded since ``deferInterrupts()``, if any.
    static var pendingInterrupt: Int32? {
        let signal = caughtSignal.load(ordering: .relaxed)
        return signal == 0 ? nil : signal
    }

    /// Throws ``Interrupted`` if Ctrl-C or SIGTERM arrived since ``deferInterrupts()``.
    static func checkInterrupt() throws(Interrupted) {
        if let signal = pendingInterrupt { throw Interrupted(signal: signal) }
    }

    /// Waits until a deferred interrupt arrives (at most `seconds`); for tests that
    /// must interrupt a command at an exact point (see ``TestHooks``).
    static func waitForInterrupt(atMost seconds: Int) {
        for _ in 0..<(seconds * 100) where pendingInterrupt == nil { usleep(10_000) }
    }

    /// Makes sure Ctrl-C (SIGINT) and SIGTERM end the process, even when the
    /// parent started it with those signals blocked (a blocked mask is
    /// inherited across exec). Used by commands that run until interrupted.
    static func allowInterrupts() {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        sigprocmask(SIG_UNBLOCK, &set, nil)
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
