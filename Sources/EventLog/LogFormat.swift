/// The constants and the header of the log file format (docs/FORMAT.md).
public enum LogFormat {
    /// The eight bytes every log file starts with: `LABELLOG`.
    public static let magic: [UInt8] = Array("LABELLOG".utf8)
    /// The format version this code writes, and the newest it reads.
    public static let currentVersion: UInt16 = 1
    /// The size of the file header in bytes.
    public static let headerLength = 64
    /// The size of a record frame's header: payload length and checksum.
    public static let frameHeaderLength = 8
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
    /// The seq of the first record (always 1 in format version 1).
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
    public static func decode(_ bytes: [UInt8], fileSize: Int64, path: String) throws(EventLogError) -> LogHeader {
        if fileSize == 0 {
            throw EventLogError(.emptyFile, "the file is empty, not a label log (a log always starts with a \(LogFormat.headerLength)-byte header)", path: path, offset: 0)
        }
        guard bytes.count >= LogFormat.magic.count, Array(bytes[0..<LogFormat.magic.count]) == LogFormat.magic else {
            throw EventLogError(.notALog, "the file is not a label log (it does not start with the magic \"LABELLOG\")", path: path, offset: 0)
        }
        guard bytes.count >= LogFormat.headerLength else {
            throw EventLogError(.corruptHeader, "the header is cut short: \(bytes.count) of \(LogFormat.headerLength) bytes", path: path, offset: Int64(bytes.count))
        }
        return try bytes.withBytes { (raw) throws(EventLogError) -> LogHeader in
            var r = ByteReader(raw, position: 8)
            do {
                let version = try r.u16()
                let stored = UInt32(raw.loadUnaligned(fromByteOffset: 60, as: UInt32.self).littleEndian)
                let computed = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: raw[0..<60]))
                if version > LogFormat.currentVersion && stored == computed {
                    throw EventLogError(.unsupportedVersion, "the log has format version \(version); this build reads up to version \(LogFormat.currentVersion)", path: path, offset: 8)
                }
                guard stored == computed else {
                    throw EventLogError(.corruptHeader, "the header checksum does not match (stored 0x\(String(stored, radix: 16)), computed 0x\(String(computed, radix: 16)))", path: path, offset: 60)
                }
                guard version >= 1 else {
                    throw EventLogError(.corruptHeader, "format version 0 is not valid", path: path, offset: 8)
                }
                let flags = try r.u16()
                let length = try r.u32()
                guard flags == 0, length == UInt32(LogFormat.headerLength) else {
                    throw EventLogError(.corruptHeader, "unknown header flags 0x\(String(flags, radix: 16)) or header length \(length)", path: path, offset: 10)
                }
                let id = try r.id()
                let created = Int64(bitPattern: try r.u64())
                let firstSeq = try r.u64()
                guard firstSeq == 1 else {
                    throw EventLogError(.corruptHeader, "first seq is \(firstSeq); format version 1 requires 1", path: path, offset: 40)
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

/// Record framing: `[u32 payload length][u32 CRC-32C of length bytes + payload][payload]`.
enum Frame {
    /// The outcome of looking at the bytes at one offset.
    enum Check {
        /// A whole frame of `length` bytes whose checksum matches; its
        /// `payload` (not yet decoded) is in the buffer given to ``Frame/check(_:at:)``.
        case whole(payload: UnsafeRawBufferPointer, length: Int)
        /// The frame runs past the bytes available (a torn tail, or still being written).
        case incomplete(needed: Int)
        /// The length or checksum is wrong: damaged or never-finished bytes.
        case damaged(String)
    }

    /// Appends the frame of `record` to `out`. The record must be validated.
    static func encode(_ record: EventRecord, into out: inout ByteWriter) {
        let start = out.bytes.count
        out.u32(0)
        out.u32(0)
        record.encodePayload(into: &out)
        let length = out.bytes.count - start - LogFormat.frameHeaderLength
        out.bytes.withUnsafeMutableBytes { raw in seal(raw.baseAddress! + start, payloadLength: length) }
    }

    /// Fills in the length and checksum of the frame at `frame`, whose
    /// `payloadLength` payload bytes follow its 8-byte header.
    @inline(__always)
    static func seal(_ frame: UnsafeMutableRawPointer, payloadLength: Int) {
        frame.storeBytes(of: UInt32(payloadLength).littleEndian, as: UInt32.self)
        let crc = CRC32C.update(0, UnsafeRawBufferPointer(start: frame, count: 4),
                                UnsafeRawBufferPointer(start: frame + LogFormat.frameHeaderLength, count: payloadLength))
        frame.storeBytes(of: crc.littleEndian, toByteOffset: 4, as: UInt32.self)
    }

    /// Looks at the frame starting at `position` in `buffer`: its length and
    /// checksum. Decoding the payload is the caller's (``EventRecordView/parse(_:)``).
    @inline(__always)
    static func check(_ buffer: UnsafeRawBufferPointer, at position: Int) -> Check {
        let available = buffer.count - position
        guard available >= LogFormat.frameHeaderLength else {
            return .incomplete(needed: LogFormat.frameHeaderLength)
        }
        // Compared as UInt32 first: a damaged word need not fit a 32-bit Int.
        let word = buffer.loadUnaligned(fromByteOffset: position, as: UInt32.self).littleEndian
        guard word >= UInt32(LogFormat.minPayloadLength), word <= UInt32(LogFormat.maxPayloadCheck) else {
            return .damaged("impossible record length \(word) (valid: \(LogFormat.minPayloadLength)...\(LogFormat.maxPayloadCheck))")
        }
        let length = Int(word)
        let total = LogFormat.frameHeaderLength + length
        guard available >= total else { return .incomplete(needed: total) }
        let stored = buffer.loadUnaligned(fromByteOffset: position + 4, as: UInt32.self).littleEndian
        let payload = UnsafeRawBufferPointer(rebasing: buffer[(position + 8)..<(position + total)])
        let computed = CRC32C.update(0, UnsafeRawBufferPointer(rebasing: buffer[position..<position + 4]), payload)
        guard stored == computed else {
            return .damaged("record checksum mismatch (stored 0x\(String(stored, radix: 16)), computed 0x\(String(computed, radix: 16)))")
        }
        return .whole(payload: payload, length: total)
    }

    /// Whether a plausible, checksummed frame starts at `position` (content not decoded).
    static func looksValid(_ buffer: UnsafeRawBufferPointer, at position: Int) -> Bool {
        let available = buffer.count - position
        guard available >= LogFormat.frameHeaderLength + LogFormat.minPayloadLength else { return false }
        let word = buffer.loadUnaligned(fromByteOffset: position, as: UInt32.self).littleEndian
        guard word >= UInt32(LogFormat.minPayloadLength), word <= UInt32(LogFormat.maxPayloadCheck),
              LogFormat.frameHeaderLength + Int(word) <= available else { return false }
        let length = Int(word)
        // Before checksumming up to 64 MiB: does the payload start like a record
        // (seq ≥ 1, a timestamp, a known kind, known flags)? Random bytes rarely do,
        // so a scan for good frames past damage stays linear in practice.
        guard startsLikeAPayload(UnsafeRawBufferPointer(rebasing: buffer[(position + 8)..<(position + 8 + length)])) else { return false }
        let stored = buffer.loadUnaligned(fromByteOffset: position + 4, as: UInt32.self).littleEndian
        let lengthCRC = CRC32C.update(0, UnsafeRawBufferPointer(rebasing: buffer[position..<position + 4]))
        let computed = CRC32C.update(lengthCRC, UnsafeRawBufferPointer(rebasing: buffer[(position + 8)..<(position + 8 + length)]))
        return stored == computed
    }
}

extension Frame {
    /// Whether `payload` begins with a record's envelope: a varint seq of at
    /// least 1, a varint timestamp, a known kind code and known flag bits.
    static func startsLikeAPayload(_ payload: UnsafeRawBufferPointer) -> Bool {
        var i = 0
        func varint() -> UInt64? {
            var value: UInt64 = 0
            for shift in stride(from: UInt64(0), through: 63, by: 7) {
                guard i < payload.count else { return nil }
                let byte = payload[i]
                i += 1
                value |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return value }
            }
            return nil
        }
        guard let seq = varint(), seq >= 1, varint() != nil, i + 2 <= payload.count else { return false }
        return LabelEvent.Kind(code: payload[i]) != nil && payload[i + 1] & ~(EventRecord.actorFlag | EventRecord.noteFlag) == 0
    }
}

extension LogFormat {
    /// The largest payload length a frame may declare.
    static var maxPayloadCheck: Int { LogLimits.maxPayloadBytes }
}
