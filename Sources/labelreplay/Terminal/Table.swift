/// Aligned columns of already escaped text, for human-readable output.
///
/// Widths are measured in terminal columns: East Asian wide characters and
/// emoji count two, combining marks and joiners zero, and the colour
/// sequences ``Style`` adds nothing (escaped text holds no raw ESC, so every
/// ESC is one of them). Trailing spaces are trimmed.
struct Table {
    /// How a column is aligned.
    enum Alignment { case left, right }

    /// The alignment of each column (missing ones are left-aligned).
    var alignments: [Alignment]
    /// The rows; every cell must already be escaped.
    var rows: [[String]] = []

    /// A table whose columns have these alignments.
    init(_ alignments: [Alignment] = []) { self.alignments = alignments }

    /// Appends a row.
    mutating func append(_ row: [String]) { rows.append(row) }

    /// The rows as lines, columns separated by two spaces, each prefixed by `indent`.
    func render(indent: String = "") -> [String] {
        let columnCount = rows.map(\.count).max() ?? 0
        var widths = [Int](repeating: 0, count: columnCount)
        for row in rows {
            for (i, cell) in row.enumerated() { widths[i] = max(widths[i], Self.width(of: cell)) }
        }
        return rows.map { row in
            var line = indent
            for (i, cell) in row.enumerated() {
                let padding = String(repeating: " ", count: widths[i] - Self.width(of: cell))
                let right = i < alignments.count && alignments[i] == .right
                line += right ? padding + cell : cell + padding
                if i < row.count - 1 { line += "  " }
            }
            while line.last == " " { line.removeLast() }
            return line
        }
    }

    /// The number of terminal columns `text` takes (an approximation of `wcswidth`).
    static func width(of text: String) -> Int {
        var width = 0
        var inEscape = false
        for scalar in text.unicodeScalars {
            let value = scalar.value
            if inEscape {
                if scalar == "m" { inEscape = false }
                continue
            }
            if value == 0x1B {
                inEscape = true
                continue
            }
            if value < 0x7F {
                width += 1
                continue
            }
            switch scalar.properties.generalCategory {
            case .nonspacingMark, .enclosingMark, .format: continue
            default: break
            }
            if value == 0x200D || (0xFE00...0xFE0F).contains(value) { continue }
            width += isWide(value) || scalar.properties.isEmojiPresentation ? 2 : 1
        }
        return width
    }

    private static func isWide(_ v: UInt32) -> Bool {
        (0x1100...0x115F).contains(v) || (0x2E80...0xA4CF).contains(v) || (0xAC00...0xD7A3).contains(v)
            || (0xF900...0xFAFF).contains(v) || (0xFE30...0xFE4F).contains(v) || (0xFF00...0xFF60).contains(v)
            || (0xFFE0...0xFFE6).contains(v) || (0x20000...0x3FFFD).contains(v)
    }
}
