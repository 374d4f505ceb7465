#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The one place that asks the operating system about the terminal and signals.
enum Platform {
    /// Whether standard output is a terminal.
    static var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }
    /// Whether standard error is a terminal (progress is shown only then).
    static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }
}
