import Foundation

/// Steps of ``LogCut/cut(logPath:through:archiveTo:now:lockWait:image:)`` at
/// which a test can make the process end at once (`_exit`), as a crash or
/// `kill -9` would: set `LABELSTORE_TEST_CUT_CRASH` to a step's name. Never
/// set outside tests.
package enum CutCrashPoint: String {
    /// The archive is written, synced and linked to its name; the log is unchanged.
    case archiveWritten = "archive-written"
    /// The new log is renamed over the old one; the caches are not yet removed.
    case logReplaced = "log-replaced"

    /// Ends the process here when the environment names this step.
    package static func reached(_ point: CutCrashPoint) {
        if ProcessInfo.processInfo.environment["LABELSTORE_TEST_CUT_CRASH"] == point.rawValue { _exit(99) }
    }
}
