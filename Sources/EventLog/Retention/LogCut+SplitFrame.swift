import Foundation

/// A cut inside a batch frame (format version 4): the frame holds records on
/// both sides of the cut, so it is split — its records through the cut end
/// the archive as frames of their own, the rest start the log — and every
/// frame kept after it is chained again (the same bytes but for the
/// `previous` field and the checksum), since the frame it followed is gone
/// (docs/FORMAT.md, "Batch frames (version 4)", "Cuts").
extension LogCut {
    /// The frame a cut falls inside, and what replaces it on each side.
    package struct SplitFrame: Sendable, Hashable {
        /// Where the frame starts in the log, and its length.
        package var offset: Int64
        /// The frame's length, header included.
        package var length: Int64
        /// The frames of its records through the cut, chained on the frame
        /// before it: the archive's last frames.
        package var cutFrames: [UInt8]
        /// The frames of its records after the cut, chained on
        /// ``cutFrames``' last: the log's first frames.
        package var keptFrames: [UInt8]
        /// The checksum of ``keptFrames``' last frame: the `previous` of
        /// the first frame kept after the split one.
        package var keptChainValue: UInt32
        /// The end of the log's records (the frames after the split one run to it).
        package var recordsEnd: Int64

        /// The chained checksum of the last record cut: ``cutFrames``' last frame's.
        package var cutChainValue: UInt32
    }

    /// The split of the frame at `position` (which holds seq `lastCutSeq`
    /// and the seq after it) of the log `file` in `format`, whose records end
    /// at `recordsEnd`.
    ///
    /// - Throws: ``EventLogError/Code/corruptRecord`` when the frame there is
    ///   not the whole, checksummed batch frame a read found; ``EventLogError/Code/invalidEvent``
    ///   for a record the encoder refuses (a string with U+0000, which only an
    ///   old record can hold): nothing is changed.
    static func split(
        frameAt position: LogPosition, through lastCutSeq: UInt64, of file: any LogFile, format: FrameFormat, recordsEnd: Int64,
        path: String
    ) throws(EventLogError) -> SplitFrame {
        let bytes = try file.read(at: position.offset, count: Int(position.length))
        let (records, previous) = try bytes.withBytes { (raw) throws(EventLogError) -> ([EventRecord], UInt32) in
            guard case .whole(let frame) = Frame.check(raw, at: 0, format: format), frame.isBatch, frame.length == raw.count else {
                throw EventLogError(
                    .corruptRecord, "the batch frame the cut falls inside changed while it was cut", path: path, offset: position.offset)
            }
            let decoded = try BatchFrameRecords(body: frame.payload)
            return ((0..<decoded.count).map { decoded.view($0).record }, frame.previous)
        }
        let cut = records.filter { $0.seq <= lastCutSeq }
        let kept = records.filter { $0.seq > lastCutSeq }
        guard !cut.isEmpty && !kept.isEmpty else {
            // The plan found records on both sides in this frame; a file that changed since (the dry run holds no lock) may not.
            throw EventLogError(
                .corruptRecord, "the batch frame the cut falls inside changed while it was cut", path: path, offset: position.offset)
        }
        let cutFrames = try FrameBatch(records: cut, format: format, previous: previous, firstContinues: false)
        let keptFrames = try FrameBatch(records: kept, format: format, previous: cutFrames.lastChecksum, firstContinues: false)
        return SplitFrame(
            offset: position.offset, length: position.length, cutFrames: Array(cutFrames.bytes), keptFrames: Array(keptFrames.bytes),
            keptChainValue: keptFrames.lastChecksum, recordsEnd: recordsEnd, cutChainValue: cutFrames.lastChecksum)
    }

