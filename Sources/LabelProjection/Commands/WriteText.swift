import EventLog

/// The rule every string a write stores follows — a title, an actor, a
/// note: at most its ``LogLimits`` length in UTF-8 bytes, and no U+0000
/// (NUL), which no server can store and C APIs cut strings at. Checked when
/// a command is validated, so a string that breaks it is refused as the
/// command's fault (``StoreError/Code/invalidCommand``, naming the rule and
/// the byte), never reported as a failed log, and nothing is appended.
enum WriteText {
    /// Refuses `text` (called `what` in the message: "A title", "The actor")
    /// if it is longer than `limit` UTF-8 bytes or holds U+0000.
    static func check(_ text: String, limit: Int, _ what: String) throws(StoreError) {
        let bytes = text.utf8.count
        if bytes > limit {
            throw StoreError(.invalidCommand, "\(what) of \(bytes) bytes of UTF-8 is longer than the limit of \(limit).")
        }
        if let at = text.utf8.firstIndex(of: 0) {
            let offset = text.utf8.distance(from: text.utf8.startIndex, to: at)
            throw StoreError(
                .invalidCommand,
                "\(what) may not hold U+0000 (NUL); this one holds it at byte \(offset). No title, actor or note may hold one.")
        }
    }

    /// `text` with each U+0000 written as the six characters `\u0000`: the
    /// form a refused command's text takes in its `rejected` audit record.
    static func escapingNUL(_ text: String) -> String {
        guard text.utf8.contains(0) else { return text }
        var escaped = ""
        for scalar in text.unicodeScalars {
            if scalar.value == 0 { escaped += "\\u0000" } else { escaped.unicodeScalars.append(scalar) }
        }
        return escaped
    }
}

extension WriteOptions {
    /// Refuses an actor or a note that breaks the rule of ``WriteText``.
    func validate() throws(StoreError) {
        if let actor { try WriteText.check(actor, limit: LogLimits.maxActorBytes, "The actor") }
        if let note { try WriteText.check(note, limit: LogLimits.maxNoteBytes, "The note") }
    }
}
