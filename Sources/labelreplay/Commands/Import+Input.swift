import EventLog
import Foundation

/// `import`'s input: a file or standard input, read a block at a time and
/// decoded into entries a chunk at a time, so memory holds one block (or the
/// longest line) and one chunk, whatever the input's size.
///
/// Lines are read with the JSON line decoder of `EventLog` (`JSONLine`), which
/// reads `export`'s lines in place and hands anything else to `JSONDecoder`.
final class ImportInput {
    /// How the input is named in messages: its path, or `standard input`.
    let name: String
    /// The input's size when it is a regular file (for progress).
    let size: Int64?
    /// Which line each entry came from.
    private(set) var lines = LineNumbers()
    /// The bytes consumed so far.
    private(set) var consumed: Int64 = 0

    private let descriptor: Int32
    private let ownsDescriptor: Bool
    private var buffer: UnsafeMutableRawBufferPointer
    /// The unread bytes are `buffer[start..<end]`.
    private var start = 0
    private var end = 0
    private var endOfInput = false
    private var lineNumber = 0
    /// How many lines were read so far.
    var linesRead: Int { lineNumber }
    private var entryCount = 0
    private let decoder = JSONDecoder()
    /// Asked while waiting for input: `true` ends the wait (``Platform/Stopped``).
    var stopRequested: () -> Bool = { false }

    /// The bytes read from the input at a time.
    static let blockSize = 1 << 20

    /// Opens `source` (`-` is standard input).
    init(_ source: String) throws {
        if source == "-" {
            name = "standard input"
            descriptor = 0
            ownsDescriptor = false
        } else {
            if source.isEmpty { throw UsageError("the value '' is invalid for '<file>': expected a file name, or '-' for standard input") }
            name = source
            if let kind = Platform.unreadableKind(source) { throw Failure("\(source): is \(kind); give the JSON Lines file to import") }
            do {
                descriptor = try Platform.openForReading(source)
            } catch {
                if error.code == ENOENT {
                    throw Failure("\(source): no such file; give the JSON Lines file to import, or '-' for standard input")
                }
                throw Failure("\(source): cannot read the file: \(Platform.describe(errno: error.code)); check its permissions")
            }
            ownsDescriptor = true
        }
        size = Platform.regularFileSize(descriptor)
        buffer = .allocate(byteCount: Self.blockSize, alignment: 16)
    }

    deinit {
        if ownsDescriptor { Platform.closeFile(descriptor) }
        buffer.deallocate()
    }

