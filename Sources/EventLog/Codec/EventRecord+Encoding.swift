/// The payload encoding of a record (docs/FORMAT.md, "Payload"): the one
/// place that knows the byte layout on the writing side.
extension EventRecord {
    /// Flag bit 0 of a payload: an actor string follows.
    static let actorFlag: UInt8 = 1
    /// Flag bit 1 of a payload: a note string follows.
    static let noteFlag: UInt8 = 2

    /// Checks that this record can be encoded: every string within its limit
    /// and free of U+0000, every index in range.
    ///
    /// The string rule is one for every backend (docs/FORMAT.md, "Payload"):
    /// valid UTF-8 (a `String` is) without U+0000 (NUL), which PostgreSQL's
    /// `text` refuses and C APIs cut at; so a history one backend accepts, every
    /// backend accepts. Records already in a file are read as they are.
    ///
    /// - Throws: ``EventLogError/Code/invalidEvent`` naming the field and the seq: a seq
    ///   of 0; an actor, note, title, rejected command or rejection reason longer than its
    ///   ``LogLimits`` limit in UTF-8 bytes, or holding U+0000; an index outside
    ///   `0...LogLimits.maxIndex`; a reorder of more than ``LogLimits/maxReorderCount`` ids;
    ///   or a payload longer than ``LogLimits/maxPayloadBytes`` in all.
    public func validateForEncoding() throws(EventLogError) {
        _ = try validatedPayloadLength()
    }

    /// ``validateForEncoding()``, returning the payload's length (``payloadLength``).
    /// `allowingNUL` skips the string rule, for re-encoding a record read from a file
    /// written before the rule (never for an append).
    func validatedPayloadLength(allowingNUL: Bool = false) throws(EventLogError) -> Int {
        func check(_ s: String, _ limit: Int, _ what: String) throws(EventLogError) {
            let n = s.utf8.count
            if n > limit {
                throw EventLogError(.invalidEvent, "\(what) is \(n) bytes of UTF-8; the limit is \(limit) (seq \(seq))")
            }
            if !allowingNUL, UTF8Validation.mayHoldNUL(s), let at = s.utf8.firstIndex(of: 0) {
                let offset = s.utf8.distance(from: s.utf8.startIndex, to: at)
                throw EventLogError(
                    .invalidEvent,
                    "\(what) holds U+0000 (NUL) at byte \(offset) (seq \(seq)); no record may hold one, since no server can store it "
                        + "(docs/FORMAT.md, \"Payload\")")
            }
        }
        func index(_ i: Int, _ what: String) throws(EventLogError) {
            if i < 0 || i > LogLimits.maxIndex {
                throw EventLogError(.invalidEvent, "\(what) \(i) is out of range 0...\(LogLimits.maxIndex) (seq \(seq))")
            }
        }
        typealias W = UnsafeByteWriter
        /// The bytes `s` takes in the payload, once it is checked.
        func text(_ s: String, _ limit: Int, _ what: String) throws(EventLogError) -> Int {
            try check(s, limit, what)
            return W.stringLength(utf8Count: s.utf8.count)
        }
        guard seq >= 1 else { throw EventLogError(.invalidEvent, "seq must be at least 1") }
        // The length is added up as the fields are checked: one pass over the event (``payloadLength`` is the same sum).
        var length = W.varintLength(seq) + W.varintLength(W.zigzag(timestamp.millisecondsSince1970)) + 2
        if let actor { length += try text(actor, LogLimits.maxActorBytes, "actor") }
        if let note { length += try text(note, LogLimits.maxNoteBytes, "note") }
        switch event {
        case .added(_, let title, _, let i):
            length += 16 + W.varintLength(UInt64(max(i, 0))) + 1 + (try text(title, LogLimits.maxTitleBytes, "title"))
            try index(i, "index")
        case .renamed(_, let old, let new):
            length += 16 + (try text(old, LogLimits.maxTitleBytes, "old title")) + (try text(new, LogLimits.maxTitleBytes, "title"))
        case .toggled:
            length += 17
        case .removed(_, let i, let title, _):
            length += 16 + W.varintLength(UInt64(max(i, 0))) + 1 + (try text(title, LogLimits.maxTitleBytes, "title"))
            try index(i, "index")
        case .moved(_, let from, let to):
            try index(from, "from index")
            try index(to, "to index")
            length += 16 + W.varintLength(UInt64(from)) + W.varintLength(UInt64(to))
        case .reordered(let order):
            if order.count > LogLimits.maxReorderCount {
                throw EventLogError(.invalidEvent, "reorder of \(order.count) ids exceeds the limit \(LogLimits.maxReorderCount)")
            }
            length += W.varintLength(UInt64(order.count)) + 16 * order.count
        case .rejected(let id, let command, let reason):
            length +=
                1 + (id == nil ? 0 : 16) + (try text(command, LogLimits.maxReasonBytes, "rejected command"))
                + (try text(reason, LogLimits.maxReasonBytes, "rejection reason"))
        }
        // Each field within its limit can still add up to more than a frame may hold
        // (a maximal reorder plus an actor and a note): readers would refuse the frame.
        assert(length == payloadLength, "the checked length is the payload's")
        if length > LogLimits.maxPayloadBytes {
            throw EventLogError(
                .invalidEvent, "the record's payload is \(length) bytes; a record holds at most \(LogLimits.maxPayloadBytes) (seq \(seq))")
        }
        return length
    }

