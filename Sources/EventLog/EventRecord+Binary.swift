/// The decoding of a record payload (docs/FORMAT.md, "Payload"); the
/// encoding is in `EventRecord+Encoding.swift`.
extension EventRecord {
    /// Decodes one payload. Every byte must be consumed; any out-of-limit
    /// length, unknown kind, bad flag or invalid UTF-8 is a failure.
    static func decodePayload(_ payload: UnsafeRawBufferPointer) throws(DecodeFailure) -> EventRecord {
        var r = ByteReader(payload)
        let seq = try r.varint()
        guard seq >= 1 else { throw DecodeFailure("seq 0 is not a valid seq") }
        let time = try r.zigzag()
        let code = try r.u8()
        guard let kind = LabelEvent.Kind(code: code) else { throw DecodeFailure("unknown event kind \(code)") }
        let flags = try r.u8()
        guard flags & ~(actorFlag | noteFlag) == 0 else { throw DecodeFailure("unknown flag bits 0x\(String(flags, radix: 16))") }
        let actor = flags & actorFlag != 0 ? try r.string(maxBytes: LogLimits.maxActorBytes, what: "actor") : nil
        let note = flags & noteFlag != 0 ? try r.string(maxBytes: LogLimits.maxNoteBytes, what: "note") : nil
        func index(_ what: StaticString) throws(DecodeFailure) -> Int {
            try r.count(max: LogLimits.maxIndex, what: what)
        }
        let event: LabelEvent
        switch kind {
        case .added:
            let id = try r.id()
            let i = try index("index")
            let enabled = try r.bool("isEnabled")
            event = .added(id: id, title: try r.string(maxBytes: LogLimits.maxTitleBytes, what: "title"), isEnabled: enabled, index: i)
        case .renamed:
            let id = try r.id()
            let old = try r.string(maxBytes: LogLimits.maxTitleBytes, what: "old title")
            event = .renamed(id: id, oldTitle: old, newTitle: try r.string(maxBytes: LogLimits.maxTitleBytes, what: "title"))
        case .toggled:
            let id = try r.id()
            event = .toggled(id: id, isEnabled: try r.bool("isEnabled"))
        case .removed:
            let id = try r.id()
            let i = try index("index")
            let enabled = try r.bool("isEnabled")
            event = .removed(id: id, index: i, title: try r.string(maxBytes: LogLimits.maxTitleBytes, what: "title"), isEnabled: enabled)
        case .moved:
            let id = try r.id()
            let from = try index("from index")
            event = .moved(id: id, from: from, to: try index("to index"))
        case .reordered:
            let n = try r.count(max: LogLimits.maxReorderCount, what: "reorder count")
            guard n * 16 <= r.remaining else { throw DecodeFailure("reorder count \(n) runs past the end of the record") }
            var order: [LabelID] = []
            order.reserveCapacity(n)
            for _ in 0..<n { order.append(try r.id()) }
            event = .reordered(order: order)
        case .rejected:
            let id = try r.bool("has-id") ? try r.id() : nil
            let command = try r.string(maxBytes: LogLimits.maxReasonBytes, what: "rejected command")
            event = .rejected(id: id, command: command, reason: try r.string(maxBytes: LogLimits.maxReasonBytes, what: "rejection reason"))
        }
        guard r.isAtEnd else { throw DecodeFailure("\(r.remaining) unexpected bytes after the \(kind) event") }
        return EventRecord(seq: seq, timestamp: EventTimestamp(millisecondsSince1970: time), actor: actor, note: note, event: event)
    }

    /// Decodes a payload from bytes (for tools and tests); throws
    /// ``EventLogError/Code/corruptRecord`` naming the reason.
    public static func decode(payload: some Collection<UInt8>) throws(EventLogError) -> EventRecord {
        let bytes = Array(payload)
        let result: Result<EventRecord, DecodeFailure> = bytes.withUnsafeBytes { buffer in
            Result { () throws(DecodeFailure) -> EventRecord in try decodePayload(buffer) }
        }
        switch result {
        case .success(let record): return record
        case .failure(let failure):
            throw EventLogError(.corruptRecord, "record payload cannot be decoded: \(failure.reason)")
        }
    }
}
