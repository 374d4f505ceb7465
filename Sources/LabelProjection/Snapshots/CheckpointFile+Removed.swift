import EventLog

/// A checkpoint's removed-labels section (docs/SNAPSHOTS.md, "Checkpoints"):
/// for every tombstone of the list, in slot order, the state and title its
/// last `removed` event stated; then a CRC-32C of the section.
extension CheckpointFile {
    /// The section's bytes for `list`, whose tombstones `removed` must all name.
    static func encodeRemoved(_ removed: [LabelID: RemovedLabel], of list: LabelList) -> [UInt8] {
        var w = ByteWriter(capacity: 64)
        let ids = list.removedIDs
        w.varint(UInt64(ids.count))
        for id in ids {
            guard let label = removed[id] else { preconditionFailure("a tombstone without the event that removed it") }
            w.u8(label.isEnabled ? 1 : 0)
            w.string(label.title)
        }
        let crc = w.bytes.withUnsafeBytes { CRC32C.checksum($0) }
        w.u32(crc)
        return w.bytes
    }

    /// Decodes and checks a removed-labels section of the checkpoint whose list is `list`.
    static func decodeRemoved(_ bytes: UnsafeRawBufferPointer, of list: LabelList) throws(SnapshotError) -> [LabelID: RemovedLabel] {
        guard bytes.count >= 5 else { throw SnapshotError(.checksumMismatch, "the section is \(bytes.count) bytes") }
        let body = UnsafeRawBufferPointer(rebasing: bytes[..<(bytes.count - 4)])
        let stored = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: body.count, as: UInt32.self))
        guard CRC32C.checksum(body) == stored else { throw SnapshotError(.checksumMismatch, "the section's checksum does not match") }
        var r = ByteReader(body)
        let ids = list.removedIDs
        guard try r.count("the removed count", limit: body.count) == ids.count else {
            throw SnapshotError(.invalidContent, "the section's count is not the list's \(ids.count) removed labels")
        }
        var removed: [LabelID: RemovedLabel] = [:]
        removed.reserveCapacity(ids.count)
        for id in ids {
            let state = try r.u8("a removed label's state")
            guard state <= 1 else { throw SnapshotError(.invalidContent, "a removed label's state is \(state)") }
            let title = try r.utf8("a removed label's title", maxBytes: LogLimits.maxTitleBytes)
            removed[id] = RemovedLabel(title: String(decoding: title, as: UTF8.self), isEnabled: state == 1)
        }
        guard r.remaining == 0 else { throw SnapshotError(.invalidContent, "\(r.remaining) unexpected bytes after the removed labels") }
        return removed
    }
}
