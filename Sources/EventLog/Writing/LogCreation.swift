/// Creating a log so that a crash never leaves a half-made file at its path.
enum LogCreation {
    /// Writes the header to a temporary file, syncs it, then links it into
    /// place (never replacing an existing file) and syncs the directory.
    /// Returns `false` if another process created the log first.
    static func createAtomically(path: String, header: LogHeader, fileSystem: any LogFileSystem) throws(EventLogError) -> Bool {
        let temporary = SystemFile.temporaryPath(for: path, marker: temporaryMarker)
        let file = try fileSystem.open(temporary, .createExclusive)
        defer { fileSystem.unlink(temporary) }
        do {
            let header = header.encoded()
            try header.withBytes { (raw) throws(EventLogError) in try file.write(raw, at: 0) }
            try file.syncAll()
            file.close()
        } catch {
            file.close()
            throw error
        }
        do {
            try fileSystem.link(temporary, to: path)
        } catch  where error.code == .fileExists {
            return false
        }
        try fileSystem.syncDirectory(containing: path)
        return true
    }

    /// What follows the log's path in a creation's temporary file name:
    /// `PATH.creating-<pid>-<random>`.
    static let temporaryMarker = ".creating-"

    /// Removes `PATH.creating-<pid>-<random>` files left by creators that
    /// died before they finished (their process no longer exists); a file
    /// whose creator still runs is left alone. Returns the paths removed.
    /// Best effort: a file that cannot be removed is skipped.
    @discardableResult
    static func removeAbandonedTemporaries(of path: String, fileSystem: any LogFileSystem) -> [String] {
        SystemFile.removeStaleTemporaries(of: path, marker: temporaryMarker, fileSystem: fileSystem)
    }
}
