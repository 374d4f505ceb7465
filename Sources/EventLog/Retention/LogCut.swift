import Foundation

/// Cutting a log's earliest records off: they move to an archive file (or
/// are dropped), and the log starts after them from a *base* (format
/// version 3, docs/FORMAT.md, "Based logs") that carries the state and the
/// history tree's frontier at the cut, so the log stays verifiable and the
/// archive and the log are proven to join.
///
/// The cut runs under the log's writer lock (a writer elsewhere makes it
/// fail with ``EventLogError/Code/logInUse``) and never changes the log in
/// place: the archive is written to a temporary file, synced and linked to
/// its name (never replacing a file there); then the new log is written to a
/// temporary file, synced and renamed over the log, and the directories are
/// synced. A crash at any step leaves the old log (with, at worst, a complete
/// archive beside it, which a second run refuses to overwrite) or the new
/// layout — never a log that does not open. Both copy frames byte for byte,
/// so the archive's records and the log's are the records as written, and
/// every chained checksum still holds — but for a cut inside a batch frame
/// (format version 4), which splits that frame and chains every frame kept
/// after it again (the records and heads are unchanged).
public enum LogCut {
    /// What a cut does (``plan(logPath:through:)``) or did (``cut(logPath:through:archiveTo:now:lockWait:image:)``).
    public struct Report: Sendable, Hashable {
        /// The log's path.
        public var logPath: String
        /// The seqs cut: from the log's first record through the cut.
        public var cut: ClosedRange<UInt64>
        /// The smallest and largest timestamps among them.
        public var timeRange: ClosedRange<EventTimestamp>
        /// The records left in the log, and its first seq after the cut.
        public var keptRecords: UInt64
        /// The log's first seq after the cut.
        public var firstSeq: UInt64 { cut.upperBound + 1 }
        /// The bytes of the frames cut, and of the frames kept.
        public var cutBytes: Int64
        /// The bytes of the frames kept.
        public var keptBytes: Int64
        /// The history tree's frontier after the last record cut (the base keeps it).
        public var frontier: [HistoryHash]
        /// The chained checksum of the last record cut (the first kept frame continues it).
        public var chainValue: UInt32
        /// The batch frame the cut falls inside (format version 4), which
        /// the cut splits, if it does: then ``cutBytes`` counts the frames
        /// its records through the cut become, ``keptBytes`` those the rest
        /// become, and ``chainValue`` is the new last frame's of the archive.
        package var split: SplitFrame?
    }

    /// Reads the log at `logPath` and says what cutting the records through
    /// `lastCutSeq` would do; changes nothing and takes no lock.
    ///
    /// - Throws: ``EventLogError``: what ``LogReader`` throws; ``EventLogError/Code/invalidEvent``
    ///   when `lastCutSeq` is before the log's first record or after its last.
    /// - Complexity: O(records cut): each is read and hashed.
    public static func plan(logPath: String, through lastCutSeq: UInt64) throws(EventLogError) -> Report {
        try plan(logPath: logPath, through: lastCutSeq, visitingCut: nil)
    }

