/// Writes an archive file from records held elsewhere (a server list's
/// rows, docs/POSTGRES.md, "Archiving a list"): a log of the history `logID`
/// whose frames hold the records' stored payloads in seq order, each
/// chained on the one before exactly as the history's own checksums are
/// (so its last frame's checksum is the chain value at the cut, and
/// `labelreplay verify` checks it alone as any log).
///
/// The file is written to a temporary name beside `path` and appears at
/// `path` only when ``finish()`` has synced it, by a link that never
/// replaces a file there; a crash before leaves no file at `path` (the
/// temporary is removed by the next write's sweep of stale temporaries,
/// `SystemFile.removeStaleTemporaries`). Not shared between threads.
package final class ArchiveFileWriter {
    /// Where the archive appears once finished.
    package let path: String
    private let temporary: String
    private let file: SystemFile
    private let format: FrameFormat
    private var offset: Int64
    private var buffer = ByteWriter(capacity: 1 << 20)
    /// The seq the next record must have.
    package private(set) var nextSeq: UInt64
    /// The chained checksum of the last frame written (the header's before the first).
    package private(set) var chainValue: UInt32
    private var done = false

    /// Starts the archive of the history `logID` at `path`: from seq 1
    /// (`base` `nil`), or after `base` (a based log, format version 3, whose
    /// first record continues `previousChecksum`).
    ///
    /// - Throws: ``EventLogError/Code/fileExists`` when a file is at `path`;
    ///   what creating and writing the temporary file throws.
    package init(path: String, logID: LabelID, createdAt: EventTimestamp, base: LogBase?, previousChecksum: UInt32) throws(EventLogError) {
        if SystemFile.exists(path) {
            throw EventLogError(.fileExists, "an archive is already there; choose another name or remove it", path: path)
        }
        let header =
            if let base {
                LogHeader(logID: logID, createdAt: createdAt, base: base, previousChecksum: previousChecksum)
            } else {
                LogHeader(logID: logID, createdAt: createdAt)
            }
        self.path = path
        self.temporary = SystemFile.temporaryPath(for: path)
        self.file = try SystemFile.open(temporary, .createExclusive)
        self.format = FrameFormat(header: header)
        self.nextSeq = header.firstSeq
        self.chainValue = header.previousChecksum
        let bytes = header.encoded()
        self.offset = Int64(bytes.count)
        do throws(EventLogError) {
            try bytes.withUnsafeBytes { raw in Result { () throws(EventLogError) in try file.write(raw, at: 0) } }.get()
        } catch {
            abandon()
            throw error
        }
    }

    /// Appends `record`'s frame (its stored payload). Records must come in
    /// seq order from the archive's first.
    ///
    /// - Throws: ``EventLogError/Code/seqGap`` for a record out of order;
    ///   ``EventLogError/Code/invalidEvent`` for one over a limit; what writing throws.
    package func append(_ record: EventRecord) throws(EventLogError) {
        guard record.seq == nextSeq else {
            throw EventLogError(.seqGap, "the archive expected seq \(nextSeq), not seq \(record.seq)", path: path)
        }
        _ = try record.validatedPayloadLength(allowingNUL: true)
        chainValue = Frame.encode(record, into: &buffer, format: format, previous: chainValue)
        nextSeq += 1
        if buffer.bytes.count >= 1 << 20 { try flush() }
    }

    /// Syncs the archive and links it to ``path``; returns the chain value of its last record.
    ///
    /// - Throws: ``EventLogError/Code/fileExists`` when a file appeared at
    ///   `path` meanwhile (nothing is replaced); what writing and syncing throw.
    @discardableResult
    package func finish() throws(EventLogError) -> UInt32 {
        do throws(EventLogError) {
            try flush()
            try file.syncAll()
            file.close()
            done = true
            try SystemFile.link(temporary, to: path)
            SystemFile.unlink(temporary)
            try SystemFile.syncDirectory(containing: path)
            return chainValue
        } catch {
            abandon()
            throw error
        }
    }

    /// Removes what was written (nothing appears at ``path``).
    package func abandon() {
        if !done { file.close() }
        done = true
        SystemFile.unlink(temporary)
    }

    private func flush() throws(EventLogError) {
        guard !buffer.bytes.isEmpty else { return }
        let at = offset
        try buffer.bytes.withUnsafeBytes { raw in Result { () throws(EventLogError) in try file.write(raw, at: at) } }.get()
        offset += Int64(buffer.bytes.count)
        buffer.bytes.removeAll(keepingCapacity: true)
    }
}
