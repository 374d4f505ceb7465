import Foundation

/// The byte layout of a history index file (docs/INDEX.md): a 72-byte header
/// naming the log and the last record covered, then a checksummed body of
/// blocks, labels, actors and reorders, seqs as ascending deltas.
extension HistoryIndex {
    static let magic = Array("LABELIDX".utf8)
    static let formatVersion: UInt16 = 1
    static let headerLength = 72
    /// Header flag bit 0: the index covers at least one record (`covered` is set).
    static let coversRecords: UInt16 = 1

    /// The file's bytes.
    func encoded() -> [UInt8] {
        var body = ByteWriter(capacity: 1 << 16)
        body.varint(UInt64(blocks.count))
        var lastOffset: Int64 = 0
        for block in blocks {
            body.varint(UInt64(block.offset - lastOffset))
            lastOffset = block.offset
            body.u32(block.previousChecksum)
            body.zigzag(block.minTime)
            body.zigzag(block.maxTime &- block.minTime)
        }
        body.varint(UInt64(labels.count))
        for id in labels.keys.sorted() {
            body.id(id)
            Self.writeSeqs(labels[id]!, into: &body)
        }
        // No actor first, then by name: the same index always has the same bytes.
        let actorKeys = actors.keys.sorted { a, b in
            switch (a, b) {
            case (nil, _): b != nil
            case (_, nil): false
            case (let a?, let b?): a < b
            }
        }
        body.varint(UInt64(actorKeys.count))
        for actor in actorKeys {
            if let actor {
                body.u8(1)
                body.string(actor)
            } else {
                body.u8(0)
            }
            Self.writeSeqs(actors[actor]!, into: &body)
        }
        Self.writeSeqs(reorders, into: &body)

        var out = ByteWriter(capacity: Self.headerLength + body.bytes.count)
        out.bytes.append(contentsOf: Self.magic)
        out.u16(Self.formatVersion)
        out.u16(covered == nil ? 0 : Self.coversRecords)
        out.u32(UInt32(Self.headerLength))
        out.id(logID)
        out.u64(covered?.seq ?? 0)
        out.u64(UInt64(covered?.offset ?? 0))
        out.u32(UInt32(covered?.length ?? 0))
        out.u32(covered?.checksum ?? 0)
        out.u64(UInt64(body.bytes.count))
        out.u32(body.bytes.withUnsafeBytes { CRC32C.checksum($0) })
        out.u32(0)
        out.bytes.append(contentsOf: body.bytes)
        return out.bytes
    }

    private static func writeSeqs(_ seqs: [UInt64], into writer: inout ByteWriter) {
        writer.varint(UInt64(seqs.count))
        var last: UInt64 = 0
        for seq in seqs {
            writer.varint(seq - last)
            last = seq
        }
    }