    /// ``plan(logPath:through:)``, showing each record it cuts to `visitingCut`
    /// in seq order as it goes (a projection folds them in the same pass).
    ///
    /// With `stoppingAtCut`, it reads no further than the last record cut
    /// (a cut of the open log, whose later records are still being written):
    /// the report's ``Report/keptRecords`` and ``Report/keptBytes`` are then 0.
    package static func plan(
        logPath: String, through lastCutSeq: UInt64, visitingCut: ((EventRecordView) throws(EventLogError) -> Void)?,
        stoppingAtCut: Bool = false, fileSystem: any LogFileSystem = SystemFileSystem()
    ) throws(EventLogError) -> Report {
        let reader = try LogReader(path: logPath, fileSystem: fileSystem)
        let header = reader.header
        guard lastCutSeq >= header.firstSeq else {
            throw EventLogError(
                .invalidEvent,
                "nothing to cut through seq \(lastCutSeq): the log starts at seq \(header.firstSeq)", path: logPath)
        }
        var tree =
            header.base.flatMap { HistoryTreeBuilder(count: $0.lastCutSeq, frontier: $0.frontier) } ?? HistoryTreeBuilder()
        var low = Int64.max
        var high = Int64.min
        var cutEnd: LogPosition?
        var last: LogPosition?
        var kept: UInt64 = 0
        var splitFrame: LogPosition?
        while let (view, position) = try reader.nextPositionedView() {
            last = position
            if view.seq <= lastCutSeq {
                try visitingCut?(view)
                tree.append(payload: view.payload)
                low = min(low, view.timestamp.millisecondsSince1970)
                high = max(high, view.timestamp.millisecondsSince1970)
                cutEnd = position
                if stoppingAtCut && view.seq == lastCutSeq { break }
            } else {
                // A format 4 batch frame holding records on both sides of the cut.
                if kept == 0, let cutEnd, position.offset == cutEnd.offset { splitFrame = cutEnd }
                kept += 1
            }
        }
        if stoppingAtCut, let cutEnd, cutEnd.seq == lastCutSeq, let (_, next) = try reader.nextPositionedView(),
            next.offset == cutEnd.offset
        {
            // The open log's cut copies its frames as they are, while appends go on: it goes between frames.
            throw EventLogError(
                .invalidEvent,
                "cannot cut the open log through seq \(lastCutSeq): a batch frame holds it and seq \(next.seq) after it; a cut of an open log goes between frames (a cut of a closed one splits the frame)",
                path: logPath, offset: next.offset)
        }
        guard let cutEnd, let last, cutEnd.seq == lastCutSeq else {
            throw EventLogError(
                .invalidEvent, "cannot cut through seq \(lastCutSeq): the log ends at seq \(last?.seq ?? header.firstSeq - 1)",
                path: logPath)
        }
        var report = Report(
            logPath: logPath, cut: header.firstSeq...lastCutSeq,
            timeRange: EventTimestamp(millisecondsSince1970: low)...EventTimestamp(millisecondsSince1970: high), keptRecords: kept,
            cutBytes: cutEnd.end - Int64(header.length), keptBytes: last.end - cutEnd.end, frontier: tree.frontier,
            chainValue: cutEnd.checksum ?? 0)
        if let splitFrame {
            let file = try fileSystem.open(logPath, .readOnly)
            defer { file.close() }
            let split = try LogCut.split(
                frameAt: splitFrame, through: lastCutSeq, of: file, format: FrameFormat(header: header), recordsEnd: last.end,
                path: logPath)
            report.split = split
            report.cutBytes = splitFrame.offset - Int64(header.length) + Int64(split.cutFrames.count)
            report.keptBytes = Int64(split.keptFrames.count) + last.end - splitFrame.end
            report.chainValue = split.cutChainValue
        }
        return report
    }

    /// Cuts the records through `lastCutSeq` off the log at `logPath`: with
    /// `archiveTo`, they move to a new log file at that path (the log's
    /// header and frames up to the cut, byte for byte: a log of its own that
    /// `verify` checks alone); without, they are dropped. The log then starts
    /// at `lastCutSeq + 1` from a base holding what `image` returns (the state
    /// after the cut, as the projection encodes it; called once the log's
    /// lock is held, with the log's header), the tree's frontier, and what was
    /// cut (``LogBase``). Caches beside the log (`LOG.index`,
    /// `LOG.index-delta`, `LOG.tree`) are removed: they describe the old file.
    ///
    /// `lockWait` is how long it waits for the log's lock, as
    /// ``LogWriter/Options/lockWait`` (its default too: a writer closed a
    /// moment ago can hold the lock briefly through a child process another
    /// thread is starting).
    ///
    /// - Throws: ``EventLogError``: ``EventLogError/Code/logInUse`` when another writer
    ///   holds the log past `lockWait`; ``EventLogError/Code/fileExists`` when a file is at `archiveTo`;
    ///   ``EventLogError/Code/invalidEvent`` for a seq outside the log; what reading and
    ///   writing throw. Nothing is changed when it throws before the rename.
    /// - Complexity: O(log size): the frames are copied once.
    @discardableResult
    public static func cut(
        logPath: String, through lastCutSeq: UInt64, archiveTo archivePath: String?, now: EventTimestamp,
        lockWait: Duration = LogWriter.Options().lockWait,
        image: (LogHeader) throws(EventLogError) -> [UInt8]
    ) throws(EventLogError) -> Report {
        var header: LogHeader?
        return try cut(
            logPath: logPath, through: lastCutSeq, archiveTo: archivePath, now: now, lockWait: lockWait,
            begin: { header = $0 }, visitingCut: nil, image: { () throws(EventLogError) in try image(header!) })
    }

