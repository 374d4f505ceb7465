import Foundation

/// Rewriting a log file in log format version 4 (batch frames,
/// docs/FORMAT.md, "Batch frames (version 4)"): the same log id, base and
/// records — so the same history, heads and proofs — in about 40 % of the
/// bytes of version 2.
///
/// The upgrade runs under the log's writer lock and never changes the log
/// in place: the new file is written under a temporary name, checked (its
/// records hash to the same history tree as the log's), synced and renamed
/// over the log, and the directory is synced; a crash leaves the old log or
/// the new one. The frames and their chained checksums are new, so the
/// caches beside the log that name frames (`LOG.index`, `LOG.index-delta`,
/// `LOG.tree`, `LOG.synced`) are removed; the label store's (snapshots,
/// checkpoints) are its own to remove.
///
/// An archive is never upgraded: the log cut from it continues its last
/// chained checksum, which new frames would change. A file that a log
/// beside it names as its archive is refused; name no other archive.
public enum LogUpgrade {
    /// What an upgrade did.
    public struct Report: Sendable, Hashable {
        /// The log's path.
        public var logPath: String
        /// Its format version before.
        public var fromVersion: UInt16
        /// Its format version after (``LogFormat/batchVersion``, or as it was).
        public var toVersion: UInt16
        /// The records rewritten (0 when nothing changed).
        public var records: UInt64
        /// The file's length before, and after.
        public var bytesBefore: Int64
        /// The file's length after.
        public var bytesAfter: Int64
        /// The history's head after the last record: the same before and after.
        public var head: HistoryHead
        /// Whether the file was rewritten.
        public var changed: Bool { fromVersion != toVersion }
    }

    /// Rewrites the log at `logPath` in format version 4, unless it is in
    /// that format already (then nothing changes). `progress` is called with
    /// the records written so far, now and then.
    ///
    /// - Throws: ``EventLogError``: ``EventLogError/Code/logInUse`` when a writer holds
    ///   the log past `lockWait`; ``EventLogError/Code/invalidEvent`` when a log beside it
    ///   names it as its archive, or for a record the version 4 encoder refuses (a string
    ///   with U+0000, which only an old record can hold); ``EventLogError/Code/corruptRecord``
    ///   if the new file does not read back as the same history; what reading and writing
    ///   throw. Nothing is changed when it throws before the rename.
    /// - Complexity: O(log size): the records are read twice (once to write, once to
    ///   check) and written once.
    @discardableResult
    public static func upgrade(
        logPath: String, lockWait: Duration = LogWriter.Options().lockWait, progress: ((UInt64) -> Void)? = nil
    ) throws(EventLogError) -> Report {
        try upgrade(logPath: logPath, lockWait: lockWait, progress: progress, fileSystem: SystemFileSystem())
    }

