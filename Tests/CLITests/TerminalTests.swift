import EventLog
import Foundation
import LabelStoreTestSupport
import Testing

/// Issue 16, items 1, 4, 7 and 8 (colour): what a user sees in a terminal,
/// captured through a pseudo-terminal (``PseudoTerminal``).
@Suite struct TerminalTests {
    /// A log of one label toggled `count - 1` times: long enough for many progress draws.
    static func toggles(at path: String, count: Int) throws {
        let writer = try LogWriter.open(path: path, options: .init(durability: .noSync, createIfMissing: true))
        defer { writer.close() }
        var entries = [LogEntry(.added(id: testID(1), title: "Lamp", isEnabled: true, index: 0), actor: "setup")]
        for i in 1..<count { entries.append(LogEntry(.toggled(id: testID(1), isEnabled: i % 2 == 0), actor: "row-ui")) }
        try writer.append(entries)
    }

    /// `LABELREPLAY_PROGRESS_DELAY_MS=0` draws at once (no wait of a second) and as often as it checks.
    static let eagerProgress = ["LABELREPLAY_PROGRESS_DELAY_MS": "0"]

    /// The progress line's drawings: what follows each `\r`, without the erase-line sequence.
    static func drawings(_ terminal: String) -> [String] {
        terminal.split(separator: "\r", omittingEmptySubsequences: true).map { $0.replacingOccurrences(of: "\u{1B}[K", with: "") }
    }

    @Test(arguments: [
        (["verify"], "verifying "), (["trace", "--from", "3900", "--to", "3901"], "replaying to seq 3900"),
        (["log", "--kind", "rejected"], "reading ")
    ])
    func progressIsOneLineCutToTheWidthAndErased(_ command: [String], _ label: String) async throws {
        let scratch = try Scratch()
        // A long path, so the progress text is wider than the terminal.
        let log = scratch.path("a-log-with-a-rather-long-name-to-overflow-a-narrow-terminal.labellog")
        try Self.toggles(at: log, count: 4000)
        let arguments = [command[0], log] + command.dropFirst()
        let result = try await PseudoTerminal.run(arguments, columns: 40, environment: Self.eagerProgress)
        #expect(result.status == 0, "\(result)")
        let drawings = Self.drawings(result.terminal).filter { !$0.isEmpty && !$0.hasPrefix("(no matching") }
        #expect(drawings.count >= 2, "progress was redrawn in place: \(result)")
        #expect(drawings.allSatisfy { $0.hasPrefix(label) }, "\(drawings.prefix(3))")
        #expect(drawings.allSatisfy { $0.count <= 39 }, "every drawing fits 40 columns: \(drawings.filter { $0.count > 39 }.prefix(2))")
        #expect(drawings.contains { $0.hasSuffix("…") }, "the text was cut")
        let progressPart = result.terminal.components(separatedBy: "(no matching events)")[0]
        #expect(!progressPart.contains("\n"), "one line, never a new line per drawing")
        #expect(progressPart.hasSuffix("\r\u{1B}[K"), "erased at the end: \(result.terminal.suffix(60).debugDescription)")
    }

    @Test func importShowsOneProgressLineToo() async throws {
        let scratch = try Scratch()
        let source = scratch.path("source.labellog")
        try Self.toggles(at: source, count: 4000)
        let input = scratch.path("a-json-lines-file-with-a-long-name-for-a-narrow-terminal.jsonl")
        try Data(try await CLI.run(["export", source]).stdout.utf8).write(to: URL(fileURLWithPath: input))
        let result = try await PseudoTerminal.run(
            ["import", scratch.path("copy.labellog"), input], columns: 40, environment: Self.eagerProgress)
        #expect(result.status == 0 && result.stdout.contains("imported 4000 records"), "\(result)")
        let drawings = Self.drawings(result.terminal).filter { !$0.isEmpty }
        #expect(drawings.count >= 2 && drawings.allSatisfy { $0.hasPrefix("importing ") && $0.count <= 39 }, "\(drawings.prefix(3))")
        #expect(!result.terminal.contains("\n") && result.terminal.hasSuffix("\r\u{1B}[K"), "\(result)")
    }

