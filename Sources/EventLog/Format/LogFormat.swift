/// The constants and the header of the log file format (docs/FORMAT.md).
public enum LogFormat {
    /// The eight bytes every log file starts with: `LABELLOG`.
    public static let magic: [UInt8] = Array("LABELLOG".utf8)
    /// The format version this code writes for new logs. Version 1 logs are
    /// still read and appended to (in version 1 frames).
    public static let currentVersion: UInt16 = 2
    /// The format version of a *based* log, whose first seq is above 1 (its
    /// earlier records were archived or dropped): version 2 frames after a
    /// header with a base block (docs/FORMAT.md, "Based logs").
    public static let basedVersion: UInt16 = 3
    /// The format version whose appends of several records are written as
    /// *batch frames*, one frame holding the records of an append coded
    /// against each other (docs/FORMAT.md, "Batch frames (version 4)"); an
    /// append of one record is a version 2 frame. A version 4 log starts at
    /// seq 1, or after a base block as a version 3 log does. The newest
    /// version this build reads; new logs are still written in version 2
    /// unless their creation header asks for it.
    public static let batchVersion: UInt16 = 4
    /// The newest format version this build reads.
    public static let newestReadableVersion: UInt16 = batchVersion
    /// The size of the fixed file header in bytes (a based log's base block follows it).
    public static let headerLength = 64
    /// The size of a record frame's header in the current version: length
    /// word, checksum and the previous frame's checksum (12 bytes; 8 in version 1).
    public static let frameHeaderLength = 12

    /// The fewest bytes one record takes in a log of format `version`: a
    /// frame of its own, header and smallest payload, in versions 1–3 (more
    /// than 12); in version 4 a record of a batch frame takes as few as 3
    /// (its kind byte, its time delta and one byte of fields). A log of `n`
    /// bytes holds fewer than `n` divided by this records.
    public static func smallestRecordBytes(version: UInt16) -> Int { version >= batchVersion ? 3 : 16 }

    /// The size of a record frame's header in format `version`.
    public static func frameHeaderLength(version: UInt16) -> Int { version >= 2 ? 12 : 8 }
    /// The smallest valid payload: seq, time, kind and flags, one byte each.
    public static let minPayloadLength = 4
}

/// The 64-byte file header: identity and version of a log.
public struct LogHeader: Sendable, Hashable {
    /// The format version the file was written with.
    public var version: UInt16
    /// A random id given to the log when it was created.
    public var logID: LabelID
    /// When the log was created.
    public var createdAt: EventTimestamp
    /// The seq of the first record (1, except in a based log: format version 3).
    public var firstSeq: UInt64
    /// The chained checksum of the record before the first (0 when the first is seq 1): a based log's first frame continues it.
    public var previousChecksum: UInt32
    /// What a based log says about the records before its first (`nil` when it starts at seq 1).
    public var base: LogBase?

    /// Creates a header for a new log.
    public init(version: UInt16 = LogFormat.currentVersion, logID: LabelID = LabelID(), createdAt: EventTimestamp, firstSeq: UInt64 = 1) {
        self.version = version
        self.logID = logID
        self.createdAt = createdAt
        self.firstSeq = firstSeq
        self.previousChecksum = 0
        self.base = nil
    }

    /// Creates the header of a based log (format version 3) whose first
    /// record follows the last one `base` cut, whose chained checksum is
    /// `previousChecksum`.
    public init(logID: LabelID, createdAt: EventTimestamp, base: LogBase, previousChecksum: UInt32) {
        self.version = LogFormat.basedVersion
        self.logID = logID
        self.createdAt = createdAt
        self.firstSeq = base.lastCutSeq + 1
        self.previousChecksum = previousChecksum
        self.base = base
    }

    /// The header's bytes, checksum included: 64, and a based log's base block after them.
    public func encoded() -> [UInt8] {
        let block = base?.encoded() ?? []
        var w = ByteWriter(capacity: LogFormat.headerLength + block.count)
        w.bytes.append(contentsOf: LogFormat.magic)
        w.u16(version)
        w.u16(0)  // flags
        w.u32(UInt32(LogFormat.headerLength + block.count))
        w.id(logID)
        w.u64(UInt64(bitPattern: createdAt.millisecondsSince1970))
        w.u64(firstSeq)
        w.u32(previousChecksum)
        w.bytes.append(contentsOf: repeatElement(0, count: 8))
        w.u32(CRC32C.checksum(w.bytes))
        w.bytes.append(contentsOf: block)
        return w.bytes
    }

    /// Whether the log starts after a base block: format version 3, or a
    /// version 4 log whose first seq is above 1.
    public var isBased: Bool { version == LogFormat.basedVersion || (version >= LogFormat.batchVersion && firstSeq > 1) }

    /// The header's length in bytes: where the first record's frame starts.
    public var length: Int { LogFormat.headerLength + (base?.encodedLength ?? 0) }

