import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Long output on a terminal goes through a pager, as git's does: `$PAGER`, or
/// `less -FRX` (which quits at once when the output fits the screen, passes
/// colours through and leaves the text on the screen); `LESS` is `FRX` unless
/// set. Never when standard output is not a terminal, never for `--follow`, and
/// not with `--no-pager` or when `PAGER` is empty or `cat`.
///
/// The pager runs in the tool's own process group, so that started from a
/// shell it belongs to the terminal's foreground job and reads the keyboard
/// (``Platform/spawnShell(_:environment:)``). When the user quits it before
/// reading everything, the tool stops writing and exits quietly with status 0;
/// Ctrl-C and the like end the tool only once the pager ended.
final class Pager {
    private let pid: pid_t

    private init(pid: pid_t) { self.pid = pid }

    /// Starts the pager and sends standard output to it, if it applies.
    static func start(console: Console, disabled: Bool) -> Pager? {
        guard !disabled, console.stdoutIsTerminal else { return nil }
        let environment = ProcessInfo.processInfo.environment
        let command: String
        if let pager = environment["PAGER"] {
            let trimmed = pager.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty, trimmed != "cat" else { return nil }
            command = trimmed
        } else {
            guard Self.isInPath("less") else { return nil }
            command = "less -FRX"
        }
        var pagerEnvironment = environment
        if pagerEnvironment["LESS"] == nil { pagerEnvironment["LESS"] = "FRX" }
        console.flush()
        let child: (pid: pid_t, input: Int32)
        do {
            child = try Platform.spawnShell(command, environment: pagerEnvironment)
        } catch {
            return nil
        }
        Platform.ignoreBrokenPipe()
        Platform.waitOnFatalSignals(for: child.pid)
        console.eraseProgressLine()
        console.progressAllowed = false  // the pager owns the screen now
        Platform.redirectStandardOutput(to: child.input)
        return Pager(pid: child.pid)
    }

    /// Sends what is left, ends the pager's input and waits until the user quits it.
    /// If the pager quit (status 0) before it read everything, the output's failure is the user's choice, not an error.
    func finish(console: Console) {
        console.flush()
        Platform.closeStandardOutput()
        let status = Platform.waitForExit(pid)
        Platform.waitOnFatalSignals(for: 0)
        if console.outputFailed && status == 0 { console.readerQuit = true }
    }

    private static func isInPath(_ name: String) -> Bool {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(name)") }
    }
}
