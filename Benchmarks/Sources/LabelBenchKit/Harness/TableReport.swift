/// The human-readable report: the machine header and one table row per workload.
enum TableReport {
    /// The column titles.
    static let columns = ["workload", "ours (median)", "peer", "peer (median)", "ratio", "target", "met?"]

    /// The whole report as text.
    static func render(machine: MachineInfo, settings: BenchSettings, results: [WorkloadResult]) -> String {
        var lines = [
            "labelbench — EventLog vs SQLite (WAL), \(settings.modeName) run, "
                + "\(settings.repetitions) repetition\(settings.repetitions == 1 ? "" : "s") per side (median), seed 0x\(String(settings.seed, radix: 16))"
        ]
        lines += machine.lines
        if !machine.optimized { lines.append("WARNING: debug build; these numbers mean nothing (use -c release)") }
        lines.append("")
        let rows = results.map { r in
            [
                r.title, r.metric.format(r.ours.median), r.peer ?? "—", r.peer == nil ? "—" : r.metric.format(r.sqlite.median),
                r.ratioText, r.target.text, !r.target.hasBounds ? "—" : r.met ? "yes" : "no"
            ]
        }
        lines += table([columns] + rows)
        let notes = results.flatMap { r in r.notes.map { "- \(r.id): \($0)" } }
        if !notes.isEmpty { lines += [""] + notes }
        return lines.joined(separator: "\n")
    }

    /// Lays out `rows` (the first is the header) as a Markdown table with padded columns.
    static func table(_ rows: [[String]]) -> [String] {
        guard let header = rows.first else { return [] }
        var widths = header.map(\.count)
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        func line(_ cells: [String]) -> String {
            let padded = cells.enumerated().map { i, cell in cell + String(repeating: " ", count: widths[i] - cell.count) }
            return "| " + padded.joined(separator: " | ") + " |"
        }
        let rule = "|" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "|") + "|"
        return [line(header), rule] + rows.dropFirst().map(line)
    }
}
