import EventLog
import LabelProjection

/// `stats LOG`: counts and sizes of a log.
enum Stats: Command {
    static let spec = CommandSpec(
        name: "stats",
        abstract: "Count events by kind, labels live and removed, bytes, time span and actors.",
        discussion: """
            JSON (--json): {"path", "fileSize", "records", "bytesPerEvent", "kinds": {kind: count, every kind}, \
            "labels": {"live", "enabled", "removed"}, "firstTime", "lastTime", "spanSeconds", "actors": {name: count}, \
            "withoutActor", "tailBytes"} where bytesPerEvent is the record bytes (file minus header, tail and preallocated zeros) per \
            record, firstTime/lastTime are absent for an empty log, and tailBytes counts bytes after the last complete \
            record (a torn tail). For a list on a server (a postgres:// LOG) fileSize, bytesPerEvent and tailBytes are 0: \
            the server stores the records, not a file; "server" then holds what the server reports, in bytes: \
            {"recordsTable", "recordsIndexes", "checkpointsTable"} (the schema's tables, every list) and \
            {"listPayloads", "listCheckpoints", "listCheckpointImages"} (this list's rows). For a log or list whose \
            records before its first were cut off (archive), "base" is {"first", "last", "cutAt", "archive", \
            "dropped"}: the seqs cut, when, and the archive file (null when dropped); the counts, times and actors are \
            those of the records it still holds.
            """,
        arguments: [.positional("log", "The label log file."), .flag("json", "Print one JSON object instead of text.")],
        examples: ["stats labels.labellog"])

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let path = try arguments.logPath()
        let replay = try Replay(path: path, strict: false, console: console, progress: "reading \(path)")
        var kinds = Dictionary(uniqueKeysWithValues: LabelEvent.Kind.allCases.map { ($0.rawValue, 0) })
        var actors: [String: Int] = [:]
        var withoutActor = 0
        var first: EventTimestamp?, last: EventTimestamp?
        while let step = try replay.next() {
            let record = step.record
            kinds[record.event.kind.rawValue, default: 0] += 1
            if let actor = record.actor { actors[actor, default: 0] += 1 } else { withoutActor += 1 }
            first = first ?? record.timestamp
            last = record.timestamp
        }
        let list = replay.list
        let tail = try replay.tail()
        let server = replay.isServer
        let size = server ? 0 : try replay.fileSize()
        let records = list.lastSeq - (replay.header.firstSeq - 1)
        // Record bytes only: not the header (with a based log's base block), a torn tail, or space the writer preallocated.
        let recordBytes = server ? 0 : replay.recordsEnd - Int64(replay.header.length)
        let stats = LogStats(
            path: path, fileSize: size, records: records,
            bytesPerEvent: records == 0 ? 0 : (Double(recordBytes) / Double(records) * 10).rounded() / 10,
            kinds: kinds, labels: .init(live: list.count, enabled: list.enabledCount, removed: list.knownIDs.count - list.count),
            firstTime: first?.iso8601, lastTime: last?.iso8601,
            spanSeconds: Double((last?.millisecondsSince1970 ?? 0) - (first?.millisecondsSince1970 ?? 0)) / 1000,
            actors: actors, withoutActor: withoutActor, tailBytes: tail?.bytes ?? 0,
            server: try replay.serverStorage.flatMap { try ServerStorage.sizes(of: $0) },
            base: replay.header.base.map { LogStats.Base($0, logPath: replay.path) })
        if arguments.flag("json") {
            console.line(try JSONLines().line(stats))
            return ExitStatus.success
        }
        replay.warnAboutTail()
        var table = Table()
        if server {
            table.append(["list", "a list on a PostgreSQL server, \(Import.count(Int(records)))"])
            if let sizes = stats.server {
                table.append([
                    "server",
                    "this list: \(HistoryCaches.megabytes(sizes.listPayloads)) of payloads, \(sizes.listCheckpoints) checkpoint\(sizes.listCheckpoints == 1 ? "" : "s") (\(HistoryCaches.megabytes(sizes.listCheckpointImages))); the schema's tables, every list: records \(HistoryCaches.megabytes(sizes.recordsTable)) + \(HistoryCaches.megabytes(sizes.recordsIndexes)) of indexes, checkpoints \(HistoryCaches.megabytes(sizes.checkpointsTable))"
                ])
            }
        } else {
            table.append([
                "file",
                "\(size) bytes: header \(replay.header.length), \(Import.count(Int(records))) (\(stats.bytesPerEvent) bytes per event)"
                    + (tail.map { ", \($0.bytes) bytes of torn tail" } ?? "")
            ])
        }
        if let base = stats.base {
            table.append([
                "base",
                "seqs \(base.first)…\(base.last) were cut off on \(base.cutAt): "
                    + (base.archive.map { "archived in \($0)" } ?? "dropped")
                    + "; what follows counts the records from seq \(base.last + 1)"
            ])
        }
        let span = (last?.millisecondsSince1970 ?? 0) - (first?.millisecondsSince1970 ?? 0)
        table.append(["time", first.map { "\($0.iso8601) → \(last!.iso8601) (\(Self.duration(milliseconds: span)))" } ?? "(no records)"])
        table.append(["labels", "\(list.count) live (\(list.enabledCount) enabled), \(stats.labels.removed) removed"])
        table.append(["events", LabelEvent.Kind.allCases.map { "\($0.rawValue) \(kinds[$0.rawValue] ?? 0)" }.joined(separator: " · ")])
        let byActor =
            actors.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            .map { "\(Escape.text($0.key)) \($0.value)" } + (withoutActor > 0 ? ["(no actor) \(withoutActor)"] : [])
        table.append(["actors", byActor.isEmpty ? "(none)" : byActor.joined(separator: " · ")])
        console.line(Escape.text(path))
        table.write(indent: "  ", to: console)
        return ExitStatus.success
    }
}

