import EventLog

/// The columns of `log`'s text output, with widths fixed before the first
/// line: seq, time, actor, kind, label, change. Every line of one run lines
/// up with the header and with each other, including lines `--follow` prints
/// later; a cell wider than its column (a long actor or title) pushes the
/// rest of that one line right, never the columns of other lines.
struct EventColumns {
    /// The widths of the seq, time, actor, kind and label columns (the change is last and not padded).
    let widths: [Int]
    let style: Style

    /// Columns for a log of `fileSize` bytes: the seq column fits every seq such a file can hold
    /// (a record takes more than 16 bytes), and more records appended later.
    init(fileSize: Int64, style: Style) {
        let digits = String(max(1, fileSize / 16)).count
        // time: ISO 8601 with milliseconds; kind: `reordered`, the longest kind.
        widths = [max(3, digits), 24, 12, 9, 20]
        self.style = style
    }

    /// The header line.
    var header: String { line(EventText.header, kind: nil) }

    /// One line of ``EventText/row(_:style:title:)`` cells for an event of `kind`.
    func line(_ cells: [String], kind: LabelEvent.Kind?) -> String {
        var text = ""
        for (index, cell) in cells.enumerated() {
            let padding = index < widths.count ? String(repeating: " ", count: max(0, widths[index] - Table.width(of: cell))) : ""
            var painted = cell
            if kind == nil {
                painted = style.paint(cell, .header)
            } else if index == 3, let kind {
                painted = style.paint(cell, Style.role(of: kind))
            }
            text += index == 0 ? padding + painted : painted + padding
            if index < cells.count - 1 { text += "  " }
        }
        while text.last == " " { text.removeLast() }
        return text
    }
}

extension EventColumns {
    /// `bytes` of a log headed by `header`, as ``init(fileSize:style:)`` counts
    /// them: as they are, or, for a format 4 log (whose records can take fewer
    /// than 16 bytes), the bytes a log of 16-byte records would take for as
    /// many, so the seq column fits.
    static func bytes(_ bytes: Int64, of header: LogHeader) -> Int64 {
        bytes.multipliedReportingOverflow(by: 16 / Int64(LogFormat.smallestRecordBytes(version: header.version))).partialValue
    }
}

extension LogReader {
    /// This log's size for ``EventColumns`` (``EventColumns/bytes(_:of:)``).
    func columnsBytes() throws(EventLogError) -> Int64 { EventColumns.bytes(try fileSize(), of: header) }
}
