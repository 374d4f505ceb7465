import Foundation

/// What a workload may use while it runs: the settings, the scratch space and the progress output.
final class BenchContext {
    /// The run's settings.
    let settings: BenchSettings
    /// Where measurements put their files.
    let scratch: ScratchSpace

    /// A context for one run.
    init(settings: BenchSettings, scratch: ScratchSpace) {
        self.settings = settings
        self.scratch = scratch
    }

    /// Prints a progress line on standard error (standard output stays clean for `--json`).
    func progress(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
