/// The compact binary encoding of a record's payload (docs/FORMAT.md, "Payload").
extension EventRecord {
    private static let actorFlag: UInt8 = 1
    private static let noteFlag: UInt8 = 2

    /// Checks that this record can be encoded: every string within its limit,
    /// every index in range. Throws ``EventLogError/Code/invalidEvent``.
    public func validateForEncoding() throws(EventLogError) {
        func check(_ s: String, _ limit: Int, _ what: String) throws(EventLogError) {
            let n = s.utf8.count
            if n > limit {
                throw EventLogError(.invalidEvent, "\(what) is \(n) bytes of UTF-8; the limit is \(limit) (seq \(seq))")
            }
        }
        func index(_ i: Int, _ what: String) throws(EventLogError) {
            if i < 0 || i > LogLimits.maxIndex {
                throw EventLogError(.invalidEvent, "\(what) \(i) is out of range 0...\(LogLimits.maxIndex) (seq \(seq))")
            }
        }
        guard seq >= 1 else { throw EventLogError(.invalidEvent, "seq must be at least 1") }
        if let actor { try check(actor, LogLimits.maxActorBytes, "actor") }
        if let note { try check(note, LogLimits.maxNoteBytes, "note") }
        switch event {
        case .added(_, let title, _, let i):
            try check(title, LogLimits.maxTitleBytes, "title")
            try index(i, "index")
        case .renamed(_, let old, let new):
            try check(old, LogLimits.maxTitleBytes, "old title")
            try check(new, LogLimits.maxTitleBytes, "title")
        case .toggled:
            break
        case .removed(_, let i, let title, _):
            try check(title, LogLimits.maxTitleBytes, "title")
            try index(i, "index")
        case .moved(_, let from, let to):
            try index(from, "from index")
            try index(to, "to index")
        case .reordered(let order):
            if order.count > LogLimits.maxReorderCount {
                throw EventLogError(.invalidEvent, "reorder of \(order.count) ids exceeds the limit \(LogLimits.maxReorderCount)")
            }
        case .rejected(_, let command, let reason):
            try check(command, LogLimits.maxReasonBytes, "rejected command")
            try check(reason, LogLimits.maxReasonBytes, "rejection reason")
        }
    }

    /// Appends the payload bytes of this record to `out`. Call
    /// ``validateForEncoding()`` first; this does not check limits.
    func encodePayload(into out: inout ByteWriter) {
        out.varint(seq)
        out.zigzag(timestamp.millisecondsSince1970)
        out.u8(event.kind.code)
        out.u8((actor == nil ? 0 : Self.actorFlag) | (note == nil ? 0 : Self.noteFlag))
        if let actor { out.string(actor) }
        if let note { out.string(note) }
        switch event {
        case .added(let id, let title, let isEnabled, let index):
            out.id(id)
            out.varint(UInt64(index))
            out.u8(isEnabled ? 1 : 0)
            out.string(title)
        case .renamed(let id, let old, let new):
            out.id(id)
            out.string(old)
            out.string(new)
        case .toggled(let id, let isEnabled):
            out.id(id)
            out.u8(isEnabled ? 1 : 0)
        case .removed(let id, let index, let title, let isEnabled):
            out.id(id)
            out.varint(UInt64(index))
            out.u8(isEnabled ? 1 : 0)
            out.string(title)
        case .moved(let id, let from, let to):
            out.id(id)
            out.varint(UInt64(from))
            out.varint(UInt64(to))
        case .reordered(let order):
            out.varint(UInt64(order.count))
            for id in order { out.id(id) }
        case .rejected(let id, let command, let reason):
            if let id {
                out.u8(1)
                out.id(id)
            } else {
                out.u8(0)
            }
            out.string(command)
            out.string(reason)
        }
    }

    /// The payload bytes of this record (validated).
    public func encodedPayload() throws(EventLogError) -> [UInt8] {
        try validateForEncoding()
        var w = ByteWriter()
        encodePayload(into: &w)
        return w.bytes
    }

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
