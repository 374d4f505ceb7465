import EventLog
import Foundation
import LabelProjection

/// `demo`: writes scenarios A and B of docs/SCENARIOS.md into a new log, step by
/// step, printing each step, what the store published, and the list after it.
enum Demo: Command {
    static let spec = CommandSpec(
        name: "demo",
        abstract: "Write scenarios A and B (docs/SCENARIOS.md) into a new log, step by step.",
        discussion: """
            Scenario A edits rows of a list (actor row-ui); scenario B edits through a filtered view (actor filter-ui), \
            ending with an edit aimed at a label that was removed meanwhile: the store refuses it and records the \
            refusal as a 'rejected' audit record. Each step prints the records it appended, which subscribers the \
            store told, and the list after it.

            Without --log the log is a new file in the current directory, labels-demo-YYYYMMDD-HHMMSS.labellog; an \
            existing file is never overwritten.
            """,
        arguments: [.option("log", value: "path", "Write the demo log here (the file must not exist).")],
        examples: ["demo", "demo --log /tmp/demo.labellog"])

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let path: String
        if let given = arguments.option("log") {
            var isDirectory: ObjCBool = false
            if given.isEmpty { throw UsageError("the value '' is invalid for '--log <path>': expected the path of a new log file") }
            if LogLocation.isServer(given) {
                throw UsageError(
                    "'\(LogLocation.display(given))' is a server list, but 'demo' writes a new log file: give a path, then 'copy' it to the server"
                )
            }
            if FileManager.default.fileExists(atPath: given, isDirectory: &isDirectory) {
                if isDirectory.boolValue {
                    throw Failure(
                        "\(given): is a directory; give the path of a new file, e.g. '--log \((given as NSString).appendingPathComponent("demo.labellog"))'"
                    )
                }
                throw Failure("\(given): the file already exists; the demo never overwrites a file: give a new path, or leave out --log")
            }
            path = given
        } else {
            path = defaultPath()
        }
        let store = try Writing.open(path, create: true, recordRejections: true, console: console)
        defer { store.close() }
        console.line(Escape.text("Writing scenarios A and B of docs/SCENARIOS.md to \(path)"))
        let script = DemoScript(store: store, console: console)
        try script.scenarioA()
        try script.scenarioB()
        suggest(path: path, marks: script.marks, store: store, console: console)
        return ExitStatus.success
    }

    /// `labels-demo-YYYYMMDD-HHMMSS.labellog` in the current directory, with `-2`, `-3`, … if taken.
    static func defaultPath() -> String {
        let now = Calendar.current.dateComponents([.year, .month, .day, .hour, .minute, .second], from: Date())
        func two(_ n: Int?) -> String { n.map { $0 < 10 ? "0\($0)" : "\($0)" } ?? "00" }
        let stamp = "\(now.year ?? 0)\(two(now.month))\(two(now.day))-\(two(now.hour))\(two(now.minute))\(two(now.second))"
        var path = "labels-demo-\(stamp).labellog"
        var attempt = 2
        while FileManager.default.fileExists(atPath: path) {
            path = "labels-demo-\(stamp)-\(attempt).labellog"
            attempt += 1
        }
        return path
    }

    /// The closing hints: commands that explore the log just written, with real seqs and ids.
    static func suggest(path: String, marks: DemoScript.Marks, store: LabelStore, console: Console) {
        let file = path.unicodeScalars.contains(where: Escape.needsEscape) ? Escape.quoted(path) : shellQuoted(path)
        let tile = EventText.shortID(marks.tile)
        let hints = [
            ("who did what, one event per line", "log \(file)"),
            ("the refused edit, and why", "log \(file) --kind rejected"),
            ("everything that happened to Tile", "log \(file) --label \(tile)"),
            ("who was told when Tile's row went away (the stale-row debugger)", "trace \(file) --query tile"),
            ("the view just before Tile was removed", "show \(file) --at \(marks.tileRemoved - 1) --query tile"),
            ("what scenario B changed, per label", "diff \(file) \(marks.scenarioBStart) \(store.lastSeq)"),
            ("all of it in one page for a browser: events, the list at any seq, who was told, diffs", "timeline \(file) --query tile"),
            ("check every byte and every event", "verify \(file)")
        ]
        console.line()
        console.line(Escape.text("Done: \(store.lastSeq) records in \(path). Explore them:"))
        for (what, command) in hints {
            console.line("  # " + what)
            console.line("  \(invocation) \(command)")
        }
    }

    /// How the user can run this tool again, as they typed it. `swift run` starts
    /// the product by its path under `.build/<triple>/<configuration>/`: then
    /// `swift run labelreplay` (with `-c release`, and with `--package-path` when
    /// the current directory is outside the package). Otherwise the program name
    /// as invoked: `labelreplay` found in PATH, `.build/release/labelreplay`, ….
    static var invocation: String {
        let typed = CommandLine.arguments.first ?? ""
        guard !typed.isEmpty else { return Tool.name }
        let parts = typed.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let build = parts.count - 4
        guard build >= 0, parts[build] == ".build", parts[build + 1].contains("-"),
            ["debug", "release"].contains(parts[build + 2])
        else { return shellQuoted(typed) }
        var command = "swift run"
        if parts[build + 2] == "release" { command += " -c release" }
        let root = parts[..<build].joined(separator: "/")
        if !root.isEmpty {
            let here = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).standardizedFileURL.path
            let package = URL(fileURLWithPath: root).standardizedFileURL.path
            // Inside the package SwiftPM finds Package.swift itself (from a subdirectory too).
            if here != package && !here.hasPrefix(package == "/" ? "/" : package + "/") {
                command += " --package-path \(shellQuoted(root))"
            }
        }
        return command + " " + Tool.name
    }

    /// `path` as a shell word: unchanged when safe, else in single quotes.
    static func shellQuoted(_ path: String) -> String {
        let safe = path.unicodeScalars.allSatisfy {
            ($0.isASCII && $0.properties.isAlphabetic) || "0123456789._/-+:@".unicodeScalars.contains($0)
        }
        return safe && !path.isEmpty ? path : "'" + path.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
