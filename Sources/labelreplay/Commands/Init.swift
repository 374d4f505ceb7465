import EventLog
import Foundation

/// `init LOCATION`: creates an empty history: the schema and the list on a
/// server, or an empty log file.
enum Init: Command {
    static let spec = CommandSpec(
        name: "init",
        abstract: "Create an empty history: a list (and its schema) on a PostgreSQL server, or an empty log file.",
        discussion: """
            On a server (a URL naming the list: postgres://user@host/db?list=NAME, optionally with &schema=S) it creates the label store schema \
            (default labelstore) if the database has none, then the list if the schema has none of that name, and says \
            which it created; a list that exists is left as it is. Commands that write to a server list never create \
            one, so a mistyped list name is an error, not a new list: 'init' (or 'copy') creates it.

            On a path it creates an empty log file (the directory must exist); a file that is already a label log is \
            left as it is, and a file that is not one is refused.

            JSON (--json): {"location", "kind" (file or server), "created" (whether anything was created), \
            "createdSchema", "createdList", "schema", "list" (server only), "lastSeq", "logID"}.
            """,
        arguments: [
            .positional("location", "A postgres:// URL naming the list (?list=NAME), or the path of a new log file."),
            .flag("json", "Print one JSON object instead of text.")
        ],
        examples: [
            "init 'postgres://app@db.example.com/labels?list=inbox'",
            "init 'postgresql:///labels?host=/run/postgresql&list=inbox&schema=team'",
            "init labels.labellog"
        ])

    /// `init --json`.
    struct Result: Encodable {
        let location: String
        let kind: String
        let created: Bool
        var createdSchema: Bool?
        var createdList: Bool?
        var schema: String?
        var list: String?
        let lastSeq: UInt64
        let logID: String
    }

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let text = try arguments.logPath("location")
        let location = LogLocation.resolve(text)
        let result: Result
        let sentence: String
        switch location {
        case .server:
            let creation = try ServerStorage.create(location)
            let opened = creation.opened
            let last = try opened.storage.refreshLastSeq()
            result = Result(
                location: opened.display, kind: "server", created: creation.createdList, createdSchema: creation.createdSchema,
                createdList: creation.createdList, schema: opened.schema, list: opened.list, lastSeq: last,
                logID: opened.logID.uuidString.lowercased())
            if creation.createdSchema {
                sentence = "created schema '\(opened.schema)' and list '\(opened.list)' at \(opened.display)"
            } else if creation.createdList {
                sentence = "created list '\(opened.list)' in schema '\(opened.schema)' at \(opened.display)"
            } else {
                sentence =
                    "list '\(opened.list)' already exists in schema '\(opened.schema)' at \(opened.display) (ends at seq \(last)); nothing changed"
            }
        case .file(let path):
            (result, sentence) = try initFile(path)
        }
        if arguments.flag("json") {
            console.line(try JSONLines().line(result))
        } else {
            console.line(Escape.text(sentence))
        }
        return ExitStatus.success
    }

    /// Creates an empty log file at `path`, or finds a label log there.
    private static func initFile(_ path: String) throws -> (Result, String) {
        if FileManager.default.fileExists(atPath: path) {
            let reader = try Replay.openReader(path)  // refuses a file that is not a label log
            try reader.skip(toSeq: .max)
            let last = reader.nextSeq - 1
            let result = Result(location: path, kind: "file", created: false, lastSeq: last, logID: reader.header.logID.description)
            return (result, "\(path) is already a label log (ends at seq \(last)); nothing changed")
        }
        let writer: LogWriter
        do {
            writer = try LogWriter.open(path: path, options: .init(createIfMissing: true))
        } catch let error as EventLogError where error.code == .fileNotFound {
            throw Failure("\(path): cannot create the log: the directory \(SystemFile.directoryName(of: path)) does not exist")
        }
        defer { writer.close() }
        let result = Result(location: path, kind: "file", created: true, lastSeq: 0, logID: writer.header.logID.description)
        return (result, "created the empty log \(path)")
    }
}
