import Foundation

/// Runs a program as a child process with `posix_spawn` and reaps it with
/// `wait4`, which also gives the child's resource usage (its peak resident
/// set). Foundation's `Process` is avoided: `waitUntilExit` has hung here.
///
/// Standard input is `/dev/null`; standard output and error go to files.
enum ChildProcess {
    /// How a child ended.
    struct Outcome: Equatable {
        /// The exit status (0–255), or `128 + signal` when a signal ended it.
        var status: Int32
        /// Whether a signal ended it (``status`` is then `128 + signal`).
        var signaled: Bool
        /// From `posix_spawn` until `wait4` returned.
        var elapsed: Duration
        /// The child's peak resident set in bytes (`ru_maxrss`, see ``residentBytes(maxRSS:)``).
        var maxResidentBytes: Int
    }

    /// Runs `executable` (a path; with `searchPath`, a name looked up in `PATH`)
    /// with `arguments` (without the program name), its standard output
    /// written to `outputPath` and its standard error to `errorPath` (both
    /// created or truncated), and waits for it.
    ///
    /// On Linux a child started this way inherits in `ru_maxrss` the peak
    /// resident set of the process that spawned it (the kernel keeps the
    /// larger of the memory the child left at `exec` and its own): measure
    /// memory through ``RusageProbe`` instead, from a small process.
    static func run(
        _ executable: String, _ arguments: [String], outputPath: String, errorPath: String, searchPath: Bool = false,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> Outcome {
        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t?
        #else
        var actions = posix_spawn_file_actions_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv = ([executable] + arguments).map { strdup($0) }
        let envp = environment.map { strdup("\($0.key)=\($0.value)") }
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid = pid_t()
        let clock = ContinuousClock()
        let start = clock.now
        let spawned = (argv + [nil]).withUnsafeBufferPointer { args in
            (envp + [nil]).withUnsafeBufferPointer { env in
                searchPath
                    ? posix_spawnp(&pid, executable, &actions, nil, args.baseAddress!, env.baseAddress!)
                    : posix_spawn(&pid, executable, &actions, nil, args.baseAddress!, env.baseAddress!)
            }
        }
        guard spawned == 0 else {
            throw BenchError("cannot start \(executable): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else {
                throw BenchError("waiting for \(executable) (pid \(pid)) failed: \(String(cString: strerror(errno)))")
            }
        }
        let elapsed = clock.now - start
        let (code, signaled) = decode(waitStatus: status)
        return Outcome(status: code, signaled: signaled, elapsed: elapsed, maxResidentBytes: residentBytes(maxRSS: Int(usage.ru_maxrss)))
    }

    /// The exit code and whether a signal ended the process, from a `wait` status
    /// (`WIFEXITED`/`WEXITSTATUS`/`WTERMSIG`, which Swift does not import).
    static func decode(waitStatus status: Int32) -> (status: Int32, signaled: Bool) {
        let signal = status & 0x7f
        return signal == 0 ? ((status >> 8) & 0xff, false) : (128 + signal, true)
    }

    /// `ru_maxrss` in bytes: Linux reports kibibytes, Darwin bytes.
    static func residentBytes(maxRSS: Int) -> Int {
        #if canImport(Darwin)
        maxRSS
        #else
        maxRSS * 1024
        #endif
    }

    /// The path of the running executable (to start it again in a probe mode).
    static func currentExecutable() throws -> String {
        #if os(Linux)
        return try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        #else
        guard let path = Bundle.main.executablePath else { throw BenchError("cannot find labelbench's own executable") }
        return path
        #endif
    }
}
