/// Keeping a log's history index current: appending a segment of the records
/// written since (an update costs them, not the history), merging the
/// segments into a new base now and then, or building the base from seq 1.
extension HistoryIndexFile {
    /// What ``update(logPath:rebuild:merge:progress:)`` did.
    public struct Update: Sendable {
        /// How the files changed.
        public enum Change: Sendable, Hashable {
            /// Nothing: the index already covered every record.
            case unchanged
            /// One segment of the records since was appended to `LOG.index-delta`.
            case appendedSegment
            /// The base and its segments (with the records since) were merged into a new base.
            case merged
            /// The base was built from seq 1 (there was no usable index, or `rebuild`).
            case rebuilt
        }

        /// The index as written.
        public var index: HistoryIndex
        /// What was there before (a usable index was extended; otherwise it was rebuilt from seq 1).
        public var previous: Lookup
        /// How many records were added to it.
        public var added: UInt64
        /// How the files changed.
        public var change: Change
    }

    /// Segments after which an update merges instead of appending another.
    public static let maxSegments = 16

    /// Brings the index of the log at `logPath` up to date. A usable index
    /// is extended with the records after the ones it covers: one segment of
    /// them is appended to `LOG.index-delta` (its bytes synced, then its
    /// entry); when the segments would hold more than a quarter of the base's
    /// records, or more than ``maxSegments`` of them, the base and segments
    /// are merged into a new base instead (written atomically and durably,
    /// then an empty delta file naming it), and so they are whenever `merge`
    /// is set and the index has segments or records to add. Otherwise (missing, ignored, or
    /// `rebuild`) the base is built from seq 1. Updates of one log run one at
    /// a time (an exclusive lock on the delta file, in this process or
    /// another). Reads the log without locking it, so it works beside a
    /// writer (it indexes the records complete when it reads them). `progress`
    /// is called now and then with the last seq indexed. A crash at any point
    /// leaves an index that is used as far as it goes, or reported and rebuilt.
    ///
    /// - Throws: ``EventLogError``: what ``LogReader/init(path:fileSystem:)`` throws for the
    ///   log; ``EventLogError/Code/corruptRecord`` or ``EventLogError/Code/seqGap`` for damage
    ///   in it (nothing is written then); ``EventLogError/Code/ioError`` when writing the
    ///   index fails (what was there stays usable).
    /// - Complexity: O(records added) to append a segment; O(index size) to merge or rebuild.
    @discardableResult
    public static func update(
        logPath: String, rebuild: Bool = false, merge: Bool = false, progress: ((UInt64) -> Void)? = nil
    ) throws(EventLogError) -> Update {
        _ = try LogReader(path: logPath)  // a log is there: no delta file is created beside anything else
        let deltaPath = HistoryIndexDelta.path(for: logPath)
        let lock = try SystemFile.openLockedReplaceable(deltaPath)
        defer { lock.close() }
        // Opened under the lock: the log as it is now (a repair may have replaced it while this one waited).
        let reader = try LogReader(path: logPath)
        let (previous, delta) = loadWithDelta(for: reader)
        func report(_ seq: UInt64) { if seq % 4_096 == 0 { progress?(seq) } }
        func rebuilt(after previous: Lookup) throws(EventLogError) -> Update {
            try reader.rewind()
            var builder = HistoryIndexBuilder(
                logID: reader.header.logID, firstSeq: reader.header.firstSeq, previousChecksum: reader.header.previousChecksum)
            while let next = try reader.nextPositionedView() {
                builder.add(next.view, at: next.position)
                report(next.view.seq)
            }
            let written = try writeBase(consume builder, logPath: logPath)
            return Update(index: written, previous: previous, added: written.coveredSeq, change: .rebuilt)
        }
        func merged(_ index: HistoryIndex, added: UInt64) throws(EventLogError) -> Update {
            let builder: HistoryIndexBuilder
            do throws(Problem) {
                builder = try HistoryIndexBuilder(index)
            } catch {
                // A damaged part of the index: built again from seq 1.
                return try rebuilt(after: .ignored(error))
            }
            let written = try writeBase(consume builder, logPath: logPath)
            return Update(index: written, previous: previous, added: added, change: .merged)
        }
        guard !rebuild, let index = previous.index, let covered = index.covered else { return try rebuilt(after: previous) }
        try reader.seek(toSeq: covered.seq + 1, atOffset: covered.end, previousChecksum: covered.checksum ?? 0)
        var segment = HistoryIndexBuilder(logID: reader.header.logID, after: covered)
        while let next = try reader.nextPositionedView() {
            segment.add(next.view, at: next.position)
            report(next.view.seq)
        }
        let added = segment.recordCount
        let appendable = delta?.appendable == true
        if merge, added == 0, index.segmentCount > 0 {
            return try merged(index, added: 0)
        }
        if added == 0 {
            // Nothing to add; a delta file that is not used as a whole is written again without what it cannot use.
            if !appendable {
                _ = try writeDelta(logID: index.logID, base: index.parts[0], segments: index.parts.dropFirst(), path: deltaPath)
            }
            return Update(index: index, previous: previous, added: 0, change: .unchanged)
        }
        let bytes = segment.encoded()
        let segmentRecords = index.coveredSeq - index.baseCoveredSeq + added
        if merge || segmentRecords > index.baseCoveredSeq / 4 || index.segmentCount + 1 > maxSegments || added > UInt64(UInt32.max) {
            return try merged(HistoryIndex(parts: index.parts + [HistoryIndexBuilder.part(from: bytes, segment: true)]), added: added)
        }
        let written: HistoryIndex
        if appendable, let end = delta?.end {
            let entry = HistoryIndexDelta.encodeEntry(first: segment.firstSeq, last: segment.coveredSeq, bytes: bytes)
            try write(bytes, to: lock, at: end + HistoryIndexDelta.entryLength)
            try lock.syncData()
            try write(entry, to: lock, at: end)
            try lock.syncData()
            let part = HistoryIndexBuilder.part(
                from: bytes, segment: true, path: deltaPath, fileOffset: end + HistoryIndexDelta.entryLength)
            written = HistoryIndex(parts: index.parts + [part])
        } else {
            let part = HistoryIndexBuilder.part(from: bytes, segment: true)
            written = try writeDelta(logID: index.logID, base: index.parts[0], segments: index.parts.dropFirst() + [part], path: deltaPath)
        }
        return Update(index: written, previous: previous, added: added, change: .appendedSegment)
    }

