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
/// colours through and leaves the text on the screen). Never when standard
/// output is not a terminal, never for `--follow`, and not with `--no-pager`
/// or when `PAGER` is empty or `cat`.
final class Pager {
    private let process: Process

    private init(process: Process) { self.process = process }

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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        var pagerEnvironment = environment
        if pagerEnvironment["LESS"] == nil { pagerEnvironment["LESS"] = "FRX" }
        process.environment = pagerEnvironment
        let pipe = Pipe()
        process.standardInput = pipe
        do {
            try process.run()
        } catch {
            return nil
        }
        console.flush()
        console.eraseProgressLine()
        console.progressAllowed = false  // the pager owns the screen now
        dup2(pipe.fileHandleForWriting.fileDescriptor, STDOUT_FILENO)
        try? pipe.fileHandleForWriting.close()
        return Pager(process: process)
    }

    /// Sends what is left, ends the pager's input and waits until the user quits it.
    func finish(console: Console) {
        console.flush()
        close(STDOUT_FILENO)
        process.waitUntilExit()
    }

    private static func isInPath(_ name: String) -> Bool {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(name)") }
    }
}
