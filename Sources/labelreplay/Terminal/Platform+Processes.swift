import Synchronization

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The process a signal handler waits for before the tool dies (0: none);
/// read by the handler, so a lock-free atomic.
private let awaitedChild = Atomic<Int32>(0)

extension Platform {
    /// Starts `/bin/sh -c command` with `environment`, reading a new pipe as
    /// its standard input and writing standard output and error where this
    /// process does, and returns its process id and the pipe's write end.
    ///
    /// The child stays in this process's process group: a pager started from
    /// a shell is then part of the terminal's foreground job, so it may read
    /// keys from the terminal and change its modes. (Foundation's `Process`
    /// gives the child a process group of its own, which the terminal stops
    /// with SIGTTOU/SIGTTIN for ever.) SIGPIPE is the default in the child
    /// whatever it is here.
    static func spawnShell(_ command: String, environment: [String: String]) throws(SystemError) -> (pid: pid_t, input: Int32) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw SystemError(code: errno, what: "cannot make a pipe for the pager") }
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)  // the write end is ours alone
        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t?
        var attributes: posix_spawnattr_t?
        #else
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if ends[0] != STDIN_FILENO {
            posix_spawn_file_actions_adddup2(&actions, ends[0], STDIN_FILENO)
            posix_spawn_file_actions_addclose(&actions, ends[0])
        }
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        posix_spawnattr_setsigmask(&attributes, &unblocked)
        // No POSIX_SPAWN_SETPGROUP: the child shares our process group.
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let words: [String] = ["sh", "-c", command]
        let argv = words.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, envp)
        close(ends[0])
        guard spawned == 0 else {
            close(ends[1])
            throw SystemError(code: spawned, what: "cannot start the pager")
        }
        return (pid, ends[1])
    }

    /// Waits until process `pid` ends (a wait a signal interrupts is resumed)
    /// and returns its exit status, 128 + the signal that ended it, or `nil`
    /// when it is not a child to wait for.
    @discardableResult
    static func waitForExit(_ pid: pid_t) -> Int32? {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { return nil }
        }
        return status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + status & 0x7F
    }

    /// Makes a write to a pipe whose reader is gone fail with `EPIPE` instead
    /// of killing the tool with SIGPIPE (the pager quit early: the command stops writing).
    static func ignoreBrokenPipe() { signal(SIGPIPE, SIG_IGN) }

    /// Makes Ctrl-C, SIGTERM, SIGHUP and SIGQUIT (those not ignored) first wait
    /// until process `pid` ends, then end the tool as they would have: so the
    /// tool never leaves a pager it started on the terminal, running or
    /// stopped, behind a shell that took the terminal back (as git does).
    /// `pid` 0 ends the waiting.
    static func waitOnFatalSignals(for pid: pid_t) {
        awaitedChild.store(pid, ordering: .relaxed)
        guard pid != 0 else { return }
        let handler: @convention(c) (Int32) -> Void = { number in
            let child = awaitedChild.load(ordering: .relaxed)
            if child > 0 {
                var status: Int32 = 0
                while waitpid(child, &status, 0) < 0 && errno == EINTR {}
            }
            // Blocked while the handler runs: delivered, with its default action, on return.
            _ = signal(number, SIG_DFL)
            raise(number)
        }
        for fatal in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] {
            let previous = signal(fatal, handler)
            if let previous, unsafeBitCast(previous, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) {
                _ = signal(fatal, SIG_IGN)
            }
        }
    }

    /// Sends standard output to `descriptor` from now on (and closes `descriptor` itself).
    static func redirectStandardOutput(to descriptor: Int32) {
        dup2(descriptor, STDOUT_FILENO)
        close(descriptor)
    }

    /// Closes standard output: a pager reading it sees the end.
    static func closeStandardOutput() { close(STDOUT_FILENO) }
}
