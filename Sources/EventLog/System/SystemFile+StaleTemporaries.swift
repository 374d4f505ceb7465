/// Temporary files that a killed writer left behind.
///
/// ``SystemFile/writeAtomically(_:to:)`` writes `PATH.tmp-<pid>-<random>`
/// and renames it over `PATH`; a process killed in between leaves the
/// temporary. The next write of the same file removes those whose process no
/// longer exists on this machine (`kill(pid, 0)` fails with `ESRCH`) and
/// never one of a live process, which may be writing it right now. A pid
/// means something only on its own host: a directory written by processes
/// of several machines at once is not supported (as for the log itself).
extension SystemFile {
    /// What follows `PATH` in an atomic write's temporary file name.
    package static let temporaryMarker = ".tmp-"

    /// A new temporary beside `path`, `PATH<marker><pid>-<random>`
    /// (`PATH.tmp-…` unless given another marker): named for this process,
    /// so ``removeStaleTemporaries(of:marker:fileSystem:)`` removes it only
    /// once the process is gone.
    package static func temporaryPath(for path: String, marker: String = temporaryMarker) -> String {
        "\(path)\(marker)\(processID)-\(UInt32.random(in: 0...UInt32.max))"
    }

    /// The pid in the name of a temporary `name` of the file named `base`
    /// (`BASE<marker><pid>-<random>`, both decimal; the marker is an atomic
    /// write's ``temporaryMarker`` unless given), or `nil` if `name` is not one.
    package static func temporaryOwner(_ name: String, of base: String, marker: String = temporaryMarker) -> Int32? {
        let prefix = base + marker
        guard name.hasPrefix(prefix) else { return nil }
        let parts = name.dropFirst(prefix.count).split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let pid = Int32(parts[0]), pid > 0, UInt32(parts[1]) != nil else { return nil }
        return pid
    }

    /// Removes `PATH<marker><pid>-<random>` files whose process no longer
    /// exists (``processExists(_:)``; this process exists, so its own are
    /// kept); returns the paths removed. The marker is an atomic write's
    /// ``temporaryMarker`` unless given (a log's creation has its own). Best
    /// effort: one that cannot be removed is skipped, silently.
    @discardableResult
    package static func removeStaleTemporaries(
        of path: String, marker: String = temporaryMarker, fileSystem: any LogFileSystem = SystemFileSystem()
    ) -> [String] {
        let directory = directoryName(of: path)
        let base = String(path.split(separator: "/", omittingEmptySubsequences: false).last ?? "")
        guard !base.isEmpty else { return [] }
        var removed: [String] = []
        for name in directoryEntries(directory) {
            guard let pid = temporaryOwner(name, of: base, marker: marker), !processExists(pid) else { continue }
            let temporary = directory == "." && !path.hasPrefix("./") ? name : "\(directory)/\(name)"
            fileSystem.unlink(temporary)
            if !fileSystem.exists(temporary) { removed.append(temporary) }
        }
        return removed
    }
}
