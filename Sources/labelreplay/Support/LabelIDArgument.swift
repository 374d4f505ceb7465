import EventLog

/// Label ids on the command line: a full UUID, or a unique prefix of at
/// least 4 hex digits (any case, dashes optional), matched against every id
/// the log has seen, removed ones included.
///
/// - malformed text (not hex, fewer than 4 digits) is a usage error (exit 64);
/// - a prefix that matches no id, or several, is a failure (exit 1) that
///   names the log and lists the candidates.
enum LabelIDArgument {
    /// The shortest prefix accepted.
    static let minimumPrefix = 4

    /// What the text names: a whole id, or the hex digits an id starts with.
    enum Pattern: Equatable {
        case full(LabelID)
        case prefix(String)
    }

    /// Parses `text` given for the argument `display` (e.g. `<id>`, `--label <id>`).
    static func parse(_ text: String, for display: String) throws -> Pattern {
        let digits = text.lowercased().filter { $0 != "-" }
        guard digits.count >= minimumPrefix, digits.count <= 32, digits.allSatisfy(\.isHexDigit) else {
            throw UsageError(
                "the value '\(text)' is invalid for '\(display)': expected a label id (a UUID, or a unique prefix of at least \(minimumPrefix) hex digits)"
            )
        }
        if digits.count == 32 {
            let chars = Array(digits)
            let groups = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(chars[$0]) }
            if let id = LabelID(groups.joined(separator: "-")) { return .full(id) }
        }
        return .prefix(digits)
    }

    /// The id `text` names among `known`. A full id not in `known` is returned
    /// as is when `allowUnknown` (the store then says it was never added).
    static func resolve(
        _ text: String, for display: String, known: some Sequence<LabelID>, in path: String,
        allowUnknown: Bool = false, describe: (LabelID) -> String
    ) throws -> LabelID {
        switch try parse(text, for: display) {
        case .full(let id):
            if allowUnknown || known.contains(id) { return id }
            throw Failure("\(path): no label has id \(id)")
        case .prefix(let digits):
            let nibbles = Self.nibbles(digits)
            let matches = known.filter { hasPrefix($0, nibbles) }.sorted()
            switch matches.count {
            case 1:
                return matches[0]
            case 0:
                throw Failure(
                    "\(path): no label id starts with '\(digits)'; '\(Tool.name) show \(ErrorText.argument(path))' lists the labels, '\(Tool.name) log \(ErrorText.argument(path)) --kind removed' the removed ones"
                )
            default:
                var lines = matches.prefix(20).map { "\($0)  \(describe($0))" }
                if matches.count > 20 { lines.append("… and \(matches.count - 20) more") }
                throw Failure(
                    "\(path): the id prefix '\(digits)' is ambiguous: it matches \(matches.count) labels (give more digits):",
                    details: lines)
            }
        }
    }

    /// The values (0–15) of a prefix's hex digits.
    static func nibbles(_ digits: String) -> [UInt8] { digits.compactMap(\.hexDigitValue).map(UInt8.init) }

    /// Whether `id`'s hex digits start with `nibbles` (compared on the UUID's bytes: no string per id).
    static func hasPrefix(_ id: LabelID, _ nibbles: [UInt8]) -> Bool {
        withUnsafeBytes(of: id.uuid.uuid) { bytes in
            for (i, nibble) in nibbles.enumerated() {
                let byte = bytes[i / 2]
                if (i.isMultiple(of: 2) ? byte >> 4 : byte & 0x0F) != nibble { return false }
            }
            return true
        }
    }
}
