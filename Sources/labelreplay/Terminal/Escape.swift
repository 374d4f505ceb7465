/// Escaping of untrusted text (titles, actors, notes, paths, messages) for
/// human-readable output.
///
/// A title is any Unicode text, so it may hold terminal escape sequences
/// (`ESC [ 31 m` recolours the terminal, `ESC ] 52` can write the clipboard),
/// carriage returns that overwrite earlier output, or bidirectional overrides
/// that make text read differently from what it is. None of them is ever
/// written raw: each is shown as a Swift-style escape, e.g. `\u{1B}[31m`.
/// A backslash is doubled, so an escaped text is never ambiguous. JSON output
/// does not use this: JSON escapes control characters itself.
enum Escape {
    /// `text` with control characters, bidi controls and backslashes escaped.
    static func text(_ text: String) -> String {
        escape(text, quote: false)
    }

    /// `text` in double quotes, escaped like ``text(_:)`` plus `\"` for a quote.
    static func quoted(_ text: String) -> String {
        "\"" + escape(text, quote: true) + "\""
    }

    /// Whether `scalar` must not reach a terminal raw.
    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F:  // C0 controls (ESC included), DEL, C1 controls (CSI 0x9B …)
            true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069:  // bidi marks, embeddings, overrides, isolates
            true
        case 0x2028, 0x2029:  // line and paragraph separators
            true
        default:
            false
        }
    }

    private static func escape(_ text: String, quote: Bool) -> String {
        // Fast path: most titles need nothing.
        if !text.unicodeScalars.contains(where: { needsEscape($0) || $0 == "\\" || (quote && $0 == "\"") }) {
            return text
        }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out.append(contentsOf: "\\\\".unicodeScalars)
            case "\"" where quote: out.append(contentsOf: "\\\"".unicodeScalars)
            case "\n": out.append(contentsOf: "\\n".unicodeScalars)
            case "\t": out.append(contentsOf: "\\t".unicodeScalars)
            case "\r": out.append(contentsOf: "\\r".unicodeScalars)
            case _ where needsEscape(scalar):
                out.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            default:
                out.append(scalar)
            }
        }
        return String(out)
    }
}
