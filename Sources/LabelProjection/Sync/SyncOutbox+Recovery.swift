import EventLog
import Foundation

/// Reading an outbox file at open: its header, then every entry, folding
/// them into the pending commands; a torn last entry is cut.
extension SyncOutbox {
    /// Reads `file` (locked): returns where its entries end, the pending
    /// commands, the attempt noted for them, and the bytes of a torn last
    /// entry it cut (synced); `repairing: false` reads only (a file another
    /// process may be writing: nothing is written, a torn or unfinished last
    /// entry is left out).
    static func recover(_ file: any LogFile, path: String, repairing: Bool = true) throws(EventLogError)
        -> (end: Int64, pending: [SyncCommand], attempt: Attempt?, dropped: Int64)
    {
        let size = try file.size()
        let expected = header()
        let head = try file.read(at: 0, count: Int(min(size, headerLength)))
        if size < headerLength {
            // A create cut short by a crash: nothing was ever acknowledged in it.
            guard Array(expected.prefix(head.count)) == head else {
                throw EventLogError(.notALog, "the file is not an outbox: it is \(size) bytes and does not start with LBOUTBOX", path: path)
            }
            guard repairing else { return (headerLength, [], nil, 0) }
            try expected.withBytes { (raw) throws(EventLogError) in try file.write(raw, at: 0) }
            try file.syncData()
            return (headerLength, [], nil, 0)
        }
        try checkHeader(head, expected: expected, path: path)
        let body = try file.read(at: headerLength, count: Int(size - headerLength))
        var pending: [SyncCommand] = []
        var attempt: Attempt?
        var offset = 0
        let entries = try body.withBytes { (raw) throws(EventLogError) -> Int in
            while offset < raw.count {
                let at = headerLength + Int64(offset)
                let left = raw.count - offset
                guard left >= frameHeaderLength else { break }  // a torn frame header
                let length = Int(raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self).littleEndian)
                let stored = raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self).littleEndian
                let reachesEnd = frameHeaderLength + length >= left
                guard length >= 1, length <= maxPayloadBytes, frameHeaderLength + length <= left else {
                    if reachesEnd { break }  // a torn last frame
                    throw EventLogError(.corruptRecord, "outbox entry has an invalid length \(length)", path: path, offset: at)
                }
                let payload = UnsafeRawBufferPointer(rebasing: raw[(offset + frameHeaderLength)..<(offset + frameHeaderLength + length)])
                let crc = CRC32C.update(CRC32C.checksum(UnsafeRawBufferPointer(rebasing: raw[offset..<offset + 4])), payload)
                guard crc == stored else {
                    if reachesEnd { break }  // the last frame, written in part
                    throw EventLogError(
                        .corruptRecord, "outbox entry fails its checksum, and entries follow it: the file is damaged", path: path,
                        offset: at)
                }
                let entry: Entry
                do throws(DecodeFailure) { entry = try Entry.decode(payload) } catch {
                    throw EventLogError(
                        .corruptRecord, "outbox entry with a valid checksum cannot be read: \(error.reason)", path: path, offset: at)
                }
                try fold(entry, into: &pending, attempt: &attempt, path: path, at: at)
                offset += frameHeaderLength + length
            }
            return offset
        }
        let end = headerLength + Int64(entries)
        if end < size, repairing {
            try file.truncate(to: end)
            try file.syncData()
        }
        return (end, pending, attempt, size - end)
    }

    private static func checkHeader(_ head: [UInt8], expected: [UInt8], path: String) throws(EventLogError) {
        guard Array(head.prefix(8)) == magic else {
            throw EventLogError(.notALog, "the file is not an outbox: it does not start with LBOUTBOX", path: path, offset: 0)
        }
        let version = UInt16(head[8]) | UInt16(head[9]) << 8
        guard version == Self.version else {
            throw EventLogError(
                .unsupportedVersion, "the outbox is version \(version); this build reads version \(Self.version)", path: path, offset: 8)
        }
        guard head == expected else {
            throw EventLogError(.corruptHeader, "the outbox header fails its checksum", path: path, offset: 0)
        }
    }

    /// Applies one entry read at `at` to the pending commands.
    private static func fold(
        _ entry: Entry, into pending: inout [SyncCommand], attempt: inout Attempt?, path: String, at: Int64
    ) throws(EventLogError) {
        switch entry {
        case .command(let command):
            guard !pending.contains(where: { $0.batchID == command.batchID }) else {
                throw EventLogError(.corruptRecord, "outbox entry repeats batch \(command.batchID)", path: path, offset: at)
            }
            pending.append(command)
        case .commands(let commands):
            var seen = Set(pending.map(\.batchID))
            for command in commands where !seen.insert(command.batchID).inserted {
                throw EventLogError(.corruptRecord, "outbox entry repeats batch \(command.batchID)", path: path, offset: at)
            }
            pending += commands
        case .attempt(let noted):
            guard noted.plan.map(\.batchID) == pending.prefix(noted.plan.count).map(\.batchID) else {
                throw EventLogError(
                    .corruptRecord, "outbox attempt \(noted.group) does not plan the first pending commands", path: path, offset: at)
            }
            attempt = noted
        case .done(let entries):
            let done = Set(entries.map(\.batchID))
            guard done.count == entries.count, entries.allSatisfy({ e in pending.contains { $0.batchID == e.batchID } }) else {
                throw EventLogError(.corruptRecord, "outbox done entry names a batch that is not pending", path: path, offset: at)
            }
            pending.removeAll { done.contains($0.batchID) }
            if let noted = attempt, noted.plan.contains(where: { done.contains($0.batchID) }) { attempt = nil }
        }
    }
}
