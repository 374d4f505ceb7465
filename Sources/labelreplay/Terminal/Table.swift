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
        let widths = self.widths()
        var next = 0
        var out: [UInt8] = []
        return rows.map { row in
            out.removeAll(keepingCapacity: true)
            append(row, widths: widths, next: &next, indent: indent, to: &out)
            return String(decoding: out, as: UTF8.self)
        }
    }

    /// Writes the lines of ``render(indent:)`` to `console`, each straight into its output buffer.
    func write(indent: String = "", to console: Console) {
        let widths = self.widths()
        var next = 0
        for row in rows { console.line { append(row, widths: widths, next: &next, indent: indent, to: &$0) } }
    }

    /// Each column's width, then each cell's, row by row.
    private func widths() -> (columns: [Int], cells: [Int]) {
        var columns = [Int](repeating: 0, count: rows.map(\.count).max() ?? 0)
        var cells: [Int] = []
        cells.reserveCapacity(rows.count * columns.count)
        for row in rows {
            for (i, cell) in row.enumerated() {
                let width = Self.width(of: cell)
                cells.append(width)
                columns[i] = max(columns[i], width)
            }
        }
        return (columns, cells)
    }

    /// Appends `row`'s line to `out`: `indent`, the cells padded to their column's width
    /// (right-aligned ones on the left), two spaces between cells, trailing spaces trimmed.
    /// `next` is the index of the row's first cell in `widths.cells`, and is moved past it.
    private func append(_ row: [String], widths: (columns: [Int], cells: [Int]), next: inout Int, indent: String, to out: inout [UInt8]) {
        let start = out.count
        out.append(contentsOf: indent.utf8)
        for (i, cell) in row.enumerated() {
            let padding = widths.columns[i] - widths.cells[next]
            next += 1
            let right = i < alignments.count && alignments[i] == .right
            if right { out.append(contentsOf: repeatElement(0x20, count: padding)) }
            out.append(contentsOf: cell.utf8)
            if !right { out.append(contentsOf: repeatElement(0x20, count: padding)) }
            if i < row.count - 1 {
                out.append(0x20)
                out.append(0x20)
            }
        }
        Self.trimTrailingSpaces(&out, from: start)
    }

    /// Removes the spaces that end the line from `start` on, as `String` removes
    /// trailing `" "` characters: byte by byte, unless a non-ASCII scalar precedes
    /// them (a space may then belong to its grapheme cluster).
    private static func trimTrailingSpaces(_ out: inout [UInt8], from start: Int) {
        var end = out.count
        while end > start && out[end - 1] == 0x20 { end -= 1 }
        guard end < out.count else { return }
        if end > start && out[end - 1] >= 0x80 {
            var line = String(decoding: out[start...], as: UTF8.self)
            while line.last == " " { line.removeLast() }
            out.removeSubrange(start...)
            out.append(contentsOf: line.utf8)
        } else {
            out.removeSubrange(end...)
        }
    }

    /// The number of terminal columns `text` takes (an approximation of `wcswidth`).
    static func width(of text: String) -> Int {
        // Printable ASCII (no colour sequence): a column per byte.
        if let ascii = text.utf8.withContiguousStorageIfAvailable({ $0.allSatisfy { $0 < 0x7F && $0 != 0x1B } }), ascii {
            return text.utf8.count
        }
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
