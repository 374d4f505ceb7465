import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

#if canImport(Darwin)
/// `TIOCGWINSZ` (`_IOR('t', 104, struct winsize)`), a macro Swift does not import on Darwin.
private let windowSizeRequest: UInt = 0x4008_7468
#else
private let windowSizeRequest = UInt(TIOCGWINSZ)
#endif

extension Platform {
    /// The width in columns of the terminal on `descriptor`, or `nil` when it is not a terminal.
    static func terminalWidth(of descriptor: Int32) -> Int? {
        guard isatty(descriptor) == 1 else { return nil }
        var size = winsize()
        guard ioctl(descriptor, windowSizeRequest, &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    /// The width of standard error's terminal (for the progress line): the
    /// terminal's own width, else `COLUMNS`, else 80.
    static var stderrWidth: Int { terminalWidth(of: STDERR_FILENO) ?? columnsVariable ?? 80 }

    /// The width help is wrapped to: `COLUMNS` when set, else the width of
    /// standard output's terminal, else 80 (as swift-argument-parser).
    static var helpWidth: Int { columnsVariable ?? terminalWidth(of: STDOUT_FILENO) ?? 80 }

    /// `COLUMNS`, when it holds a positive number.
    private static var columnsVariable: Int? {
        ProcessInfo.processInfo.environment["COLUMNS"].flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil }
    }

    /// The login name of the user running the tool: `LOGNAME`, `USER`, else the
    /// password database's name for the real user id.
    static var loginName: String? {
        let environment = ProcessInfo.processInfo.environment
        for name in ["LOGNAME", "USER"] {
            if let value = environment[name], !value.isEmpty { return value }
        }
        guard let entry = getpwuid(getuid()), let name = entry.pointee.pw_name else { return nil }
        let text = String(cString: name)
        return text.isEmpty ? nil : text
    }
}
