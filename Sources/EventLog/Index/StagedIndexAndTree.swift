/// A new log's history index (`LOG.index`) and tree cache (`LOG.tree`),
/// built from the records of the staged append that writes it, as they are
/// written (an import), instead of by reading the whole log again after.
///
/// Each record the caller reads from the staged frames (``StagedFrameReader``)
/// is added with its position (``add(_:at:)``): to the index being built, and
/// its leaf hash to a temporary tree file beside the log (leaves are written
/// a few megabytes at a time). Once every record is added, ``prepare()``
/// encodes the index and ends the tree file; once they are committed,
/// ``finish()`` puts the tree file in place and writes the index as a
/// rebuild would (atomically, under its update lock); ``abandon()`` removes
/// the temporary. The files are those `HistoryIndexFile.update` and
/// ``HistoryTreeFile/update(logPath:progress:)`` would write from seq 1.
///
/// Thread safety: none; one thread adds records and finishes.
package final class StagedIndexAndTree {
    private let logPath: String
    private let logID: LabelID
    private var index: HistoryIndexBuilder
    private let treeFile: SystemFile
    private let treeTemporary: String
    private var tree: HistoryTreeFile.ChunkWriter
    private var last: LogPosition?
    private var settled = false
    private var prepared = false
    /// The index's encoded base, once prepared.
    private var indexBytes: [UInt8] = []
    /// What finishing the tree file threw, if it did.
    private var treeFailure: EventLogError?

    /// Starts building the caches of the log at `logPath`, which `header`
    /// heads and which holds no record yet (not a based log).
    ///
    /// - Throws: ``EventLogError`` when the temporary tree file cannot be created.
    package init(header: LogHeader, logPath: String) throws(EventLogError) {
        precondition(header.firstSeq == 1, "the caches of a based log are built from its base")
        self.logPath = logPath
        logID = header.logID
        index = HistoryIndexBuilder(logID: header.logID)
        let path = HistoryTreeFile.path(for: logPath)
        SystemFile.removeStaleTemporaries(of: path)
        treeTemporary = SystemFile.temporaryPath(for: path)
        treeFile = try SystemFile.open(treeTemporary, .createExclusive)
        // 128 chunks (512 KiB of leaves) at a time: the import holds its own buffers meanwhile.
        tree = HistoryTreeFile.ChunkWriter(file: treeFile, batchChunks: 128)
    }

    /// Adds the next record, whose frame is at `position`; returns its leaf hash.
    ///
    /// - Throws: ``EventLogError/Code/ioError`` when the tree file cannot be written.
    @discardableResult
    package func add(_ view: EventRecordView, at position: LogPosition) throws(EventLogError) -> HistoryHash {
        let leaf = HistoryHash.leaf(payload: view.payload)
        try tree.append(leaf)
        index.add(view, at: position)
        last = position
        return leaf
    }

    /// Ends the adding: encodes the index and writes the tree file's last
    /// chunks and header (still the temporary). It may run before the
    /// records are committed, so that ``finish()`` after the commit only
    /// puts the files in place. Throws what writing the tree file threw
    /// (and so does every later call, and ``finish()``).
    package func prepare() throws(EventLogError) {
        guard !prepared else {
            if let treeFailure { throw treeFailure }
            return
        }
        prepared = true
        indexBytes = index.encoded()
        index = HistoryIndexBuilder(logID: logID)  // its memory freed
        let finished = Result { () throws(EventLogError) in try tree.finish(logID: logID, based: false, covered: last) }
        treeFile.close()
        if case .failure(let error) = finished {
            treeFailure = error
            throw error
        }
    }

    /// Puts the tree file in place and writes the index (``prepare()``
    /// first, if it was not called); call it once the records added are
    /// committed, and all of them were added.
    ///
    /// - Throws: ``EventLogError/Code/ioError`` when a file cannot be written;
    ///   the temporary is removed, and the log's caches are as they were or
    ///   (the tree written, the index not) usable as far as they go.
    package func finish() throws(EventLogError) {
        precondition(!settled, "staged caches are finished or abandoned once")
        settled = true
        do throws(EventLogError) {
            try prepare()
            try SystemFile.rename(treeTemporary, to: HistoryTreeFile.path(for: logPath))
        } catch {
            SystemFile.unlink(treeTemporary)
            throw treeFailure ?? error
        }
        let bytes = indexBytes
        indexBytes = []
        _ = try HistoryIndexFile.writeBuilt(bytes, logID: logID, logPath: logPath)
    }

    /// Removes the temporary tree file; nothing is written. Does nothing after ``finish()``.
    package func abandon() {
        guard !settled else { return }
        settled = true
        if !prepared { treeFile.close() }
        SystemFile.unlink(treeTemporary)
    }
}