    /// The next entries, at most `maxCount` of them, each checked to be a record's JSON
    /// form (a bad line throws, naming its number); `nil` at the end of the input.
    func nextChunk(maxCount: Int) throws -> [LogEntry]? {
        var entries: [LogEntry] = []
        entries.reserveCapacity(min(maxCount, 4096))
        // The hot loop works on locals: the properties of a class are checked for exclusive access at each use.
        var lineNumber = self.lineNumber
        var blankRun = 0
        var at = start
        defer {
            consumed += Int64(at - start)
            start = at
            self.lineNumber = lineNumber
            if blankRun > 0 { lines.noteBlankLines(blankRun, before: entryCount) }
        }
        while entries.count < maxCount, let line = try nextLine(at: &at, keepingRead: false) {
            lineNumber += 1
            guard line.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) else {
                blankRun += 1
                continue
            }
            do {
                entries.append(try JSONLine.decode(line, decoder: decoder))
            } catch let error as DecodingError {
                throw Failure("\(name) line \(lineNumber): \(Import.describe(error))")
            }
            if blankRun > 0 {
                lines.noteBlankLines(blankRun, before: entryCount)
                blankRun = 0
            }
            entryCount += 1
        }
        try Platform.checkInterrupt()
        return entries.isEmpty ? nil : entries
    }

    /// Reads the input's first non-blank line and, when it is an export's
    /// base line (``ExportedBase``), consumes it and returns the based log's
    /// header it describes; otherwise leaves everything unread. Before any
    /// ``nextChunk(maxCount:)``.
    /// - Throws: ``Failure`` for a base line that does not decode, naming its line.
    func takeBaseLine() throws -> LogHeader? {
        precondition(lineNumber == 0 && entryCount == 0, "the base line is read first")
        var at = start
        var blanks = 0
        // The lines looked at are kept: they are read again unless the line is a base.
        while let line = try nextLine(at: &at, keepingRead: true) {
            guard line.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) else {
                blanks += 1
                continue
            }
            guard ExportedBase.isBaseLine(line) else { return nil }
            let header = try ExportedBase.header(from: line, where: "\(name) line \(blanks + 1)")
            // The base line and the blank lines before it count as blank lines for the records' line numbers.
            consumed += Int64(at - start)
            start = at
            lineNumber = blanks + 1
            lines.noteBlankLines(blanks + 1, before: 0)
            return header
        }
        return nil
    }

    /// The line at `at` (without its newline; valid until the next call),
    /// `at` moved past it, reading more input when the buffer holds no whole
    /// line; `nil` at the end of the input. Before reading more, the bytes
    /// before `at` are dropped from the buffer (counted as consumed), unless
    /// `keepingRead` (a look ahead that may read them again).
    @inline(__always)
    private func nextLine(at: inout Int, keepingRead: Bool) throws -> UnsafeRawBufferPointer? {
        while true {
            let base = UnsafeRawPointer(buffer.baseAddress!)
            if let newline = memchr(base + at, 0x0A, end - at) {
                let stop = base.distance(to: UnsafeRawPointer(newline))
                defer { at = stop + 1 }
                return UnsafeRawBufferPointer(start: base + at, count: stop - at)
            }
            if endOfInput {
                guard at < end else { return nil }
                defer { at = end }
                return UnsafeRawBufferPointer(start: base + at, count: end - at)
            }
            if !keepingRead {
                consumed += Int64(at - start)
                start = at
            }
            let kept = at - start
            try refill()
            at = start + kept
        }
    }

    /// Moves the unread bytes to the front (growing the buffer for a line longer than it) and reads more.
    private func refill() throws {
        if start > 0 {
            let count = end - start
            if count > 0 { buffer.baseAddress!.copyMemory(from: buffer.baseAddress! + start, byteCount: count) }
            start = 0
            end = count
        }
        if end == buffer.count {
            let grown = UnsafeMutableRawBufferPointer.allocate(byteCount: buffer.count * 2, alignment: 16)
            grown.baseAddress!.copyMemory(from: buffer.baseAddress!, byteCount: end)
            buffer.deallocate()
            buffer = grown
        }
        let free = UnsafeMutableRawBufferPointer(rebasing: buffer[end...])
        let count: Int
        do {
            count = try Platform.readSome(descriptor, into: free, what: "cannot read \(name)", stop: stopRequested)
        } catch let error as SystemError {
            throw Failure("\(name): \(error.what): \(Platform.describe(errno: error.code))")
        }
        if count == 0 { endOfInput = true }
        end += count
    }

    /// How many lines the file at `path` has at most (line feeds + 1), read once
    /// without decoding; `nil` for standard input, which cannot be read twice.
    static func lineCount(_ source: String) throws -> Int? {
        guard source != "-" else { return nil }
        let input = try ImportInput(source)
        var count = 1
        while true {
            let block = UnsafeMutableRawBufferPointer(rebasing: input.buffer[0...])
            let n = try Platform.readSome(input.descriptor, into: block, what: "cannot read \(input.name)")
            if n == 0 { return count }
            for byte in UnsafeRawBufferPointer(rebasing: block[0..<n]) where byte == 0x0A { count += 1 }
        }
    }
}

/// Which line of the input each entry came from, without a number per entry:
/// entry i is on line i + 1 plus the blank lines before it, and only the
/// entries where that count of blank lines grows are noted.
struct LineNumbers {
    /// (first entry, blank lines before it), in entry order.
    private var breaks: [(entry: Int, blanks: Int)] = []

    /// `count` more blank lines were read before entry `index` (0-based, in input order).
    mutating func noteBlankLines(_ count: Int, before index: Int) {
        let blanks = (breaks.last?.blanks ?? 0) + count
        if breaks.last?.entry == index { breaks[breaks.count - 1].blanks = blanks } else { breaks.append((index, blanks)) }
    }

    /// The line number (1-based) of entry `index`.
    func line(ofEntry index: Int) -> Int {
        var low = 0
        var high = breaks.count
        while low < high {
            let mid = (low + high) / 2
            if breaks[mid].entry <= index { low = mid + 1 } else { high = mid }
        }
        return index + 1 + (low == 0 ? 0 : breaks[low - 1].blanks)
    }
}

extension Import {
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