    /// Writes `base`, the encoded base of a whole log's index (from its first
    /// seq, ``HistoryIndexBuilder/encoded()``), in place of the log's index,
    /// under the update lock, as a rebuild by
    /// ``update(logPath:rebuild:merge:progress:)`` would (``StagedIndexAndTree``).
    ///
    /// - Throws: ``EventLogError/Code/ioError`` when it cannot be written (what was there stays).
    static func writeBuilt(_ base: [UInt8], logID: LabelID, logPath: String) throws(EventLogError) -> HistoryIndex {
        let lock = try SystemFile.openLockedReplaceable(HistoryIndexDelta.path(for: logPath))
        defer { lock.close() }
        return try writeBase(base, logID: logID, logPath: logPath)
    }

    /// Writes `builder`'s base atomically and durably, then an empty delta
    /// file naming it (atomically too: a crash between the two leaves a delta
    /// file that names the old base, which is not used and is rewritten).
    private static func writeBase(_ builder: consuming HistoryIndexBuilder, logPath: String) throws(EventLogError) -> HistoryIndex {
        let logID = builder.logID
        return try writeBase((consume builder).encoded(), logID: logID, logPath: logPath)
    }

    /// Writes the encoded base `bytes` atomically and durably, then an empty delta file naming it.
    private static func writeBase(_ bytes: [UInt8], logID: LabelID, logPath: String) throws(EventLogError) -> HistoryIndex {
        let path = path(for: logPath)
        try SystemFile.writeAtomically(bytes, to: path)
        // Read back in place, as a loaded index file is (its lists checked as they are read), not copied beside the bytes.
        let written = try HistoryIndexBytes(mapping: path)
        let base: HistoryIndexPart
        do throws(Problem) {
            base = try HistoryIndexPart.decode(written, path: path, checkingWholeBody: false)
        } catch {
            throw EventLogError(.ioError, "the history index just written does not read back: \(error.reason)", path: path)
        }
        return try writeDelta(logID: logID, base: base, segments: [], path: HistoryIndexDelta.path(for: logPath))
    }

    /// Writes a new delta file after `base` holding `segments`, atomically and durably; returns the index they make.
    private static func writeDelta(logID: LabelID, base: HistoryIndexPart, segments: some Sequence<HistoryIndexPart>, path: String)
        throws(EventLogError) -> HistoryIndex
    {
        var file = HistoryIndexDelta.encodeHeader(logID: logID, base: base.covered)
        var places: [(start: Int, count: Int)] = []
        for segment in segments {
            let raw = segment.bytes.raw
            file += HistoryIndexDelta.encodeEntry(first: segment.firstSeq, last: segment.coveredSeq, bytes: Array(raw))
            places.append((file.count, raw.count))
            file.append(contentsOf: raw)
        }
        try SystemFile.writeAtomically(file, to: path)
        let whole = HistoryIndexBytes(copying: file)
        let parts = places.map { place in
            HistoryIndexBuilder.part(
                from: HistoryIndexBytes(slicing: whole, place.start..<place.start + place.count), segment: true, path: path,
                fileOffset: place.start)
        }
        return HistoryIndex(parts: [base] + parts)
    }

    private static func write(_ bytes: [UInt8], to file: SystemFile, at offset: Int) throws(EventLogError) {
        try bytes.withUnsafeBytes { raw in Result { () throws(EventLogError) in try file.write(raw, at: Int64(offset)) } }.get()
    }
}