    /// Reads and checks the header of the open log `file` (its fixed 64
    /// bytes, then a based log's base block). Errors as ``decode(_:fileSize:path:)``.
    package static func read(from file: any LogFile, path: String) throws(EventLogError) -> LogHeader {
        let size = try file.size()
        var header = try decode(try file.read(at: 0, count: LogFormat.headerLength), fileSize: size, path: path)
        guard header.isBased else { return header }
        let fixed = try file.read(at: 12, count: 4)
        let length = Int(UInt32(fixed[0]) | UInt32(fixed[1]) << 8 | UInt32(fixed[2]) << 16 | UInt32(fixed[3]) << 24)
        guard Int64(length) <= size else {
            throw EventLogError(
                .corruptHeader, "the base block is cut short: the header is \(length) bytes, the file \(size)", path: path, offset: size)
        }
        let block = try file.read(at: Int64(LogFormat.headerLength), count: length - LogFormat.headerLength)
        do throws(DecodeFailure) {
            header.base = try LogBase.decode(block, firstSeq: header.firstSeq)
        } catch {
            throw EventLogError(
                .corruptHeader, "the base block: \(error.reason)", path: path,
                offset: Int64(LogFormat.headerLength + (error.offset ?? 0)))
        }
        return header
    }

    /// Parses and checks a header. `fileSize` distinguishes an empty file
    /// from a short or foreign one. Errors name the path.
    ///
    /// - Throws: ``EventLogError``: ``EventLogError/Code/emptyFile`` when `fileSize` is 0;
    ///   ``EventLogError/Code/notALog`` when `bytes` do not start with ``LogFormat/magic``;
    ///   ``EventLogError/Code/unsupportedVersion`` for a header whose checksum matches but
    ///   whose version is newer than ``LogFormat/currentVersion``;
    ///   ``EventLogError/Code/corruptHeader`` for fewer than 64 bytes, a checksum mismatch,
    ///   or impossible fields (version 0, unknown flags, another header length, a first
    ///   seq other than 1 in versions 1 and 2, or of 1 in version 3). A version 3 header's
    ///   base block is read when the log is opened (`LogHeader.read(from:path:)`, package); this leaves ``base`` `nil`.
    public static func decode(_ bytes: [UInt8], fileSize: Int64, path: String) throws(EventLogError) -> LogHeader {
        if fileSize == 0 {
            throw EventLogError(
                .emptyFile, "the file is empty, not a label log (a log always starts with a \(LogFormat.headerLength)-byte header)",
                path: path, offset: 0)
        }
        guard bytes.count >= LogFormat.magic.count, Array(bytes[0..<LogFormat.magic.count]) == LogFormat.magic else {
            throw EventLogError(
                .notALog, "the file is not a label log (it does not start with the magic \"LABELLOG\")", path: path, offset: 0)
        }
        guard bytes.count >= LogFormat.headerLength else {
            throw EventLogError(
                .corruptHeader, "the header is cut short: \(bytes.count) of \(LogFormat.headerLength) bytes", path: path,
                offset: Int64(bytes.count))
        }
        return try bytes.withBytes { (raw) throws(EventLogError) -> LogHeader in
            var r = ByteReader(raw, position: 8)
            do {
                let version = try r.u16()
                let stored = UInt32(raw.loadUnaligned(fromByteOffset: 60, as: UInt32.self).littleEndian)
                let computed = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: raw[0..<60]))
                if version > LogFormat.newestReadableVersion && stored == computed {
                    throw EventLogError(
                        .unsupportedVersion,
                        "the log has format version \(version); this build reads up to version \(LogFormat.newestReadableVersion)",
                        path: path, offset: 8)
                }
                guard stored == computed else {
                    throw EventLogError(
                        .corruptHeader,
                        "the header checksum does not match (stored 0x\(String(stored, radix: 16)), computed 0x\(String(computed, radix: 16)))",
                        path: path, offset: 60)
                }
                guard version >= 1 else {
                    throw EventLogError(.corruptHeader, "format version 0 is not valid", path: path, offset: 8)
                }
                let flags = try r.u16()
                let length = try r.u32()
                // Version 3 is always based; version 4 is when its header is longer than 64 bytes.
                let based =
                    version == LogFormat.basedVersion || (version >= LogFormat.batchVersion && length != UInt32(LogFormat.headerLength))
                let lengthOK =
                    based
                    ? length > UInt32(LogFormat.headerLength) && length - UInt32(LogFormat.headerLength) <= UInt32(LogBase.maxLength)
                    : length == UInt32(LogFormat.headerLength)
                guard flags == 0, lengthOK else {
                    throw EventLogError(
                        .corruptHeader, "unknown header flags 0x\(String(flags, radix: 16)) or header length \(length)", path: path,
                        offset: 10)
                }
                let id = try r.id()
                let created = Int64(bitPattern: try r.u64())
                let firstSeq = try r.u64()
                let previous = try r.u32()
                guard based ? firstSeq > 1 : firstSeq == 1 else {
                    throw EventLogError(
                        .corruptHeader, "first seq is \(firstSeq); format version \(version) requires \(based ? "more than 1" : "1")",
                        path: path, offset: 40)
                }
                guard based || previous == 0, try r.u64() == 0 else {
                    throw EventLogError(.corruptHeader, "reserved header bytes are not zero", path: path, offset: 48)
                }
                var header = LogHeader(
                    version: version, logID: id, createdAt: EventTimestamp(millisecondsSince1970: created), firstSeq: firstSeq)
                header.previousChecksum = previous
                return header
            } catch let failure as DecodeFailure {
                throw EventLogError(.corruptHeader, failure.reason, path: path)
            } catch let error as EventLogError {
                throw error
            } catch {
                throw EventLogError(.corruptHeader, "\(error)", path: path)
            }
        }
    }
}
