/// The history index of an archive (`ARCHIVE.index`, docs/INDEX.md), written
/// once when the archive is cut off a log or a server list: an archive never
/// changes, so its index never goes stale, and label, actor and time queries
/// over archived seqs read only the records that can match.
package enum ArchiveIndex {
    /// Writes the index of the archive at `path` (a finished, synced archive).
    /// A cache: when it cannot be written (the archive is not on this file
    /// system, a write fails), nothing is reported and the archive is read
    /// whole, as any log without an index is.
    package static func write(for path: String) {
        _ = try? HistoryIndexFile.update(logPath: path, rebuild: true)
    }
}
