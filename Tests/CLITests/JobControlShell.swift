import Foundation
import Testing

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

#if canImport(Darwin)
/// `TIOCSWINSZ` (`_IOW('t', 103, struct winsize)`), a macro Swift does not import on Darwin.
private let setWindowSize: UInt = 0x8008_7467
/// `POSIX_SPAWN_SETSID`.
private let spawnSetSID: Int32 = 0x0400
#else
private let setWindowSize = UInt(TIOCSWINSZ)
/// `POSIX_SPAWN_SETSID` (a GNU extension the Glibc module does not export).
private let spawnSetSID: Int32 = 0x80
#endif

/// An interactive `bash --norc -i` with job control on a pseudo-terminal of
/// its own (a new session whose controlling terminal is the pty), as a user's
/// shell in a terminal window: each command line typed runs as the
/// terminal's foreground job, and a pager it starts reads keys from the
/// terminal. Everything the terminal shows is collected from the master side.
final class JobControlShell {
    /// The shell's process id (also its session's and process group's).
    let pid: pid_t
    private let master: Int32
    private var bytes: [UInt8] = []
    private var reaped = false

    /// What the terminal showed so far, raw.
    var screen: String { String(decoding: bytes, as: UTF8.self) }
    /// How many bytes the terminal showed so far (for ``text(from:)``).
    var shown: Int { bytes.count }

    /// What the terminal showed after its first `offset` bytes, raw.
    func text(from offset: Int) -> String { String(decoding: bytes[min(offset, bytes.count)...], as: UTF8.self) }

    /// Starts the shell on a new pseudo-terminal `columns` × `rows`, with
    /// `directory` (the built `labelreplay`'s) first on its `PATH`, no
    /// `PAGER` nor `LESS`, and `environment` on top.
    init(columns: UInt16 = 80, rows: UInt16 = 24, pathFirst directory: String, environment: [String: String] = [:]) throws {
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        try #require(master >= 0, "cannot open /dev/ptmx: errno \(errno)")
        #if canImport(Darwin)
        try #require(grantpt(master) == 0 && unlockpt(master) == 0)
        let name = try #require(ptsname(master).map { String(cString: $0) })
        #else
        var unlock: Int32 = 0
        try #require(ioctl(master, UInt(0x4004_5431), &unlock) == 0, "TIOCSPTLCK failed")
        var number: UInt32 = 0
        try #require(ioctl(master, UInt(0x8004_5430), &number) == 0, "TIOCGPTN failed")
        let name = "/dev/pts/\(number)"
        #endif
        _ = fcntl(master, F_SETFD, FD_CLOEXEC)
        var size = winsize(ws_row: rows, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
        try #require(ioctl(master, setWindowSize, &size) == 0, "cannot set the window size")
        _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK)
        self.master = master

        var variables = ProcessInfo.processInfo.environment
        for name in ["PAGER", "LESS", "LESSOPEN", "LESSCLOSE", "PROMPT_COMMAND", "BASH_ENV", "ENV", "TMUX"] {
            variables[name] = nil
        }
        variables["PATH"] = directory + ":" + (variables["PATH"] ?? "/usr/bin:/bin")
        variables["TERM"] = "xterm"
        variables["PS1"] = "$ "
        variables["HISTFILE"] = "/dev/null"
        variables["INPUTRC"] = "/dev/null"
        variables.merge(environment) { $1 }

        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t?
        var attributes: posix_spawnattr_t?
        #else
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // After setsid, the first terminal the session leader opens becomes its controlling terminal.
        posix_spawn_file_actions_addopen(&actions, 0, name, O_RDWR, 0)
        posix_spawn_file_actions_adddup2(&actions, 0, 1)
        posix_spawn_file_actions_adddup2(&actions, 0, 2)
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setflags(&attributes, Int16(spawnSetSID | Int32(POSIX_SPAWN_SETSIGMASK)))
        let arguments = ["bash", "--norc", "--noprofile", "-i"]
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawnp(&pid, "bash", &actions, &attributes, argv, envp)
        if spawned != 0 { close(master) }
        try #require(spawned == 0, "cannot start bash: \(String(cString: strerror(spawned)))")
        self.pid = pid
    }

    /// Types `text` on the terminal's keyboard (`\r` is Return).
    func type(_ text: String) {
        var data = Array(text.utf8)
        var offset = 0
        while offset < data.count {
            let written = data.withUnsafeMutableBytes { write(master, $0.baseAddress! + offset, $0.count - offset) }
            if written > 0 { offset += written } else if errno != EINTR && errno != EAGAIN { return }
        }
    }

    /// Reads what the terminal shows until `done` holds for what it showed
    /// after its first `offset` bytes (returning true), or until `deadline`
    /// passes (returning false): a wait that ends as soon as the screen is
    /// there, and fails a test that would hang instead of blocking the run.
    func wait(from offset: Int = 0, until deadline: ContinuousClock.Instant, for done: (String) -> Bool) async throws -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            while true {
                let count = buffer.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
                if count <= 0 { break }
                bytes.append(contentsOf: buffer[0..<count])
            }
            if done(text(from: offset)) { return true }
            if ContinuousClock.now >= deadline { return false }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// The status `echo <marker>-$?` printed after the first `offset` bytes,
    /// once the shell got that far before `deadline`; `nil` if it never did.
    func status(after marker: String, from offset: Int, until deadline: ContinuousClock.Instant) async throws -> Int? {
        let pattern = try Regex("\(marker)-([0-9]+)")
        var found: Int?
        _ = try await wait(from: offset, until: deadline) { screen in
            guard let match = screen.firstMatch(of: pattern), let digits = match.output[1].substring else { return false }
            found = Int(digits)
            return true
        }
        return found
    }

    /// Ends the shell and, with it, its jobs: the kernel hangs up the
    /// session's foreground job, and continues and hangs up a stopped one,
    /// when the session's leader dies.
    func stop() {
        guard !reaped else { return }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        reaped = true
        close(master)
    }

    deinit { stop() }
}
