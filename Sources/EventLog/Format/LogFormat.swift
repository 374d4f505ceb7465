/// The constants and the header of the log file format (docs/FORMAT.md).
public enum LogFormat {
    /// The eight bytes every log file starts with: `LABELLOG`.
    public static let magic: [UInt8] = Array("LABELLOG".utf8)
    /// The format version this code writes for new logs, and the newest it
    /// reads. Version 1 logs are still read and appended to (in version 1 frames).
    public static let currentVersion: UInt16 = 2
    /// The size of the file header in bytes.
    public static let headerLength = 64
    /// The size of a record frame's header in the current version: length
    /// word, checksum and the previous frame's checksum (12 bytes; 8 in version 1).
    public static let frameHeaderLength = 12

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
    /// The seq of the first record (always 1 in format versions 1 and 2).
    public var firstSeq: UInt64

    /// Creates a header for a new log.
    public init(version: UInt16 = LogFormat.currentVersion, logID: LabelID = LabelID(), createdAt: EventTimestamp, firstSeq: UInt64 = 1) {
        self.version = version
        self.logID = logID
        self.createdAt = createdAt
        self.firstSeq = firstSeq
    }

    /// The 64 header bytes, checksum included.
    public func encoded() -> [UInt8] {
        var w = ByteWriter(capacity: LogFormat.headerLength)
        w.bytes.append(contentsOf: LogFormat.magic)
        w.u16(version)
        w.u16(0)  // flags
        w.u32(UInt32(LogFormat.headerLength))
        w.id(logID)
        w.u64(UInt64(bitPattern: createdAt.millisecondsSince1970))
        w.u64(firstSeq)
        w.bytes.append(contentsOf: repeatElement(0, count: 12))
        w.u32(CRC32C.checksum(w.bytes))
        return w.bytes
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
    ///   seq other than 1).
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
                if version > LogFormat.currentVersion && stored == computed {
                    throw EventLogError(
                        .unsupportedVersion,
                        "the log has format version \(version); this build reads up to version \(LogFormat.currentVersion)", path: path,
                        offset: 8)
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
                guard flags == 0, length == UInt32(LogFormat.headerLength) else {
                    throw EventLogError(
                        .corruptHeader, "unknown header flags 0x\(String(flags, radix: 16)) or header length \(length)", path: path,
                        offset: 10)
                }
                let id = try r.id()
                let created = Int64(bitPattern: try r.u64())
                let firstSeq = try r.u64()
                guard firstSeq == 1 else {
                    throw EventLogError(
                        .corruptHeader, "first seq is \(firstSeq); format version \(version) requires 1", path: path, offset: 40)
                }
                return LogHeader(version: version, logID: id, createdAt: EventTimestamp(millisecondsSince1970: created), firstSeq: firstSeq)
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
