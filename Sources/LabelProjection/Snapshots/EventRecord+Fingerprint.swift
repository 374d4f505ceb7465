import EventLog

extension EventRecord {
    /// A 32-bit CRC-32C over a canonical serialization of every field of the
    /// record (seq, timestamp, actor, note, kind and event body).
    ///
    /// A snapshot stores the fingerprint of the record at its seq; opening
    /// compares it with the log's record at that seq, so a snapshot taken
    /// from a history the log no longer has (records lost in a crash and
    /// written again differently) is not used.
    public var snapshotFingerprint: UInt32 {
        var w = ByteWriter(capacity: 96)
        w.u64(seq)
        w.u64(UInt64(bitPattern: timestamp.millisecondsSince1970))
        w.u8(event.kind.code)
        w.u8((actor == nil ? 0 : 1) | (note == nil ? 0 : 2))
        if let actor { w.string(actor) }
        if let note { w.string(note) }
        switch event {
        case .added(let id, let title, let isEnabled, let index):
            w.id(id)
            w.string(title)
            w.u8(isEnabled ? 1 : 0)
            w.varint(UInt64(max(0, index)))
        case .renamed(let id, let oldTitle, let newTitle):
            w.id(id)
            w.string(oldTitle)
            w.string(newTitle)
        case .toggled(let id, let isEnabled):
            w.id(id)
            w.u8(isEnabled ? 1 : 0)
        case .removed(let id, let index, let title, let isEnabled):
            w.id(id)
            w.varint(UInt64(max(0, index)))
            w.string(title)
            w.u8(isEnabled ? 1 : 0)
        case .moved(let id, let from, let to):
            w.id(id)
            w.varint(UInt64(max(0, from)))
            w.varint(UInt64(max(0, to)))
        case .reordered(let order):
            w.varint(UInt64(order.count))
            for id in order { w.id(id) }
        case .rejected(let id, let command, let reason):
            if let id {
                w.u8(1)
                w.id(id)
            } else {
                w.u8(0)
            }
            w.string(command)
            w.string(reason)
        }
        return w.bytes.withUnsafeBytes { CRC32C.checksum($0) }
    }
}
