import EventLog
import Foundation

extension Import {
    /// The bytes of `source` (`-` is standard input, read so that Ctrl-C ends the wait).
    static func read(_ source: String) throws -> Data {
        if source == "-" {
            do {
                return Data(try Platform.readStandardInput())
            } catch let error as SystemError {
                throw Failure("standard input: \(error.what): \(Platform.describe(errno: error.code))")
            }
        }
        if source.isEmpty { throw UsageError("the value '' is invalid for '<file>': expected a file name, or '-' for standard input") }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: source, isDirectory: &isDirectory) else {
            throw Failure("\(source): no such file; give the JSON Lines file to import, or '-' for standard input")
        }
        if isDirectory.boolValue { throw Failure("\(source): is a directory; give the JSON Lines file to import") }
        guard let data = FileManager.default.contents(atPath: source) else {
            throw Failure("\(source): cannot read the file; check its permissions")
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
            if lineNumber & 0x3FF == 0 { try Platform.checkInterrupt() }
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
