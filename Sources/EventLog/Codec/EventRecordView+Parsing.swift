/// The one payload parser (docs/FORMAT.md, "Payload"): every check the
/// format asks of a decoder is here, and ``EventRecord`` decoding is this
/// parse followed by ``EventRecordView/record``.
extension EventRecordView {
    /// Parses one payload in place. Every byte must be consumed; any
    /// out-of-limit length, non-canonical varint, unknown kind, bad flag,
    /// bad bool or invalid UTF-8 is a failure. Allocates nothing unless it fails.
    ///
    /// With `validatingText` false, the strings are not checked as UTF-8
    /// (everything else is): only for payloads this process made from text
    /// it checked — a batch frame's canonical payloads, written by a
    /// ``BatchFrameDecoder`` that validated every word and string it copied.
    @inline(__always)
    static func parse(_ payload: UnsafeRawBufferPointer, validatingText: Bool = true) throws(DecodeFailure) -> EventRecordView {
        var r = ByteReader(payload)
        let seq = try r.varint()
        guard seq >= 1 else { throw DecodeFailure("seq 0 is not a valid seq") }
        let time = try r.zigzag()
        let code = try r.u8()
        guard let kind = LabelEvent.Kind(code: code) else { throw DecodeFailure("unknown event kind \(code)") }
        let flags = try r.u8()
        guard flags & ~(EventRecord.actorFlag | EventRecord.noteFlag) == 0 else {
            throw DecodeFailure("unknown flag bits 0x\(String(flags, radix: 16))")
        }
        let actor =
            flags & EventRecord.actorFlag != 0
            ? try r.text(maxBytes: LogLimits.maxActorBytes, what: "actor", validating: validatingText) : nil
        let note =
            flags & EventRecord.noteFlag != 0 ? try r.text(maxBytes: LogLimits.maxNoteBytes, what: "note", validating: validatingText) : nil
        func index(_ what: StaticString) throws(DecodeFailure) -> Int {
            try r.count(max: LogLimits.maxIndex, what: what)
        }
        let event: Event
        switch kind {
        case .added:
            let id = try r.id()
            let i = try index("index")
            let enabled = try r.bool("isEnabled")
            event = .added(
                id: id, title: try r.text(maxBytes: LogLimits.maxTitleBytes, what: "title", validating: validatingText), isEnabled: enabled,
                index: i)
        case .renamed:
            let id = try r.id()
            let old = try r.text(maxBytes: LogLimits.maxTitleBytes, what: "old title", validating: validatingText)
            event = .renamed(
                id: id, oldTitle: old, newTitle: try r.text(maxBytes: LogLimits.maxTitleBytes, what: "title", validating: validatingText))
        case .toggled:
            let id = try r.id()
            event = .toggled(id: id, isEnabled: try r.bool("isEnabled"))
        case .removed:
            let id = try r.id()
            let i = try index("index")
            let enabled = try r.bool("isEnabled")
            event = .removed(
                id: id, index: i, title: try r.text(maxBytes: LogLimits.maxTitleBytes, what: "title", validating: validatingText),
                isEnabled: enabled)
        case .moved:
            let id = try r.id()
            let from = try index("from index")
            event = .moved(id: id, from: from, to: try index("to index"))
        case .reordered:
            let n = try r.count(max: LogLimits.maxReorderCount, what: "reorder count")
            guard n * 16 <= r.remaining else { throw DecodeFailure("reorder count \(n) runs past the end of the record") }
            event = .reordered(order: IDs(bytes: try r.bytes(n * 16)))
        case .rejected:
            let id = try r.bool("has-id") ? try r.id() : nil
            let command = try r.text(maxBytes: LogLimits.maxReasonBytes, what: "rejected command", validating: validatingText)
            event = .rejected(
                id: id, command: command,
                reason: try r.text(maxBytes: LogLimits.maxReasonBytes, what: "rejection reason", validating: validatingText))
        }
        guard r.isAtEnd else { throw DecodeFailure("\(r.remaining) unexpected bytes after the \(kind) event") }
        return EventRecordView(
            seq: seq, timestamp: EventTimestamp(millisecondsSince1970: time), actor: actor, note: note,
            event: event, payload: RecordPayload(payload))
    }

    /// Parses a payload in place (for tools and tests). The view is valid as
    /// long as `payload`'s memory.
    ///
    /// - Throws: ``EventLogError`` with code ``EventLogError/Code/corruptRecord``
    ///   naming the reason, exactly as ``EventRecord/decode(payload:)`` does.
    /// - Complexity: O(payload length); allocates nothing.
    public static func parse(payload: UnsafeRawBufferPointer) throws(EventLogError) -> EventRecordView {
        do {
            return try parse(payload)
        } catch {
            throw EventLogError(.corruptRecord, "record payload cannot be decoded: \(error.reason)")
        }
    }
}
