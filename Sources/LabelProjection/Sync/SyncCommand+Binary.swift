import EventLog
import Foundation

/// The binary form of a ``SyncCommand`` in a device's outbox file
/// (docs/SYNC.md, "The outbox file"): little-endian, LEB128 varints,
/// strings as a varint byte count and UTF-8, ids and batch ids as 16 raw
/// bytes.
extension SyncCommand {
    /// Intent codes.
    enum IntentCode: UInt8 {
        case add = 1
        case rename
        case setEnabled
        case remove
        case move
        case reorder
    }

    /// Appends the command's bytes to `w`.
    func encode(into w: inout ByteWriter) {
        w.uuid(batchID)
        w.zigzag(madeAt.millisecondsSince1970)
        w.u8((actor == nil ? 0 : 1) | (note == nil ? 0 : 2))
        if let actor { w.string(actor) }
        if let note { w.string(note) }
        switch intent {
        case .add(let id, let title, let isEnabled, let after, let index):
            w.u8(IntentCode.add.rawValue)
            w.id(id)
            w.string(title)
            w.u8(isEnabled ? 1 : 0)
            w.ids(after)
            w.varint(UInt64(index))
        case .rename(let id, let title, let read):
            w.u8(IntentCode.rename.rawValue)
            w.id(id)
            w.string(title)
            switch read {
            case .server(let seq):
                w.u8(0)
                w.varint(seq)
            case .pending(let batch):
                w.u8(1)
                w.uuid(batch)
            }
        case .setEnabled(let id, let isEnabled):
            w.u8(IntentCode.setEnabled.rawValue)
            w.id(id)
            w.u8(isEnabled ? 1 : 0)
        case .remove(let id):
            w.u8(IntentCode.remove.rawValue)
            w.id(id)
        case .move(let id, let after, let index):
            w.u8(IntentCode.move.rawValue)
            w.id(id)
            w.ids(after)
            w.varint(UInt64(index))
        case .reorder(let ids):
            w.u8(IntentCode.reorder.rawValue)
            w.ids(ids)
        }
    }

    /// Reads a command written by ``encode(into:)``.
    static func decode(_ r: inout ByteReader) throws(DecodeFailure) -> SyncCommand {
        let batch = try r.uuid()
        let madeAt = EventTimestamp(millisecondsSince1970: try r.zigzag())
        let flags = try r.u8()
        guard flags & ~3 == 0 else { throw DecodeFailure("unknown flag bits 0x\(String(flags, radix: 16))") }
        let actor = flags & 1 != 0 ? try r.text(maxBytes: LogLimits.maxActorBytes, what: "actor").string : nil
        let note = flags & 2 != 0 ? try r.text(maxBytes: LogLimits.maxNoteBytes, what: "note").string : nil
        let code = try r.u8()
        let intent: Intent
        switch IntentCode(rawValue: code) {
        case .add:
            let id = try r.id()
            let title = try r.text(maxBytes: LogLimits.maxTitleBytes, what: "title").string
            let isEnabled = try r.bool("isEnabled")
            intent = .add(
                id: id, title: title, isEnabled: isEnabled, after: try r.ids(), index: try r.count(max: LogLimits.maxIndex, what: "index"))
        case .rename:
            let id = try r.id()
            let title = try r.text(maxBytes: LogLimits.maxTitleBytes, what: "title").string
            let read: TitleVersion
            switch try r.u8() {
            case 0: read = .server(seq: try r.varint())
            case 1: read = .pending(batch: try r.uuid())
            case let other: throw DecodeFailure("title version tag \(other), expected 0 or 1")
            }
            intent = .rename(id: id, title: title, read: read)
        case .setEnabled:
            intent = .setEnabled(id: try r.id(), isEnabled: try r.bool("isEnabled"))
        case .remove:
            intent = .remove(id: try r.id())
        case .move:
            let id = try r.id()
            intent = .move(id: id, after: try r.ids(), index: try r.count(max: LogLimits.maxIndex, what: "index"))
        case .reorder:
            intent = .reorder(try r.ids())
        case nil:
            throw DecodeFailure("unknown intent code \(code)")
        }
        return SyncCommand(intent, batchID: batch, actor: actor, note: note, madeAt: madeAt)
    }
}

extension ByteWriter {
    /// Appends a UUID's 16 raw bytes.
    mutating func uuid(_ uuid: UUID) { withUnsafeBytes(of: uuid.uuid) { bytes.append(contentsOf: $0) } }

    /// Appends a varint count and the ids.
    mutating func ids(_ ids: [LabelID]) {
        varint(UInt64(ids.count))
        for id in ids { self.id(id) }
    }
}

extension ByteReader {
    /// Reads a UUID's 16 raw bytes.
    mutating func uuid() throws(DecodeFailure) -> UUID { try id().uuid }

    /// Reads a varint count (within the reorder limit and the bytes left) and that many ids.
    mutating func ids() throws(DecodeFailure) -> [LabelID] {
        let n = try count(max: LogLimits.maxReorderCount, what: "id count")
        guard n * 16 <= remaining else { throw DecodeFailure("\(n) ids run past the end of the entry") }
        var ids: [LabelID] = []
        ids.reserveCapacity(n)
        for _ in 0..<n { ids.append(try id()) }
        return ids
    }
}
