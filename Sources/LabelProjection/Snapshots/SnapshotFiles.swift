import EventLog
import Foundation

/// Where a log's snapshots live and how they are written and read.
///
/// A snapshot of the log at `PATH` taken at seq `S` is the file
/// `PATH.snapshot-<S as 20 decimal digits>`, next to the log, so names sort by
/// seq. It is written to `PATH.snapshot-<S>.tmp-<pid>-<random>`, synced,
/// renamed into place and the directory synced: a crash leaves either no
/// snapshot at `S` or a complete one (and, at worst, a temporary file that the
/// next prune removes).
enum SnapshotFiles {
    /// One snapshot file: its path and the seq its name gives.
    struct Entry: Sendable, Hashable {
        var path: String
        var seq: UInt64
    }

    /// The path of the snapshot of `logPath` at `seq`.
    static func path(for logPath: String, seq: UInt64) -> String {
        let digits = String(seq)
        return "\(logPath).snapshot-" + String(repeating: "0", count: max(0, 20 - digits.count)) + digits
    }

    /// The snapshot files of `logPath`, newest (highest seq) first, leftover
    /// temporary files, and why the directory could not be listed, if it could
    /// not (then there are none of either).
    static func list(for logPath: String) -> (snapshots: [Entry], temporary: [String], problem: EventLogError?) {
        let directory = SystemFile.directoryName(of: logPath)
        let prefix = (logPath.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? logPath) + ".snapshot-"
        // POSIX leaves unspecified which entries `readdir` returns while the
        // directory changes (other files of the log come and go: the index's
        // temporary, say), and a listing has been seen to miss all of them:
        // list again until two listings agree on this log's snapshot names.
        var names: [String] = []
        do throws(EventLogError) {
            var previous = try SystemFile.listDirectory(directory).filter { $0.hasPrefix(prefix) }.sorted()
            for _ in 0..<8 {
                names = try SystemFile.listDirectory(directory).filter { $0.hasPrefix(prefix) }.sorted()
                if names == previous { break }
                previous = names
            }
        } catch {
            return ([], [], error)
        }
        var snapshots: [Entry] = []
        var temporary: [String] = []
        for name in names {
            let rest = name.dropFirst(prefix.count)
            let full = directory == "." && !logPath.hasPrefix("./") ? name : directory + "/" + name
            if rest.count == 20, rest.allSatisfy({ $0.isASCII && $0.isNumber }), let seq = UInt64(rest) {
                snapshots.append(Entry(path: full, seq: seq))
            } else if rest.contains(".tmp-") {
                temporary.append(full)
            }
        }
        snapshots.sort { $0.seq > $1.seq }
        return (snapshots, temporary, nil)
    }

    /// Reads and decodes the snapshot at `path`.
    static func read(_ path: String) throws(SnapshotError) -> (list: LabelList, header: SnapshotHeader) {
        // Mapped, not copied: snapshot files are only ever replaced by a rename, never rewritten in place.
        let file: MappedFile
        do {
            file = try MappedFile(path: path)
        } catch {
            throw SnapshotError(.ioError, "cannot read the snapshot: \(error)")
        }
        return try withExtendedLifetime(file) { () throws(SnapshotError) in try LabelList.decodeSnapshot(file.bytes) }
    }

    /// Writes `bytes` as the snapshot at `path` atomically and durably.
    static func write(_ bytes: [UInt8], to path: String) throws(EventLogError) {
        try SystemFile.writeAtomically(bytes, to: path)
    }

    /// Removes every snapshot of `logPath` except those in `keep`, and every leftover temporary file.
    /// Only the log's single writer may call this (it holds the log's lock).
    /// Removes one snapshot file (best effort: a file that cannot be removed stays).
    static func remove(_ path: String) { SystemFile.unlink(path) }

    static func prune(for logPath: String, keeping keep: Set<String>) {
        let (snapshots, temporary, _) = list(for: logPath)
        for entry in snapshots where !keep.contains(entry.path) { SystemFile.unlink(entry.path) }
        for path in temporary { SystemFile.unlink(path) }
    }
}
