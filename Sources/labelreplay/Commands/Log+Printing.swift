import EventLog

/// Prints `log`'s lines: the header once, then one line per event, or JSON Lines.
final class LogPrinter {
    private let console: Console
    private let json: Bool
    private let header: Bool
    private let columns: EventColumns
    private var headerPrinted = false
    /// Whether an event was printed.
    private(set) var printedAny = false

    init(console: Console, json: Bool, header: Bool, columns: EventColumns) {
        self.console = console
        self.json = json
        self.header = header
        self.columns = columns
    }

    /// Prints the header, if it is due and not yet printed.
    func printHeader() {
        guard header, !json, !headerPrinted else { return }
        headerPrinted = true
        console.line(columns.header)
    }

    /// Prints one event; `title` names labels as they were at its seq.
    func print(_ record: EventRecord, title: (LabelID) -> String?) throws {
        printedAny = true
        if json {
            console.json(record)
            return
        }
        printHeader()
        console.line(columns.line(EventText.row(record, style: columns.style, title: title), kind: record.event.kind))
    }
}

/// `-n N`: the last N events read, each with the titles it needs (as they were at its seq).
struct LastEvents {
    private var capacity: Int?
    private var ring: [(EventRecord, [LabelID: String])] = []
    private var head = 0

    init(capacity: Int?) { self.capacity = capacity }

    /// Whether events are kept (`-n` was given) rather than printed at once.
    var isKeeping: Bool { capacity != nil }

    /// Whether as many events are kept as were asked for.
    var isFull: Bool { capacity.map { ring.count >= $0 } ?? false }

    /// Keeps `record`, dropping the oldest one kept when full.
    mutating func append(_ record: EventRecord, titles: [LabelID: String]) {
        try? append(record) { titles[$0] }
    }

    /// Keeps `record` with the titles `title` gives for the labels it names, dropping the oldest one kept when full.
    mutating func append(_ record: EventRecord, title: (LabelID) throws -> String?) throws {
        guard let capacity, capacity > 0 else { return }
        var needed: [LabelID: String] = [:]
        for id in EventText.labelsShown(by: record.event) { needed[id] = try title(id) }
        if ring.count < capacity {
            ring.append((record, needed))
        } else {
            ring[head] = (record, needed)
            head = (head + 1) % capacity
        }
    }

    /// The events kept, oldest first; afterwards nothing is kept and events are printed at once.
    mutating func take() -> [(EventRecord, [LabelID: String])] {
        defer {
            ring = []
            head = 0
            capacity = nil
        }
        return Array(ring[head...] + ring[..<head])
    }
}