    @Test func noProgressWhenStandardErrorIsNotATerminal() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try Self.toggles(at: log, count: 4000)
        let result = try await CLI.run(["verify", log], environment: Self.eagerProgress)
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result)")
    }

    @Test func longOutputOnATerminalGoesThroughThePager() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try ReadCommandTests.history(at: log)
        let pager = ["PAGER": "sed s/^/PAGED:/", "NO_COLOR": "1"]
        for command in [["log", log], ["show", log], ["trace", log]] {
            let paged = try await PseudoTerminal.run(command, columns: 120, stdoutToo: true, environment: pager)
            #expect(paged.status == 0, "\(paged)")
            #expect(paged.terminal.contains("PAGED:seq") || paged.terminal.contains("PAGED:" + log), "\(command): \(paged)")
            let unpaged = try await PseudoTerminal.run(command + ["--no-pager"], columns: 120, stdoutToo: true, environment: pager)
            #expect(unpaged.status == 0 && !unpaged.terminal.contains("PAGED:") && !unpaged.terminal.isEmpty, "\(unpaged)")
        }
        // While the pager owns the screen, no progress line is drawn over it.
        let big = scratch.path("big.labellog")
        try Self.toggles(at: big, count: 4000)
        let quiet = try await PseudoTerminal.run(
            ["log", big, "--kind", "rejected"], columns: 80, stdoutToo: true, environment: pager.merging(Self.eagerProgress) { $1 })
        #expect(quiet.status == 0 && !quiet.terminal.contains("reading "), "\(quiet)")
        let drawn = try await PseudoTerminal.run(
            ["log", big, "--kind", "rejected", "--no-pager"], columns: 80, stdoutToo: true, environment: Self.eagerProgress)
        #expect(drawn.terminal.contains("\rreading "), "without the pager it is drawn: \(drawn)")
        // Never when standard output is not a terminal.
        let piped = try await CLI.run(["log", log], environment: pager)
        #expect(piped.status == 0 && !piped.stdout.contains("PAGED:") && piped.stdout.contains("seq"), "\(piped)")
    }

    /// A log of `count` labels, "Lamp 01"…, added by `setup`: more rows than a terminal of 24 shows.
    static func lamps(at path: String, count: Int) throws {
        let writer = try LogWriter.open(path: path, options: .init(durability: .noSync, createIfMissing: true))
        defer { writer.close() }
        var entries: [LogEntry] = []
        for i in 1...count {
            let title = i < 10 ? "Lamp 0\(i)" : "Lamp \(i)"
            entries.append(LogEntry(.added(id: testID(i), title: title, isEnabled: true, index: i - 1), actor: "setup"))
        }
        try writer.append(entries)
    }

    /// Issue 25, item 4: in a user's shell (bash with job control on its own terminal) the pager
    /// runs as the terminal's foreground job — it reads `q` from the keyboard, and `show`, `log`
    /// and `trace` return to the prompt with status 0, also when the pager quits before reading
    /// everything. (A pager in a process group of its own was stopped by SIGTTOU for ever.)
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/less"), "needs less, the default pager"))
    func thePagerRunsAsTheShellsForegroundJobAndTheCommandReturnsToThePrompt() async throws {
        let scratch = try Scratch()
        let log = scratch.path("lamps.labellog"), big = scratch.path("big.labellog")
        try Self.lamps(at: log, count: 40)
        try Self.toggles(at: big, count: 4000)
        let shell = try JobControlShell(pathFirst: CLI.executable.deletingLastPathComponent().path)
        defer { shell.stop() }
        let started = try await shell.wait(until: .now + .seconds(20)) { $0.contains("$ ") }
        try #require(started, "no prompt: \(shell.screen.debugDescription)")
        #expect(!shell.screen.contains("no job control"), "\(shell.screen)")
        // (command, what the pager's first screen shows, whether the user quits the pager with q)
        let steps: [(String, String, Bool)] = [
            ("show \(log)", "Lamp 07", true), ("log \(log) -n 5", "Lamp 40", false), ("trace \(log)", "Lamp 02", true),
            ("log \(big)", "row-ui", true)
        ]
        for (number, (command, shown, quits)) in steps.enumerated() {
            let marker = "DONE\(number)"
            let start = shell.shown
            shell.type("labelreplay \(command); echo \(marker)-$?\r")
            if quits {
                let paged = try await shell.wait(from: start, until: .now + .seconds(20)) { $0.contains(shown) }
                guard paged else {
                    Issue.record("labelreplay \(command): the pager showed nothing in 20 s: \(shell.screen.suffix(2000).debugDescription)")
                    return
                }
                shell.type("q")
            }
            let status = try await shell.status(after: marker, from: start, until: .now + .seconds(20))
            guard let status else {
                Issue.record("labelreplay \(command) did not return to the prompt in 20 s: \(shell.screen.suffix(2000).debugDescription)")
                return
            }
            let output = shell.text(from: start)
            #expect(status == 0, "labelreplay \(command): \(output.debugDescription)")
            #expect(output.contains(shown) && !output.contains("error"), "labelreplay \(command): \(output.debugDescription)")
        }
    }

    @Test func colourOnATerminalHonoursNoColorAndTheOption() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try ReadCommandTests.history(at: log)
        let kind = "\u{1B}[33mrenamed\u{1B}[0m"
        let auto = try await PseudoTerminal.run(
            ["log", log, "--no-pager"], columns: 160, stdoutToo: true, environment: ["NO_COLOR": "", "TERM": "xterm-256color"])
        #expect(auto.terminal.contains(kind), "coloured on a terminal: \(auto)")
        #expect(auto.terminal.contains("\u{1B}[2m\"Ring\"\u{1B}[0m → \u{1B}[1m\"Ring Two\"\u{1B}[0m"), "old → new: \(auto)")
        let noColor = try await PseudoTerminal.run(
            ["log", log, "--no-pager"], columns: 160, stdoutToo: true, environment: ["NO_COLOR": "1"])
        #expect(!noColor.terminal.contains("\u{1B}[") && noColor.terminal.contains("renamed"), "\(noColor)")
        let never = try await PseudoTerminal.run(
            ["log", log, "--no-pager", "--color=never"], columns: 160, stdoutToo: true, environment: ["NO_COLOR": ""])
        #expect(!never.terminal.contains("\u{1B}["), "\(never)")
        let piped = try await CLI.run(["log", log], environment: ["NO_COLOR": ""])
        #expect(!piped.stdout.contains("\u{1B}"), "no colour in a pipe")
        let always = try await CLI.run(["log", log, "--color", "always"], environment: ["NO_COLOR": "1"])
        #expect(always.stdout.contains(kind), "--color=always wins over NO_COLOR")
        let trace = try await CLI.run(["trace", log, "--color=always"])
        #expect(trace.stdout.contains("\u{1B}[31mremoved\u{1B}[0m"), "\(trace)")
        // diff: the same colours, and the columns line up as without them.
        let diff = try await CLI.run(["diff", log, "3", "7", "--color=always"])
        let plainDiff = try await CLI.run(["diff", log, "3", "7"])
        #expect(diff.stdout.contains("\u{1B}[33mrenamed\u{1B}[0m") && diff.stdout.contains("\u{1B}[2mon\u{1B}[0m → \u{1B}[1moff\u{1B}[0m"))
        let stripped = diff.stdout.replacing(/\u{1B}\[[0-9;]*m/, with: "")
        #expect(stripped == plainDiff.stdout, "\(diff.stdout)")
        let bad = try await CLI.run(["log", log, "--color", "sometimes"])
        #expect(bad.status == 64 && bad.stderr.contains("expected auto, always or never"), "\(bad)")
    }

    @Test func helpWrapsToTheTerminalsWidth() async throws {
        // No COLUMNS: the terminal's own width.
        let narrow = try await PseudoTerminal.run(["log", "--help"], columns: 60, stdoutToo: true, environment: ["COLUMNS": ""])
        let lines = narrow.terminal.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("  labelreplay ") }  // examples
        #expect(lines.count > 20 && lines.allSatisfy { $0.count <= 60 }, "\(narrow)")
        #expect(lines.contains { $0.count > 50 }, "it uses the width")
        // Neither COLUMNS nor a terminal: 80.
        let piped = try await CLI.run(["log", "--help"], environment: ["COLUMNS": ""])
        let pipedLines = piped.stdout.split(separator: "\n").filter { !$0.hasPrefix("  labelreplay ") }
        #expect(pipedLines.allSatisfy { $0.count <= 80 } && pipedLines.contains { $0.count > 70 }, "\(piped)")
    }
}
