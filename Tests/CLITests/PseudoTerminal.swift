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
#else
private let setWindowSize = UInt(TIOCSWINSZ)
#endif

/// What `labelreplay` wrote to a pseudo-terminal, and what it wrote elsewhere.
struct TerminalResult: CustomStringConvertible {
    let status: Int32
    /// Every byte written to the terminal (standard error, standard output, or both), raw.
    let terminal: String
    /// Standard output, when it was a file rather than the terminal.
    let stdout: String

    var description: String {
        "status \(status)\n--- terminal\n\(terminal.debugDescription)\n--- stdout\n\(stdout)"
    }
}

/// Runs the built `labelreplay` with standard error (and, with `stdoutToo`,
/// standard output) on the slave side of a pseudo-terminal `columns` wide, in
/// raw mode (no newline translation), and collects what reaches the master
/// side: what a user would see, byte for byte.
enum PseudoTerminal {
    static func run(
        _ arguments: [String], columns: UInt16, stdoutToo: Bool = false, environment: [String: String] = [:]
    ) async throws -> TerminalResult {
        let (master, name) = try openMaster()
        defer { close(master) }
        let slave = open(name, O_RDWR | O_NOCTTY)
        try #require(slave >= 0, "cannot open \(name)")
        defer { close(slave) }
        var size = winsize(ws_row: 24, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
        try #require(ioctl(master, setWindowSize, &size) == 0, "cannot set the window size")
        var mode = termios()
        tcgetattr(slave, &mode)
        cfmakeraw(&mode)
        tcsetattr(slave, TCSANOW, &mode)
        _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK)

        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("labelreplay-pty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let out = scratch.appendingPathComponent("stdout")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)

        let process = Process()
        process.executableURL = CLI.executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let terminal = FileHandle(fileDescriptor: slave, closeOnDealloc: false)
        process.standardError = terminal
        process.standardOutput = stdoutToo ? terminal : try FileHandle(forWritingTo: out)
        process.standardInput = FileHandle.nullDevice
        try process.run()

        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        func drain() {
            while true {
                let count = buffer.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
                if count <= 0 { return }
                bytes.append(contentsOf: buffer[0..<count])
            }
        }
        // Read while it runs (so a full terminal buffer never blocks it); about a minute at most.
        for _ in 0..<6000 where process.isRunning {
            drain()
            try await Task.sleep(for: .milliseconds(10))
        }
        if process.isRunning {
            Issue.record("labelreplay \(arguments) still running after a minute: killed")
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        drain()
        let stdout = (try? String(contentsOf: out, encoding: .utf8)) ?? ""
        return TerminalResult(status: process.terminationStatus, terminal: String(decoding: bytes, as: UTF8.self), stdout: stdout)
    }

    /// A new pseudo-terminal's master side, unlocked, and the path of its slave side.
    private static func openMaster() throws -> (Int32, String) {
        #if canImport(Darwin)
        let master = posix_openpt(O_RDWR | O_NOCTTY)
        try #require(master >= 0, "posix_openpt failed: errno \(errno)")
        try #require(grantpt(master) == 0 && unlockpt(master) == 0)
        return (master, try #require(ptsname(master).map { String(cString: $0) }))
        #else
        // Glibc does not export posix_openpt to Swift: open the multiplexer and use its ioctls
        // (TIOCSPTLCK to unlock, TIOCGPTN for the slave's number; grantpt does nothing on devpts).
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        try #require(master >= 0, "cannot open /dev/ptmx: errno \(errno)")
        var unlock: Int32 = 0
        try #require(ioctl(master, UInt(0x4004_5431), &unlock) == 0, "TIOCSPTLCK failed")
        var number: UInt32 = 0
        try #require(ioctl(master, UInt(0x8004_5430), &number) == 0, "TIOCGPTN failed")
        return (master, "/dev/pts/\(number)")
        #endif
    }
}
