extension SystemFile {
    /// Writes `bytes` as the whole file at `path`, atomically and durably: to
    /// `PATH.tmp-<pid>-<random>`, `fsync`ed, renamed over `path`, then the
    /// directory `fsync`ed. A crash leaves the old file or the new one (and at
    /// worst the temporary, which the next write of `path` removes:
    /// ``removeStaleTemporaries(of:)``, those of processes that no longer
    /// exist). On failure the temporary is removed and `path` is unchanged.
    ///
    /// With `durably` off, nothing is synced: a crash leaves the old file,
    /// the new one, or (on some file systems) an empty or partial one — for
    /// files whose loss or damage only costs work (a cache that checks itself).
    ///
    /// - Throws: ``EventLogError/Code/ioError`` when creating, writing, syncing or renaming fails.
    package static func writeAtomically(_ bytes: [UInt8], to path: String, durably: Bool = true) throws(EventLogError) {
        removeStaleTemporaries(of: path)
        let temporary = temporaryPath(for: path)
        let file = try open(temporary, .createExclusive)
        do throws(EventLogError) {
            try bytes.withUnsafeBytes { raw in Result { () throws(EventLogError) in try file.write(raw, at: 0) } }.get()
            if durably { try file.syncAll() }
            file.close()
            try rename(temporary, to: path)
        } catch {
            file.close()
            unlink(temporary)
            throw error
        }
        if durably { try syncDirectory(containing: path) }
    }
}
