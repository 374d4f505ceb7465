import Foundation

/// Standard output and standard error for one run of the tool.
///
/// Standard output is buffered (flushed when the buffer grows, before
/// anything is written to standard error, and at exit) so that printing
/// thousands of lines costs few system calls. Standard error is written at
/// once. Used from one thread only.
final class Console {
    private var buffer: [UInt8] = []
    /// Whether standard error is a terminal (progress is drawn only then).
    let stderrIsTerminal: Bool
    /// Whether standard output is a terminal (colour and the pager apply only then), as it was at start.
    let stdoutIsTerminal: Bool
    /// Set when standard output could not be written (e.g. a closed pipe); later output is dropped.
    private(set) var outputFailed = false
    /// Set when standard output went to a pager that the user quit before it read everything
    /// (``outputFailed`` is then no error: the tool exits quietly).
    var readerQuit = false
    /// When standard output was last written (a progress line waits until output has been quiet a while).
    private(set) var lastOutput: ContinuousClock.Instant?
    /// Whether a progress line is on standard error's terminal now (erased before more output).
    var progressLineDrawn = false
    /// Whether a progress line may be drawn: standard error is a terminal and no pager owns the screen.
    var progressAllowed: Bool

    /// A console over the process's standard output and error.
    init(stderrIsTerminal: Bool = Platform.stderrIsTerminal, stdoutIsTerminal: Bool = Platform.stdoutIsTerminal) {
        self.stderrIsTerminal = stderrIsTerminal
        self.stdoutIsTerminal = stdoutIsTerminal
        progressAllowed = stderrIsTerminal
        buffer.reserveCapacity(1 << 16)
    }

    /// Writes `line` and a newline to standard output. The caller escapes untrusted parts.
    func line(_ line: String = "") {
        buffer.append(contentsOf: line.utf8)
        buffer.append(0x0A)
        if buffer.count >= 1 << 16 { flush() }
    }

    /// Writes the bytes `write` appends, and a newline, to standard output (for output
    /// made straight into bytes: `export`). The caller escapes untrusted parts.
    func line(appending write: (inout [UInt8]) -> Void) {
        write(&buffer)
        buffer.append(0x0A)
        if buffer.count >= 1 << 16 { flush() }
    }

    /// Appends the bytes `write` appends to standard output's buffer (no
    /// newline), and sends the buffer once it is large: for one line written
    /// in pieces (``JSONPieces``).
    func append(_ write: (inout [UInt8]) -> Void) {
        write(&buffer)
        if buffer.count >= 1 << 16 { flush() }
    }

    /// Writes every line of `lines`.
    func lines(_ lines: [String]) { for text in lines { line(text) } }

    /// Writes `error: message` to standard error, then each detail line indented.
    /// Messages hold raw text: everything is escaped here, line breaks included.
    func error(_ message: String, details: [String] = []) {
        errorLine((["error: " + Escape.text(message)] + details.map { "  " + Escape.text($0) }).joined(separator: "\n"))
    }

    /// Writes `warning: message` to standard error, escaped.
    func warning(_ message: String) { errorLine("warning: " + Escape.text(message)) }

    /// Writes a line to standard error as is, after flushing standard output.
    /// A password of a server URL given on the command line never shows (``Secrets``).
    func errorLine(_ text: String) {
        flush()
        eraseProgressLine()
        write(Data((Secrets.scrub(text) + "\n").utf8), to: .standardError)
    }

    /// Erases the progress line, if one is drawn.
    func eraseProgressLine() {
        guard progressLineDrawn else { return }
        progressLineDrawn = false
        errorRaw("\r\u{1B}[K")
    }

    /// Writes raw bytes to standard error (progress drawing); no newline, no flush of standard output.
    func errorRaw(_ text: String) { write(Data(text.utf8), to: .standardError) }

    /// Sends buffered standard output.
    func flush() {
        guard !buffer.isEmpty else { return }
        defer { buffer.removeAll(keepingCapacity: true) }
        guard !outputFailed else { return }
        eraseProgressLine()
        if !write(buffer, to: .standardOutput) { outputFailed = true }
        lastOutput = ContinuousClock.now
    }

    @discardableResult
    private func write(_ data: some DataProtocol, to handle: FileHandle) -> Bool {
        do {
            try handle.write(contentsOf: data)
            return true
        } catch {
            return false
        }
    }
}