    /// Appends the payload bytes of this record to `out`. Call
    /// ``validateForEncoding()`` first; this does not check limits.
    func encodePayload(into out: inout ByteWriter) {
        out.appendUninitialized(count: payloadLength) { w in writePayload(to: &w) }
    }

    /// The payload bytes of this record (validated).
    ///
    /// - Throws: What ``validateForEncoding()`` throws.
    /// - Complexity: O(b) in the payload's bytes.
    public func encodedPayload() throws(EventLogError) -> [UInt8] {
        try validateForEncoding()
        var w = ByteWriter()
        encodePayload(into: &w)
        return w.bytes
    }

    /// The payload bytes of a record that was read (its stored bytes, since
    /// the decoder accepts only the canonical encoding): as
    /// ``encodedPayload()``, except that a string holding U+0000, which a file
    /// written before the string rule may hold, is encoded as it is.
    ///
    /// - Throws: ``EventLogError/Code/invalidEvent`` for a record over a limit.
    package func storedPayload() throws(EventLogError) -> [UInt8] {
        _ = try validatedPayloadLength(allowingNUL: true)
        var w = ByteWriter()
        encodePayload(into: &w)
        return w.bytes
    }

    /// The exact byte length of the payload ``writePayload(to:)`` writes.
    /// The record must be valid (``validateForEncoding()``).
    var payloadLength: Int {
        typealias W = UnsafeByteWriter
        @inline(__always) func text(_ s: String) -> Int { W.stringLength(utf8Count: s.utf8.count) }
        var n = W.varintLength(seq) + W.varintLength(W.zigzag(timestamp.millisecondsSince1970)) + 2
        switch actor {
        case .some(let actor): n += text(actor)
        case .none: break
        }
        switch note {
        case .some(let note): n += text(note)
        case .none: break
        }
        switch event {
        case .added(_, let title, _, let index), .removed(_, let index, let title, _):
            n += 16 + W.varintLength(UInt64(index)) + 1 + text(title)
        case .renamed(_, let old, let new):
            n += 16 + text(old) + text(new)
        case .toggled:
            n += 17
        case .moved(_, let from, let to):
            n += 16 + W.varintLength(UInt64(from)) + W.varintLength(UInt64(to))
        case .reordered(let order):
            n += W.varintLength(UInt64(order.count)) + 16 * order.count
        case .rejected(let id, let command, let reason):
            n += 1 + (id == nil ? 0 : 16) + text(command) + text(reason)
        }
        return n
    }

    /// Writes the payload: exactly ``payloadLength`` bytes.
    @inline(__always)
    func writePayload(to w: inout UnsafeByteWriter) {
        w.varint(seq)
        w.varint(UnsafeByteWriter.zigzag(timestamp.millisecondsSince1970))
        // The kind's byte is written with the event's fields (one pass over the event): its place is kept.
        let kindByte = w.position
        w.u8(0)
        var flags: UInt8 = 0
        switch actor {
        case .some: flags |= Self.actorFlag
        case .none: break
        }
        switch note {
        case .some: flags |= Self.noteFlag
        case .none: break
        }
        w.u8(flags)
        switch actor {
        case .some(let actor): w.string(actor)
        case .none: break
        }
        switch note {
        case .some(let note): w.string(note)
        case .none: break
        }
        switch event {
        case .added(let id, let title, let isEnabled, let index):
            kindByte.storeBytes(of: EventKind.added.code, as: UInt8.self)
            w.id(id)
            w.varint(UInt64(index))
            w.u8(isEnabled ? 1 : 0)
            w.string(title)
        case .renamed(let id, let old, let new):
            kindByte.storeBytes(of: EventKind.renamed.code, as: UInt8.self)
            w.id(id)
            w.string(old)
            w.string(new)
        case .toggled(let id, let isEnabled):
            kindByte.storeBytes(of: EventKind.toggled.code, as: UInt8.self)
            w.id(id)
            w.u8(isEnabled ? 1 : 0)
        case .removed(let id, let index, let title, let isEnabled):
            kindByte.storeBytes(of: EventKind.removed.code, as: UInt8.self)
            w.id(id)
            w.varint(UInt64(index))
            w.u8(isEnabled ? 1 : 0)
            w.string(title)
        case .moved(let id, let from, let to):
            kindByte.storeBytes(of: EventKind.moved.code, as: UInt8.self)
            w.id(id)
            w.varint(UInt64(from))
            w.varint(UInt64(to))
        case .reordered(let order):
            kindByte.storeBytes(of: EventKind.reordered.code, as: UInt8.self)
            w.varint(UInt64(order.count))
            for id in order { w.id(id) }
        case .rejected(let id, let command, let reason):
            kindByte.storeBytes(of: EventKind.rejected.code, as: UInt8.self)
            if let id {
                w.u8(1)
                w.id(id)
            } else {
                w.u8(0)
            }
            w.string(command)
            w.string(reason)
        }
    }
}
