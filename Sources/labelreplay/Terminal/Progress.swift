import Foundation

/// A progress line on standard error for work that may take a while
/// (verify, import, replaying a big log, a `log` whose filters print nothing
/// for a while).
///
/// It draws nothing unless standard error is a terminal that no pager owns, and nothing until the
/// work has taken a second and standard output has been quiet for a second,
/// so quick runs, redirected output and streaming output stay clean. It then
/// redraws at most ten times a second on one line: `\r`, the text cut to the
/// terminal's width (so it never wraps onto a second line), erase to the end
/// of the line. It is erased before any other output and when finished. Only
/// this type and ``Console`` write `\r` and the erase-line sequence.
final class Progress {
    private let console: Console
    private let label: String
    private let total: Int64?
    private let unit: String
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant
    private let delay: Duration
    private let interval: Duration
    private var nextDraw: ContinuousClock.Instant
    private var calls = 0

    /// Progress of `label` towards `total` (in `unit`s; `nil` if unknown).
    init(_ label: String, total: Int64?, unit: String = "bytes", console: Console) {
        self.console = console
        self.label = label
        self.total = total
        self.unit = unit
        // LABELREPLAY_PROGRESS_DELAY_MS (for the tests that capture the line through a
        // pseudo-terminal): the wait before the first draw and between draws.
        let milliseconds = ProcessInfo.processInfo.environment["LABELREPLAY_PROGRESS_DELAY_MS"].flatMap { Int($0) }
        delay = milliseconds.map { .milliseconds($0) } ?? .seconds(1)
        interval = milliseconds.map { .milliseconds($0) } ?? .milliseconds(100)
        start = clock.now
        nextDraw = start.advanced(by: delay)
    }

    /// Reports that `done` units are done; `detail` (e.g. `seq 1200`) is shown after the figures.
    /// Reads the clock every 64 calls, or at every call when `often` is false (for callers that report rarely).
    func update(_ done: Int64, detail: @autoclosure () -> String = "", often: Bool = true) {
        guard console.progressAllowed else { return }
        calls += 1
        guard !often || calls & 0x3F == 0 else { return }  // read the clock every 64 calls
        let now = clock.now
        guard now >= nextDraw else { return }
        if let quietSince = console.lastOutput, now < quietSince.advanced(by: delay) { return }
        nextDraw = now.advanced(by: interval)
        var text = "\(label): "
        if let total, total > 0 {
            let percent = min(100, Int(Double(done) * 100 / Double(total)))
            text += "\(percent)% (\(done) of \(total) \(unit))"
        } else {
            text += "\(done) \(unit)"
        }
        let more = detail()
        if !more.isEmpty { text += ", " + more }
        draw(text)
    }

    /// Shows `text` instead of figures (before one long call that reports no progress of its own),
    /// if the work has already taken a second.
    func message(_ text: String) {
        guard console.progressAllowed, clock.now >= start.advanced(by: delay) else { return }
        draw("\(label): \(text)")
    }

    /// Erases the progress line, if one was drawn.
    func finish() { console.eraseProgressLine() }

    deinit { finish() }

    private func draw(_ text: String) {
        console.flush()
        console.errorRaw("\r" + Self.cut(Escape.text(text), to: Platform.stderrWidth - 1) + "\u{1B}[K")
        console.progressLineDrawn = true
    }

    /// `text` cut to `width` terminal columns, ending in `…` when cut.
    static func cut(_ text: String, to width: Int) -> String {
        guard Table.width(of: text) > width else { return text }
        var out = ""
        var used = 0
        for character in text {
            let columns = Table.width(of: String(character))
            if used + columns > width - 1 { break }
            out.append(character)
            used += columns
        }
        return out + "…"
    }
}