    /// ``cut(logPath:through:archiveTo:now:lockWait:image:)`` in one read of
    /// the records for the plan and the image: once the log's lock is held,
    /// `begin` gets the log's header, `visitingCut` each record cut in seq
    /// order (as the plan reads it), and then `image` returns the base's image.
    /// Every file operation goes through `fileSystem` (the crash and
    /// power-loss tests model it).
    @discardableResult
    package static func cut(
        logPath: String, through lastCutSeq: UInt64, archiveTo archivePath: String?, now: EventTimestamp,
        lockWait: Duration = LogWriter.Options().lockWait,
        begin: (LogHeader) throws(EventLogError) -> Void, visitingCut: ((EventRecordView) throws(EventLogError) -> Void)?,
        image: () throws(EventLogError) -> [UInt8], fileSystem: any LogFileSystem = SystemFileSystem()
    ) throws(EventLogError) -> Report {
        let writer = try LogWriter.openToRewrite(path: logPath, lockWait: lockWait, fileSystem: fileSystem)
        defer { writer.close() }
        try begin(writer.header)
        // Checked under the lock, after `begin` (which may remove what an earlier cut of this log left).
        if let archivePath, fileSystem.exists(archivePath) {
            throw EventLogError(.fileExists, "an archive is already there; choose another --to or remove it", path: archivePath)
        }
        let report = try plan(logPath: logPath, through: lastCutSeq, visitingCut: visitingCut, fileSystem: fileSystem)
        let image = try image()
        let old = try fileSystem.open(logPath, .readOnly)
        defer { old.close() }
        let header = writer.header
        // The bytes of the old file cut, and kept, as they are (a split frame is in neither).
        let cutEnd = report.split?.offset ?? Int64(header.length) + report.cutBytes
        let dataEnd = report.split?.recordsEnd ?? cutEnd + report.keptBytes
        let disposition: LogBase.Disposition
        if let archivePath {
            let archiveHeader = archiveHeader(header, archivePath: archivePath, logPath: logPath)
            try copy(
                from: old, range: (archiveHeader == nil ? 0 : Int64(header.length))..<cutEnd, header: archiveHeader,
                then: report.split?.cutFrames ?? [], to: archivePath, replacing: false, fileSystem: fileSystem)
            CutCrashPoint.reached(.archiveWritten)
            disposition = .archived(file: relativeName(of: archivePath, from: logPath))
        } else {
            disposition = .dropped
        }
        let base = LogBase(
            cut: report.cut.lowerBound...(report.cut.upperBound), timeRange: report.timeRange, cutAt: now, disposition: disposition,
            frontier: report.frontier, image: image)
        var newHeader = LogHeader(logID: header.logID, createdAt: header.createdAt, base: base, previousChecksum: report.chainValue)
        newHeader.version = max(header.version, LogFormat.basedVersion)
        if let split = report.split {
            try copySplit(split, of: old, header: newHeader, to: logPath, fileSystem: fileSystem)
        } else {
            try copy(
                from: old, range: cutEnd..<dataEnd, header: newHeader.encoded(), to: logPath, replacing: true, fileSystem: fileSystem)
        }
        CutCrashPoint.reached(.logReplaced)
        for cache in [
            HistoryIndexFile.path(for: logPath), HistoryIndexFile.deltaPath(for: logPath), HistoryTreeFile.path(for: logPath),
            SyncMark.path(for: logPath)
        ] {
            fileSystem.unlink(cache)
        }
        // The archive's history index, once (it never changes): see ArchiveIndex.
        if let archivePath {
            ArchiveIndex.write(for: archivePath)
            ArchiveJoin.rememberCut(logPath: logPath)
        }
        return report
    }

    /// A file being written beside its final name: created under a
    /// temporary name (which opening a log removes if its creator died),
    /// published by ``LogCut/publish(_:to:replacing:fileSystem:)``.
    struct TemporaryCopy {
        /// The file, open for reading and writing.
        let file: any LogFile
        /// Its temporary name.
        let path: String
        /// Its length so far.
        var length: Int64

        /// Appends `bytes` at ``length`` (not synced).
        mutating func write(_ bytes: [UInt8]) throws(EventLogError) {
            guard !bytes.isEmpty else { return }
            let file = self.file, at = length
            try bytes.withUnsafeBytes { raw in Result { () throws(EventLogError) in try file.write(raw, at: at) } }.get()
            length += Int64(bytes.count)
        }
    }

    /// Writes `header` (if any) and bytes `range` of `source` to a new
    /// temporary file beside `path` and syncs it; on failure the file is removed.
    /// `paced`: see ``append(from:range:to:name:paced:)``.
    static func writeTemporary(
        from source: any LogFile, range: Range<Int64>, header: [UInt8]?, then trailing: [UInt8] = [], beside path: String,
        paced: Bool = false, fileSystem: any LogFileSystem
    ) throws(EventLogError) -> TemporaryCopy {
        let temporary = SystemFile.temporaryPath(for: path)
        var copy = TemporaryCopy(file: try fileSystem.open(temporary, .createExclusive), path: temporary, length: 0)
        do throws(EventLogError) {
            if let header {
                try header.withUnsafeBytes { raw in Result { () throws(EventLogError) in try copy.file.write(raw, at: 0) } }.get()
                copy.length = Int64(header.count)
            }
            try append(from: source, range: range, to: &copy, name: path, paced: paced)
            try copy.write(trailing)
            try copy.file.syncAll()
        } catch {
            discard(copy, fileSystem: fileSystem)
            throw error
        }
        return copy
    }