    /// Appends the frames in bytes `range` of `source` to `copy` chained
    /// again from `previous`: each frame's bytes as they are but for its
    /// `previous` field and its checksum, sealed anew in `format` (the
    /// frames were read and checked by the cut's plan). Returns the last
    /// frame's new checksum.
    ///
    /// - Throws: ``EventLogError/Code/corruptRecord`` when the range does not
    ///   hold whole frames; what reading and writing throw.
    static func appendRechained(
        from source: any LogFile, range: Range<Int64>, previous: UInt32, format: FrameFormat, to copy: inout TemporaryCopy,
        name path: String
    ) throws(EventLogError) -> UInt32 {
        var chain = previous
        var offset = range.lowerBound
        var pending: [UInt8] = []
        while offset < range.upperBound {
            let chunk = try source.read(at: offset, count: Int(min(4 << 20, range.upperBound - offset)))
            guard !chunk.isEmpty else {
                throw EventLogError(.corruptRecord, "the log ended at byte \(offset) while it was copied to \(path)", path: path)
            }
            offset += Int64(chunk.count)
            pending.append(contentsOf: chunk)
            let done = try pending.withUnsafeMutableBytes { raw in
                Result { () throws(EventLogError) -> Int in
                    var at = 0
                    while raw.count - at >= format.headerLength {
                        let word = raw.loadUnaligned(fromByteOffset: at, as: UInt32.self).littleEndian
                        guard let length = Frame.payloadLength(word: word, format: format) else {
                            throw EventLogError(
                                .corruptRecord, "no frame where one should start while the log was copied", path: path,
                                offset: offset - Int64(raw.count - at))
                        }
                        guard raw.count - at >= format.headerLength + length else { break }
                        chain = Frame.seal(
                            raw.baseAddress! + at, payloadLength: length, format: format, previous: chain,
                            continues: word & FrameFormat.continuationFlag != 0, batch: word & FrameFormat.batchFlag != 0)
                        at += format.headerLength + length
                    }
                    return at
                }
            }.get()
            try pending.withUnsafeBytes { raw in
                Result { () throws(EventLogError) in try copy.file.write(UnsafeRawBufferPointer(rebasing: raw[0..<done]), at: copy.length) }
            }.get()
            copy.length += Int64(done)
            pending.removeFirst(done)
        }
        guard pending.isEmpty else {
            throw EventLogError(.corruptRecord, "the log's last frame was incomplete while it was copied", path: path, offset: offset)
        }
        return chain
    }
}

extension LogCut {
    /// Writes the log after a cut that splits a frame to a temporary file
    /// beside `path` — `header`, the split frame's kept records as frames of
    /// their own, then the frames after it chained again — syncs it, renames
    /// it over `path` and syncs the directory. Nothing changes at `path`
    /// before the rename.
    static func copySplit(
        _ split: SplitFrame, of old: any LogFile, header: LogHeader, to path: String, fileSystem: any LogFileSystem
    ) throws(EventLogError) {
        let headerBytes = header.encoded()
        var copy = try writeTemporary(
            from: old, range: 0..<0, header: headerBytes, then: split.keptFrames, beside: path, fileSystem: fileSystem)
        do throws(EventLogError) {
            _ = try appendRechained(
                from: old, range: (split.offset + split.length)..<split.recordsEnd, previous: split.keptChainValue,
                format: FrameFormat(header: header), to: &copy, name: path)
            try copy.file.syncAll()
        } catch {
            discard(copy, fileSystem: fileSystem)
            throw error
        }
        copy.file.close()
        try publish(copy.path, to: path, replacing: true, fileSystem: fileSystem)
        try fileSystem.syncDirectory(containing: path)
    }
}

extension LogCut {
    /// The last seq at or before `seq` that ends a frame of the log at
    /// `logPath`: `seq`, unless a batch frame holds it and the seq after it,
    /// then the seq before that frame's first (the log's first seq − 1 when
    /// that is the log's first frame). A cut of an open log goes between
    /// frames (``LogWriter/cutHistory(through:archiveTo:now:visitingCut:image:)``):
    /// a policy that may cut anywhere cuts here.
    ///
    /// - Throws: What reading the log throws.
    /// - Complexity: O(records through `seq` + 1): they are read.
    package static func lastFrameEnd(atOrBefore seq: UInt64, logPath: String) throws(EventLogError) -> UInt64 {
        let reader = try LogReader(path: logPath)
        var frame: (offset: Int64, firstSeq: UInt64)?
        var offsetOfSeq: Int64?
        while let (view, position) = try reader.nextPositionedView() {
            if position.offset != frame?.offset { frame = (position.offset, view.seq) }
            if view.seq == seq { offsetOfSeq = position.offset }
            if view.seq > seq {
                guard let offsetOfSeq, let frame, offsetOfSeq == position.offset else { return seq }
                return frame.firstSeq - 1
            }
        }
        return seq
    }
}