    /// ``upgrade(logPath:lockWait:progress:)`` through `fileSystem`.
    package static func upgrade(
        logPath: String, lockWait: Duration, progress: ((UInt64) -> Void)?, fileSystem: any LogFileSystem
    ) throws(EventLogError) -> Report {
        let writer = try LogWriter.openToRewrite(path: logPath, lockWait: lockWait, fileSystem: fileSystem)
        defer { writer.close() }
        let header = writer.header
        let bytesBefore = writer.byteLength
        let reader = try LogReader(path: logPath, fileSystem: fileSystem)
        var oldTree = tree(startingAt: header)
        guard header.version != LogFormat.batchVersion else {
            while let view = try reader.nextView() { oldTree.append(payload: view.payload) }
            return Report(
                logPath: logPath, fromVersion: header.version, toVersion: header.version, records: 0, bytesBefore: bytesBefore,
                bytesAfter: bytesBefore, head: oldTree.head)
        }
        try refuseIfArchive(logPath)
        var newHeader = header
        newHeader.version = LogFormat.batchVersion
        let format = FrameFormat(header: newHeader)
        let old = try fileSystem.open(logPath, .readOnly)
        defer { old.close() }
        var copy = try LogCut.writeTemporary(from: old, range: 0..<0, header: newHeader.encoded(), beside: logPath, fileSystem: fileSystem)
        var published = false
        defer { if !published { LogCut.discard(copy, fileSystem: fileSystem) } }
        var chain = format.firstPrevious
        var records: UInt64 = 0
        var batch: [EventRecord] = []
        batch.reserveCapacity(FrameBatch.batchFrameRecords)
        func flush() throws(EventLogError) {
            guard !batch.isEmpty else { return }
            let frames = try FrameBatch(records: batch, format: format, previous: chain, firstContinues: false)
            try copy.write(Array(frames.bytes))
            chain = frames.lastChecksum
            records += UInt64(batch.count)
            batch.removeAll(keepingCapacity: true)
            if records % (64 * UInt64(FrameBatch.batchFrameRecords)) == 0 { progress?(records) }
        }
        while let view = try reader.nextView() {
            oldTree.append(payload: view.payload)
            batch.append(view.record)
            if batch.count == FrameBatch.batchFrameRecords { try flush() }
        }
        try flush()
        try copy.file.syncAll()
        // The new file read back: the same records, so the same history tree.
        let check = try LogReader(path: copy.path, fileSystem: fileSystem)
        var newTree = tree(startingAt: newHeader)
        var readBack: UInt64 = 0
        while let view = try check.nextView() {
            newTree.append(payload: view.payload)
            readBack += 1
        }
        guard readBack == records, newTree.head == oldTree.head, try check.tail() == .none else {
            throw EventLogError(
                .corruptRecord,
                "the rewritten log does not read back as the same history (\(readBack) of \(records) records); nothing changed",
                path: copy.path)
        }
        guard try copy.file.tryLockExclusive() else {
            throw EventLogError(.logInUse, "the new log file could not be locked", path: copy.path)
        }
        try LogCut.publish(copy.path, to: logPath, replacing: true, fileSystem: fileSystem)
        published = true
        // Locked until here so no writer opened the new file before it was at the path; then released.
        defer { copy.file.close() }
        try fileSystem.syncDirectory(containing: logPath)
        for cache in [
            HistoryIndexFile.path(for: logPath), HistoryIndexFile.deltaPath(for: logPath), HistoryTreeFile.path(for: logPath),
            SyncMark.path(for: logPath)
        ] {
            fileSystem.unlink(cache)
        }
        progress?(records)
        return Report(
            logPath: logPath, fromVersion: header.version, toVersion: newHeader.version, records: records, bytesBefore: bytesBefore,
            bytesAfter: copy.length, head: newTree.head)
    }

    /// A tree builder for a log with `header`: from its base's frontier, or empty.
    private static func tree(startingAt header: LogHeader) -> HistoryTreeBuilder {
        header.base.flatMap { HistoryTreeBuilder(count: $0.lastCutSeq, frontier: $0.frontier) } ?? HistoryTreeBuilder()
    }

    /// Throws when a label log in the directory of `logPath` names it as its archive.
    private static func refuseIfArchive(_ logPath: String) throws(EventLogError) {
        let directory = SystemFile.directoryName(of: logPath)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.isEmpty ? "." : directory)) ?? []
        let target = URL(fileURLWithPath: logPath).standardizedFileURL.path
        for name in names.sorted() where !name.contains(SystemFile.temporaryMarker) {
            let other = directory.isEmpty ? name : (directory.hasSuffix("/") ? directory + name : directory + "/" + name)
            guard URL(fileURLWithPath: other).standardizedFileURL.path != target,
                let base = (try? LogReader(path: other))?.header.base, case .archived(let file) = base.disposition
            else { continue }
            if URL(fileURLWithPath: HistoryArchive.resolve(file, namedBy: other)).standardizedFileURL.path == target {
                throw EventLogError(
                    .invalidEvent,
                    "\(logPath) is the archive of \(other), whose first record continues this file's last chained checksum: new frames would break that join; an archive is never upgraded, and nothing was changed",
                    path: logPath)
            }
        }
    }
}