    /// Appends bytes `range` of `source` to `copy` (not synced). `paced`: each
    /// 4 MiB written is synced before the next, so no sync of another file
    /// (a durable append to the log being cut) waits behind more than that
    /// much unwritten data of this one.
    static func append(from source: any LogFile, range: Range<Int64>, to copy: inout TemporaryCopy, name path: String, paced: Bool = false)
        throws(EventLogError)
    {
        var offset = range.lowerBound
        while offset < range.upperBound {
            let chunk = try source.read(at: offset, count: Int(min(4 << 20, range.upperBound - offset)))
            guard !chunk.isEmpty else {
                throw EventLogError(.corruptRecord, "the log ended at byte \(offset) while it was copied to \(path)", path: path)
            }
            try chunk.withUnsafeBytes { raw in Result { () throws(EventLogError) in try copy.file.write(raw, at: copy.length) } }.get()
            copy.length += Int64(chunk.count)
            offset += Int64(chunk.count)
            if paced && offset < range.upperBound { try copy.file.syncData() }
        }
    }

    /// Closes and removes a temporary copy that will not be published.
    static func discard(_ copy: TemporaryCopy, fileSystem: any LogFileSystem) {
        copy.file.close()
        fileSystem.unlink(copy.path)
    }

    /// Writes `header` (if any) and bytes `range` of `source` to a temporary
    /// file beside `path`, syncs it, then links it to `path` (failing if a file
    /// is there) or renames it over `path`, and syncs the directory.
    static func copy(
        from source: any LogFile, range: Range<Int64>, header: [UInt8]?, then trailing: [UInt8] = [], to path: String, replacing: Bool,
        paced: Bool = false, fileSystem: any LogFileSystem
    ) throws(EventLogError) {
        let copy = try writeTemporary(
            from: source, range: range, header: header, then: trailing, beside: path, paced: paced, fileSystem: fileSystem)
        copy.file.close()
        try publish(copy.path, to: path, replacing: replacing, fileSystem: fileSystem)
        try fileSystem.syncDirectory(containing: path)
    }

    /// Links the synced file `temporary` to `path` (failing if a file is
    /// there) or renames it over `path`; on failure `temporary` is removed.
    /// The directory is not synced.
    static func publish(_ temporary: String, to path: String, replacing: Bool, fileSystem: any LogFileSystem) throws(EventLogError) {
        do throws(EventLogError) {
            if replacing {
                try fileSystem.rename(temporary, to: path)
            } else {
                try fileSystem.link(temporary, to: path)
                fileSystem.unlink(temporary)
            }
        } catch {
            fileSystem.unlink(temporary)
            throw error
        }
    }

    /// The header an archive written to `archivePath` starts with, when it
    /// is not the log's byte for byte: the log at `logPath` was cut before
    /// and its base names the older archive by a path relative to the log's
    /// directory, which the archive (in another directory) must name
    /// relative to its own. `nil` when the log's header serves as it is.
    static func archiveHeader(_ header: LogHeader, archivePath: String, logPath: String) -> [UInt8]? {
        guard var base = header.base, case .archived(let file) = base.disposition, !file.hasPrefix("/") else { return nil }
        let renamed = relativeName(of: HistoryArchive.resolve(file, namedBy: logPath), from: archivePath)
        guard renamed != file else { return nil }
        base.disposition = .archived(file: renamed)
        var moved = header
        moved.base = base
        return moved.encoded()
    }

    /// `path` relative to the directory of `logPath`: its name alone when it
    /// is in it, as given when absolute, else the steps from that directory.
    static func relativeName(of path: String, from logPath: String) -> String {
        let directory = SystemFile.directoryName(of: logPath)
        let prefix = directory.hasSuffix("/") ? directory : directory + "/"
        if path.hasPrefix(prefix) && !path.dropFirst(prefix.count).contains("/") { return String(path.dropFirst(prefix.count)) }
        if path.hasPrefix("/") { return path }
        // A relative path names a file from the working directory; the base names it from the
        // log's directory (docs/FORMAT.md): the steps from one to the other.
        let target = URL(fileURLWithPath: path).standardizedFileURL.pathComponents
        let from = URL(fileURLWithPath: directory.isEmpty ? "." : directory, isDirectory: true).standardizedFileURL.pathComponents
        var shared = 0
        while shared < min(target.count - 1, from.count), target[shared] == from[shared] { shared += 1 }
        let steps = Array(repeating: "..", count: from.count - shared) + target[shared...]
        return steps.joined(separator: "/")
    }
}