    /// Decodes a history index file's bytes; `path` names the file in errors.
    ///
    /// - Throws: ``HistoryIndexFile/Problem`` saying what is wrong and at which byte offset.
    static func decode(_ raw: UnsafeRawBufferPointer, path: String) throws(HistoryIndexFile.Problem) -> HistoryIndex {
        func problem(_ reason: String, at offset: Int?) -> HistoryIndexFile.Problem {
            HistoryIndexFile.Problem(path: path, reason: reason, offset: offset)
        }
        guard raw.count >= headerLength else { throw problem("shorter than the \(headerLength)-byte header (\(raw.count) bytes)", at: 0) }
        guard Array(raw[0..<8]) == magic else { throw problem("not a history index (no LABELIDX magic)", at: 0) }
        var header = ByteReader(raw, position: 8)
        do throws(DecodeFailure) {
            let version = try header.u16()
            guard version == formatVersion else {
                throw DecodeFailure("format version \(version) is not one this build reads (\(formatVersion))", at: 8)
            }
            let flags = try header.u16()
            guard flags & ~coversRecords == 0 else { throw DecodeFailure("unknown flags \(flags)", at: 10) }
            guard try header.u32() == UInt32(headerLength) else { throw DecodeFailure("header length is not \(headerLength)", at: 12) }
            var index = HistoryIndex(logID: try header.id())
            let seq = try header.u64()
            let offset = try header.u64()
            let length = try header.u32()
            let checksum = try header.u32()
            let bodyLength = try header.u64()
            let bodyChecksum = try header.u32()
            _ = try header.u32()
            guard bodyLength == UInt64(raw.count - headerLength) else {
                throw DecodeFailure("the body is \(raw.count - headerLength) bytes, the header says \(bodyLength)", at: 56)
            }
            let body = UnsafeRawBufferPointer(rebasing: raw[headerLength...])
            guard CRC32C.checksum(body) == bodyChecksum else { throw DecodeFailure("the body's checksum does not match", at: headerLength) }
            if flags & coversRecords != 0 {
                guard seq >= 1, offset <= UInt64(Int64.max) else { throw DecodeFailure("covered seq \(seq) at offset \(offset)", at: 32) }
                index.covered = LogPosition(seq: seq, offset: Int64(offset), length: Int64(length), checksum: checksum)
            }
            var reader = ByteReader(raw, position: headerLength)
            try index.decodeBody(&reader)
            guard reader.isAtEnd else { throw DecodeFailure("\(reader.remaining) bytes after the body", at: reader.position) }
            return index
        } catch {
            throw problem(error.reason, at: error.offset)
        }
    }

    /// Reads the body and checks it against ``covered``: the blocks and every
    /// seq list fit the covered seqs, seqs strictly ascend.
    private mutating func decodeBody(_ reader: inout ByteReader) throws(DecodeFailure) {
        let last = coveredSeq
        let blockCount = try reader.varint()
        guard blockCount == (last + Self.blockSize - 1) / Self.blockSize else {
            throw DecodeFailure("\(blockCount) blocks for \(last) covered records", at: reader.position)
        }
        var offset: Int64 = 0
        for _ in 0..<blockCount {
            let delta = try reader.varint()
            guard delta <= UInt64(Int64.max - offset) else { throw DecodeFailure("a block offset overflows", at: reader.position) }
            offset += Int64(delta)
            let previous = try reader.u32()
            let minTime = try reader.zigzag()
            let span = try reader.zigzag()
            guard span >= 0 else { throw DecodeFailure("a block's time range is negative", at: reader.position) }
            blocks.append(Block(offset: offset, previousChecksum: previous, minTime: minTime, maxTime: minTime &+ span))
        }
        let labelCount = try reader.varint()
        guard labelCount <= last else { throw DecodeFailure("\(labelCount) labels for \(last) records", at: reader.position) }
        for _ in 0..<labelCount {
            let id = try reader.id()
            labels[id] = try Self.readSeqs(&reader, through: last)
        }
        let actorCount = try reader.varint()
        guard actorCount <= last else { throw DecodeFailure("\(actorCount) actors for \(last) records", at: reader.position) }
        for _ in 0..<actorCount {
            let actor: String?
            switch try reader.u8() {
            case 0: actor = nil
            case 1: actor = try reader.text(maxBytes: LogLimits.maxActorBytes, what: "actor").string
            default: throw DecodeFailure("an actor entry's tag is neither 0 nor 1", at: reader.position - 1)
            }
            actors[actor] = try Self.readSeqs(&reader, through: last)
        }
        reorders = try Self.readSeqs(&reader, through: last)
    }

    private static func readSeqs(_ reader: inout ByteReader, through last: UInt64) throws(DecodeFailure) -> [UInt64] {
        let count = try reader.varint()
        guard count <= last else { throw DecodeFailure("\(count) seqs for \(last) records", at: reader.position) }
        var seqs: [UInt64] = []
        seqs.reserveCapacity(Int(count))
        var seq: UInt64 = 0
        for _ in 0..<count {
            let delta = try reader.varint()
            guard delta >= 1, delta <= last - seq else { throw DecodeFailure("a seq is out of order or past \(last)", at: reader.position) }
            seq += delta
            seqs.append(seq)
        }
        return seqs
    }
}