extension Stats {
    /// A duration as people say it: `850 ms`, `12.3 s`, `4 min 12 s`, `3 h 4 min`, `29 days 17 h`.
    static func duration(milliseconds: Int64) -> String {
        let ms = abs(milliseconds)
        let sign = milliseconds < 0 ? "-" : ""
        let seconds = ms / 1000, minutes = seconds / 60, hours = minutes / 60, days = hours / 24
        func unit(_ n: Int64, _ one: String, _ many: String) -> String { "\(n) \(n == 1 ? one : many)" }
        let text: String
        if ms < 1000 {
            text = "\(ms) ms"
        } else if seconds < 60 {
            text = "\(seconds).\(ms % 1000 / 100) s"
        } else if minutes < 60 {
            text = "\(minutes) min" + (seconds % 60 > 0 ? " \(seconds % 60) s" : "")
        } else if hours < 24 {
            text = "\(hours) h" + (minutes % 60 > 0 ? " \(minutes % 60) min" : "")
        } else {
            text = unit(days, "day", "days") + (hours % 24 > 0 ? " \(hours % 24) h" : "")
        }
        return sign + text
    }
}

/// `stats --json`.
struct LogStats: Encodable {
    struct Labels: Encodable {
        let live: Int
        let enabled: Int
        let removed: Int
    }
    let path: String
    let fileSize: Int64
    let records: UInt64
    let bytesPerEvent: Double
    let kinds: [String: Int]
    let labels: Labels
    let firstTime: String?
    let lastTime: String?
    let spanSeconds: Double
    let actors: [String: Int]
    let withoutActor: Int
    let tailBytes: Int64
    /// What the server reports, for a server list (absent for a file).
    let server: ServerStorage.Sizes?
    /// What a based log's or list's base says was cut (absent when its records start at seq 1).
    let base: Base?

    /// The seqs a base cut, when, and where they went.
    struct Base: Encodable {
        let first: UInt64
        let last: UInt64
        let cutAt: String
        /// The archive file (resolved beside the log), or `nil` when the records were dropped.
        let archive: String?
        let dropped: Bool

        init(_ base: LogBase, logPath: String) {
            first = base.cut.lowerBound
            last = base.cut.upperBound
            cutAt = base.cutAt.iso8601
            if case .archived(let file) = base.disposition {
                archive = HistoryArchive.resolve(file, namedBy: logPath)
                dropped = false
            } else {
                archive = nil
                dropped = true
            }
        }

        /// Encodes `archive` as null when the records were dropped (not left out).
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(first, forKey: .first)
            try container.encode(last, forKey: .last)
            try container.encode(cutAt, forKey: .cutAt)
            try container.encode(archive, forKey: .archive)
            try container.encode(dropped, forKey: .dropped)
        }

        private enum CodingKeys: String, CodingKey { case first, last, cutAt, archive, dropped }
    }
}
