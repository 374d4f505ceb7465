import Foundation
import LabelProjection

/// Points where a test can stop a command to interrupt it exactly there
/// (`LABELREPLAY_TEST_PAUSE=<point>`): the command says `paused at <point>` on
/// standard error and waits for Ctrl-C (at most half an hour: a test run on a
/// loaded machine may take minutes to send it). Without the variable
/// nothing happens. Used by the tests of interrupting `import` before and after
/// its commit, which no timing could hit reliably.
enum TestHooks {
    /// The environment variable naming the point.
    static let variable = "LABELREPLAY_TEST_PAUSE"

    /// Pauses at `point` if the environment asks for it.
    static func pause(at point: String, console: Console) {
        guard ProcessInfo.processInfo.environment[variable] == point else { return }
        console.errorLine("paused at \(point)")
        Platform.waitForInterrupt(atMost: 1800)
    }

    /// `LABELREPLAY_TEST_INDEX=always`: `log` reads through a usable history
    /// index even where reading the whole log would be cheaper, `index` writes
    /// a checkpoint every ``checkpointInterval`` records, and both say on
    /// standard error when they are used (`(read through the history index)`,
    /// `(from the checkpoint at seq N)`), so the tests exercise (and can see)
    /// the indexed paths on small logs. Without the variable nothing changes.
    static var alwaysUsesIndex: Bool { ProcessInfo.processInfo.environment["LABELREPLAY_TEST_INDEX"] == "always" }

    /// Records between checkpoints: `CheckpointFile.defaultInterval`, or 16 under ``alwaysUsesIndex``.
    static var checkpointInterval: UInt64 { alwaysUsesIndex ? 16 : CheckpointFile.defaultInterval }
}
