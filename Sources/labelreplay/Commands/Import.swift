import EventLog
import Foundation
import LabelProjection

/// `import LOG [FILE|-]`: appends JSON Lines records, all or nothing.
enum Import: Command {
    static let spec = CommandSpec(
        name: "import",
        abstract: "Append JSON Lines records (the output of 'export') to a log, all or nothing.",
        discussion: """
            Each non-empty line is one record in the JSON form of 'export' and 'log --json'; its seq is ignored (the \
            log numbers records itself) and its time, actor and note are kept (a missing time means now). The log is \
            created if missing. Every event is checked against the state the ones before it leave, exactly as the \
            store checks raw entries; one bad line (malformed JSON, an unknown kind, an event that contradicts the \
            state) imports nothing and names its line number.
            """,
        arguments: [
            .positional("log", "The label log file (created if missing)."),
            .positional("file", optional: true, "The JSON Lines file; '-' or nothing reads standard input.")
        ],
        examples: ["import copy.labellog labels.jsonl", "export a.labellog | labelreplay import b.labellog"])

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let log = arguments.positional("log")
        let source = arguments.optionalPositional("file") ?? "-"
        let data = try read(source)
        let name = source == "-" ? "standard input" : source
        let progress = Progress("importing \(name)", total: Int64(data.count), console: console)
        defer { progress.finish() }
        let (entries, lines) = try decode(data, from: name, progress: progress)
        guard !entries.isEmpty else {
            console.line(Escape.text("nothing to import: \(name) holds no records"))
            return ExitStatus.success
        }
        let store = try Writing.open(log, create: true, console: console)
        defer { store.close() }
        let created = store.createdLog
        let records: [EventRecord]
        progress.message("checking and appending \(entries.count) records")
        do {
            records = try store.append(entries: entries)
        } catch {
            if created { Writing.discardNewLog(store, path: log) }
            let index = error.batchIndex ?? 0
            var reason = ErrorText.describe(error)
            if case .inconsistentEvent(let refusal) = error.code { reason = "the record does not apply to the log: " + refusal.message }
            throw Failure("\(name) line \(lines[index]): \(reason); nothing was imported")
        }
        progress.finish()
        let range = records.count == 1 ? "seq \(records[0].seq)" : "seq \(records[0].seq)…\(records[records.count - 1].seq)"
        console.line(Escape.text("imported \(records.count) record\(records.count == 1 ? "" : "s") into \(log) as \(range)"))
        return ExitStatus.success
    }

    /// The bytes of `source` (`-` is standard input).
    static func read(_ source: String) throws -> Data {
        if source == "-" { return FileHandle.standardInput.readDataToEndOfFile() }
        guard let data = FileManager.default.contents(atPath: source) else {
            throw Failure(FileManager.default.fileExists(atPath: source) ? "\(source): cannot read the file" : "\(source): no such file")
        }
        return data
    }

    /// The entries of every non-empty line, with each entry's line number.
    static func decode(_ data: Data, from name: String, progress: Progress) throws -> ([LogEntry], [Int]) {
        let decoder = JSONDecoder()
        var entries: [LogEntry] = []
        var lines: [Int] = []
        var lineNumber = 0
        var start = data.startIndex
        while start < data.endIndex {
            let end = data[start...].firstIndex(of: 0x0A) ?? data.endIndex
            lineNumber += 1
            let line = data[start..<end]
            start = end < data.endIndex ? data.index(after: end) : end
            guard line.contains(where: { ![0x20, 0x09, 0x0D].contains($0) }) else { continue }
            do {
                entries.append(try decoder.decode(LogEntry.self, from: line))
                lines.append(lineNumber)
            } catch let error as DecodingError {
                throw Failure("\(name) line \(lineNumber): \(describe(error)); nothing was imported")
            }
            progress.update(Int64(start - data.startIndex), detail: "line \(lineNumber)")
        }
        return (entries, lines)
    }

    /// A short reason for a JSON decoding failure, naming the field.
    static func describe(_ error: DecodingError) -> String {
        func field(_ path: [any CodingKey]) -> String { path.map(\.stringValue).joined(separator: ".") }
        switch error {
        case .keyNotFound(let key, _):
            return "missing field '\(key.stringValue)'"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            if context.codingPath.isEmpty { return "not a JSON object" }
            return "field '\(field(context.codingPath))' has the wrong type"
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty { return "not a JSON object" }
            return "field '\(field(context.codingPath))': \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}
