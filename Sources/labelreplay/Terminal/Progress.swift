/// A progress line on standard error for work that may take a while
/// (verify, import, replaying a big log).
///
/// It draws nothing unless standard error is a terminal, and nothing during
/// the first second, so quick runs and redirected output stay clean. It then
/// redraws at most ten times a second on one line (`\r`), and erases itself
/// when finished. Only this type writes `\r` and the erase-line sequence.
final class Progress {
    private let console: Console
    private let label: String
    private let total: Int64?
    private let unit: String
    private let enabled: Bool
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant
    private var nextDraw: ContinuousClock.Instant
    private var calls = 0
    private var drawn = false

    /// Progress of `label` towards `total` (in `unit`s; `nil` if unknown).
    init(_ label: String, total: Int64?, unit: String = "bytes", console: Console) {
        self.console = console
        self.label = label
        self.total = total
        self.unit = unit
        self.enabled = console.stderrIsTerminal
        start = clock.now
        nextDraw = start.advanced(by: .seconds(1))
    }

    /// Reports that `done` units are done; `detail` (e.g. `seq 1200`) is shown after the figures.
    func update(_ done: Int64, detail: @autoclosure () -> String = "") {
        guard enabled else { return }
        calls += 1
        guard calls & 0x3F == 0 else { return }  // read the clock every 64 calls
        let now = clock.now
        guard now >= nextDraw else { return }
        nextDraw = now.advanced(by: .milliseconds(100))
        var text = "\(label): "
        if let total, total > 0 {
            let percent = min(100, Int(Double(done) * 100 / Double(total)))
            text += "\(percent)% (\(done) of \(total) \(unit))"
        } else {
            text += "\(done) \(unit)"
        }
        let more = detail()
        if !more.isEmpty { text += ", " + more }
        console.flush()
        console.errorRaw("\r" + Escape.text(text) + "\u{1B}[K")
        drawn = true
    }

    /// Shows `text` instead of figures (before one long call that reports no progress of its own),
    /// if the work has already taken a second.
    func message(_ text: String) {
        guard enabled, clock.now >= start.advanced(by: .seconds(1)) else { return }
        console.flush()
        console.errorRaw("\r" + Escape.text("\(label): \(text)") + "\u{1B}[K")
        drawn = true
    }

    /// Erases the progress line, if one was drawn.
    func finish() {
        guard drawn else { return }
        console.errorRaw("\r\u{1B}[K")
        drawn = false
    }

    deinit { finish() }
}
